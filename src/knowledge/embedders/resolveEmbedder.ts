import { z } from "zod";
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
  if (typeof spec === "object" && spec !== null) return new AISDKEmbedder(fromCrewAIShape(spec));
  throw new EmbedderError(`embedder must be a "provider/model" string, { provider, model, baseURL?, apiKey? } or an Embedder; got ${typeof spec}.`);
}

/** Validates an `embedder` option's shape (the embedder itself is checked when it is resolved). */
export const embedderSpecSchema = z.custom<EmbedderSpec>(
  (v) => (typeof v === "string" && v.length > 0) || isEmbedder(v) || (typeof v === "object" && v !== null && typeof (v as { provider?: unknown }).provider === "string"),
  'must be "provider/model", { provider, model, baseURL?, apiKey? } or an Embedder',
);

/**
 * CrewAI's shape, { provider, config: { model, api_key, url } }, read as ours; our own shape passes through.
 * Lets embedder settings move over from CrewAI projects unchanged.
 */
function fromCrewAIShape(spec: AISDKEmbedderOptions): AISDKEmbedderOptions {
  const { config, ...rest } = spec as AISDKEmbedderOptions & { config?: Record<string, unknown> };
  if (config === undefined || typeof config !== "object") return spec;
  const pick = (...keys: string[]) => keys.map((k) => config[k]).find((v) => v !== undefined);
  const model = pick("model", "model_name");
  const apiKey = pick("apiKey", "api_key");
  const baseURL = pick("baseURL", "base_url", "api_base", "url");
  const dimensions = pick("dimensions");
  return {
    ...rest,
    ...(model !== undefined ? { model: model as string } : {}),
    ...(apiKey !== undefined ? { apiKey: apiKey as string } : {}),
    ...(baseURL !== undefined ? { baseURL: baseURL as string } : {}),
    ...(dimensions !== undefined ? { dimensions: dimensions as number } : {}),
  };
}
