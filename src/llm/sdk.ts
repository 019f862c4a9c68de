// The parts of the LLM layer that need the Vercel AI SDK and its providers at run time. LLM loads
// this module on its first call, so `import "crewts"` does not pay for the SDK (~100 ms) in programs
// that build agents, run flows or use FakeLLM without ever calling a real model.
export { completeText, streamCompletion } from "./completion.js";
export { fromSdkToolCall, toModelMessages, toToolSet } from "./modelMessages.js";
export { createProviderModel, resolveConnection } from "./providerModel.js";
export { toLLMError } from "./toLLMError.js";
