import { AISDKEmbedder, EMBEDDING_PROVIDERS, type AISDKEmbedderOptions, type EmbeddingProvider } from "./AISDKEmbedder.js";
import { EmbedderError, isEmbedder, type Embedder } from "./Embedder.js";

/** What `embedder:` accepts: "provider/model", provider options, or a ready Embedder. */
export type EmbedderSpec = string | AISDKEmbedderOptions | Embedder;

const isProvider = (value: string): value is EmbeddingProvider => (EMBEDDING_PROVIDERS as readonly string[]).includes(value);

/** Turns an embedder spec into an Embedder ("openai/text-embedding-3-small", "ollama/nomic-embed-text", { provider, model, baseURL? }). */
export function resolveEmbedder(spec: EmbedderSpec): Embedder {
  if (isEmbedder(spec)) return spec;
  if (typeof spec === "string") {
    const slash = spec.indexOf("/");
    const provider = slash > 0 ? spec.slice(0, slash).toLowerCase() : "";
    const model = spec.slice(slash + 1);
    if (!isProvider(provider) || model === "") {
      throw new EmbedderError(
        `embedder "${spec}" is not "provider/model" with a provider crewts can embed with (${EMBEDDING_PROVIDERS.join(", ")}), ` +
          `e.g. "openai/text-embedding-3-small" or "ollama/nomic-embed-text". For anything else pass an Embedder (new FunctionEmbedder({ embed, dimensions })).`,
      );
    }
    return new AISDKEmbedder({ provider, model });
  }
  if (typeof spec === "object" && spec !== null) return new AISDKEmbedder(spec);
  throw new EmbedderError(`embedder must be a "provider/model" string, { provider, model, baseURL?, apiKey? } or an Embedder; got ${typeof spec}.`);
}
