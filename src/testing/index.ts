export { FakeLLM, FakeLLMExhaustedError, type FakeLLMCall, type FakeLLMOptions, type FakeResponder, type FakeResponse, type FakeToolCall } from "./FakeLLM.js";
