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
export {
  CASSETTE_MODES,
  CassetteError,
  CassetteMismatchError,
  DEFAULT_IGNORED_FIELDS,
  DEFAULT_UPSTREAMS,
  startCassetteServer,
  type CassetteData,
  type CassetteExchange,
  type CassetteMatchOptions,
  type CassetteMismatch,
  type CassetteMode,
  type CassetteServer,
  type CassetteServerOptions,
  type CassetteUpstream,
  type RecordedRequest,
  type RecordedResponse,
} from "./cassetteServer.js";
export { CASSETTE_DUMMY_API_KEY, cassettePath, resolveCassetteMode, withCassette, type WithCassetteOptions } from "./withCassette.js";
