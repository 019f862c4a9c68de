export { KickoffAbortedError } from "./KickoffAbortedError.js";
export type { KickoffOptions } from "./KickoffOptions.js";
export { runAborted, runKickoff, streamKickoff, untilRunAborted } from "./kickoffRun.js";
export { currentRun, eitherSignal, runWithChanges, runWithContext, type RunContext } from "./runContext.js";
export type { StreamChunk } from "./StreamChunk.js";
export { StreamingOutput } from "./StreamingOutput.js";
export { requestHumanInput, setHumanInputProvider, HumanInputError, type HumanInputContext, type HumanInputProvider, type HumanInputFunction } from "./humanInput.js";
