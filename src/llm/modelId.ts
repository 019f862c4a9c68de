/** The providers `LLM` speaks to. */
export const SUPPORTED_PROVIDERS = ["openai", "anthropic", "ollama", "openai-compatible"] as const;

/** One of SUPPORTED_PROVIDERS. */
export type Provider = (typeof SUPPORTED_PROVIDERS)[number];

/** A model string split into its provider and the provider's own model name. */
export interface ModelId {
  provider: Provider;
  /** The name the provider knows the model by (may itself contain "/", e.g. "meta-llama/Llama-3.1-8B"). */
  name: string;
}

/** Thrown when LLM options (model string included) are invalid; the message names the field and the fix. */
export class LLMOptionsError extends TypeError {
  override name = "LLMOptionsError";
  /** The environment variable the bad value came from (CREWTS_MODEL, MODEL), when it did not come from code or YAML. */
  environmentVariable?: string;
}

const isProvider = (value: string): value is Provider => (SUPPORTED_PROVIDERS as readonly string[]).includes(value);

// Bare names LiteLLM (and so CrewAI) routes without a prefix.
const OPENAI_BARE = /^(gpt-|chatgpt-|o1(-|$)|o3(-|$)|o4-|text-davinci|davinci|babbage)/i;
const ANTHROPIC_BARE = /^claude-/i;

/**
 * Parses "provider/model". A bare "gpt-*", "o1*", "o3*", "o4-*" name is OpenAI and "claude-*" is
 * Anthropic, as in CrewAI; anything else without a known provider is an LLMOptionsError.
 */
export function parseModelId(model: string): ModelId {
  const trimmed = model.trim();
  const slash = trimmed.indexOf("/");
  if (slash > 0) {
    const prefix = trimmed.slice(0, slash).toLowerCase();
    const name = trimmed.slice(slash + 1);
    if (isProvider(prefix)) {
      if (name === "") throw new LLMOptionsError(`model "${model}" has no model name after "${prefix}/", e.g. "${prefix}/${exampleModel(prefix)}".`);
      return { provider: prefix, name };
    }
  }
  if (slash === -1 && OPENAI_BARE.test(trimmed)) return { provider: "openai", name: trimmed };
  if (slash === -1 && ANTHROPIC_BARE.test(trimmed)) return { provider: "anthropic", name: trimmed };
  const given = slash > 0 ? `provider "${trimmed.slice(0, slash)}" that crewts does not know` : "no provider";
  throw new LLMOptionsError(
    `model "${model}" has ${given}. Write it as "provider/model" with one of the supported providers: ` +
      `${SUPPORTED_PROVIDERS.join(", ")} (e.g. "openai/gpt-4o-mini", "anthropic/claude-3-5-sonnet-latest", "ollama/llama3.1"). ` +
      `Any server speaking the OpenAI chat completions API works as "openai-compatible/<model>" with a baseURL.`,
  );
}

function exampleModel(provider: Provider): string {
  return { openai: "gpt-4o-mini", anthropic: "claude-3-5-sonnet-latest", ollama: "llama3.1", "openai-compatible": "my-model" }[provider];
}

// OpenAI reasoning models reject `stop` (and `temperature`).
const REASONING = /^(o1|o3|o4)(-|$)|^gpt-5/i;

/** Whether `name` is an OpenAI reasoning model (o1, o3, o4-mini, gpt-5 families). */
export function isReasoningModel(name: string): boolean {
  return REASONING.test(baseName(name));
}

// Ollama families whose chat templates support tools (ollama.com/search?c=tools), matched by prefix.
const TOOL_FAMILIES = [
  "llama3.1",
  "llama3.2",
  "llama3.3",
  "llama4",
  "qwen2",
  "qwen3",
  "qwq",
  "mistral",
  "mixtral",
  "command-r",
  "firefunction",
  "hermes3",
  "nemotron",
  "granite3",
  "granite4",
  "smollm2",
  "phi4-mini",
  "devstral",
  "magistral",
  "cogito",
  "gpt-oss",
  "deepseek-v3",
  "athene-v2",
];

// Older OpenAI models that cannot call tools.
const OPENAI_NO_TOOLS = /^(o1-mini|o1-preview|gpt-3\.5-turbo-instruct|text-|davinci|babbage)/i;

/** Whether the model can call tools natively (provider, then model family). */
export function supportsToolCalling(id: ModelId): boolean {
  const name = baseName(id.name).toLowerCase();
  switch (id.provider) {
    case "openai":
      return !OPENAI_NO_TOOLS.test(name);
    case "anthropic":
      return true;
    case "ollama":
      return TOOL_FAMILIES.some((family) => name.startsWith(family));
    case "openai-compatible":
      // Servers speaking the chat completions API take `tools` (vLLM, LM Studio, llama.cpp, Together, Groq, ...);
      // set `functionCalling: false` for one that does not.
      return true;
  }
}

// "meta-llama/Llama-3.1" -> "Llama-3.1": families are matched on the last path segment.
function baseName(name: string): string {
  const slash = name.lastIndexOf("/");
  return slash === -1 ? name : name.slice(slash + 1);
}
