export { FakeLLM, FakeLLMExhaustedError, type FakeLLMCall, type FakeLLMOptions, type FakeResponder, type FakeResponse, type FakeToolCall } from "./FakeLLM.js";
export {
  startMockOpenAIServer,
  type MockFault,
  type MockOpenAIServer,
  type MockRequest,
  type MockResponder,
  type MockResponse,
  type MockServerOptions,
  type MockStreamEvent,
} from "./mockOpenAIServer.js";
export { MOCK_EMBEDDING_DIMENSIONS, mockEmbedding } from "./mockServer/embeddingsProtocol.js";
