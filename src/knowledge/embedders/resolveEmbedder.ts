import { createHash } from "node:crypto";
import { z } from "zod";
import { revealSecrets } from "../../llm/hideSecrets.js";
import { AISDKEmbedder, EMBEDDING_PROVIDERS, type AISDKEmbedderOptions, type EmbeddingProvider } from "./AISDKEmbedder.js";
import { EmbedderError, isEmbedder, type EmbedOptions, type Embedder } from "./Embedder.js";
import { FunctionEmbedder } from "./FunctionEmbedder.js";

/** Any object that embeds: `embed(texts)` and the vectors' `dimensions` (an `id` is made up when it has none). */
export interface EmbedderLike {
  embed(texts: string[], options?: EmbedOptions): Promise<number[][]> | number[][];
  dimensions: number;
  id?: string;
}

/** CrewAI's way to plug in your own embedder: `{ provider: "custom", config: { embedder } }`. */
export interface CustomEmbedderSpec {
  provider: "custom";
  config: { embedder: Embedder | EmbedderLike };
}

/** What `embedder:` accepts: "provider/model", provider options (ours or CrewAI's, "custom" included), or an embedder. */
export type EmbedderSpec = string | AISDKEmbedderOptions | CustomEmbedderSpec | Embedder | EmbedderLike;

const isEmbedderLike = (value: unknown): value is EmbedderLike =>
  typeof value === "object" && value !== null && typeof (value as { embed?: unknown }).embed === "function";

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
  if (isEmbedderLike(spec)) return fromEmbedderLike(spec);
  if (typeof spec === "object" && spec !== null) {
    // CrewAI's { provider: "custom", config: { embedder } }.
    if (spec.provider === "custom") {
      const custom: unknown = (spec as { config?: { embedder?: unknown } }).config?.embedder;
      if (isEmbedder(custom)) return custom;
      if (isEmbedderLike(custom)) return fromEmbedderLike(custom);
      throw new EmbedderError('embedder { provider: "custom", config: { embedder } } needs an object with embed(texts) and dimensions.');
    }
    return new AISDKEmbedder(fromCrewAIShape(spec));
  }
  throw new EmbedderError(`embedder must be a "provider/model" string, { provider, model, baseURL?, apiKey? } or an Embedder; got ${typeof spec}.`);
}

/** Validates an `embedder` option's shape (the embedder itself is checked when it is resolved). */
export const embedderSpecSchema = z.custom<EmbedderSpec>(
  (v) => (typeof v === "string" && v.length > 0) || isEmbedderLike(v) || (typeof v === "object" && v !== null && typeof (v as { provider?: unknown }).provider === "string"),
  'must be "provider/model", { provider, model, baseURL?, apiKey? } or an embedder ({ embed(texts), dimensions })',
);

/**
 * CrewAI's shape, { provider, config: { model, api_key, url } }, read as ours; our own shape passes through.
 * Lets embedder settings move over from CrewAI projects unchanged.
 */
function fromCrewAIShape(spec: AISDKEmbedderOptions): AISDKEmbedderOptions {
  // Options kept by an agent or crew hide their key from spreads (hideSecrets): read it back first.
  const { config, ...rest } = revealSecrets(spec) as AISDKEmbedderOptions & { config?: Record<string, unknown> };
  if (config === undefined || typeof config !== "object") return rest;
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

/**
 * An object with embed() and dimensions but no id, as a checked, batched Embedder. Its id keys cached
 * vectors, so it is made from what tells embedders apart: the class, the embed function's source, the
 * object's own settings (model names and the like) and the dimensions. A bound or native function shows
 * no source: such an embedder must be given an id.
 */
function fromEmbedderLike(value: EmbedderLike): Embedder {
  if (typeof value.dimensions !== "number" || !Number.isInteger(value.dimensions) || value.dimensions < 1) {
    throw new EmbedderError(`An embedder object needs dimensions, the length of its vectors (a positive integer); got ${String(value.dimensions)}.`);
  }
  const id = typeof value.id === "string" && value.id !== "" ? value.id : derivedId(value);
  return new FunctionEmbedder({ id, dimensions: value.dimensions, embed: (texts, options) => value.embed(texts, options) });
}

function derivedId(value: EmbedderLike): string {
  const source = String((value as { embed: unknown }).embed);
  if (source.includes("[native code]")) {
    throw new EmbedderError(
      "This embedder's embed is a bound or native function, so crewts cannot tell it from another one: give it an id " +
        '(e.g. { id: "my-model-v1", dimensions, embed }); stores keep vectors by that id.',
    );
  }
  const settings = Object.entries(value).filter(([, v]) => ["string", "number", "boolean"].includes(typeof v));
  const identity = JSON.stringify([value.constructor?.name ?? "", source, settings, value.dimensions]);
  return `custom/${createHash("sha256").update(identity).digest("hex").slice(0, 16)}`;
}
