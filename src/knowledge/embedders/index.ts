export { EmbedderError, isEmbedder, type EmbedOptions, type Embedder } from "./Embedder.js";
export { FunctionEmbedder, type FunctionEmbedderOptions } from "./FunctionEmbedder.js";
export { AISDKEmbedder, EMBEDDING_PROVIDERS, type AISDKEmbedderOptions, type EmbeddingProvider } from "./AISDKEmbedder.js";
export { resolveEmbedder, type EmbedderSpec } from "./resolveEmbedder.js";
