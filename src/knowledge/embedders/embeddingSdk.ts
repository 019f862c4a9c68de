// The AI SDK side of AISDKEmbedder, imported on its first call so building an embedder stays cheap.
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, type EmbeddingModel } from "ai";
import { ollamaBaseURL, type ProviderConnection } from "../../llm/providerModel.js";
import type { EmbeddingProvider } from "./AISDKEmbedder.js";

export { resolveConnection } from "../../llm/providerModel.js";
export { toLLMError } from "../../llm/toLLMError.js";

/** Builds the AI SDK embedding model for one provider. */
export function createEmbeddingModel(
  provider: EmbeddingProvider,
  name: string,
  connection: ProviderConnection,
  headers: Record<string, string> | undefined,
): EmbeddingModel {
  const common = {
    ...(connection.baseURL !== undefined ? { baseURL: connection.baseURL } : {}),
    ...(connection.apiKey !== undefined ? { apiKey: connection.apiKey } : {}),
    ...(headers !== undefined ? { headers } : {}),
  };
  if (provider === "openai") return createOpenAI(common).embedding(name);
  return createOpenAICompatible({ ...common, name: provider, baseURL: connection.baseURL ?? ollamaBaseURL("http://localhost:11434") }).embeddingModel(name);
}

/** One request to the provider, retries left to our loop. */
export async function embedOnce(
  model: EmbeddingModel,
  values: string[],
  signal: AbortSignal,
  dimensions: number | undefined,
): Promise<{ embeddings: number[][]; tokens: number }> {
  const result = await embedMany({
    model,
    values,
    maxRetries: 0,
    abortSignal: signal,
    // We batch ourselves: one embedMany call is one request.
    maxParallelCalls: 1,
    ...(dimensions !== undefined ? { providerOptions: { openai: { dimensions } } } : {}),
  });
  return { embeddings: result.embeddings, tokens: result.usage.tokens };
}
