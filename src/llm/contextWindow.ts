/** Share of the context window an agent may fill before summarizing (CrewAI's CONTEXT_WINDOW_USAGE_RATIO). */
export const CONTEXT_WINDOW_USAGE_RATIO = 0.85;

/** Context window assumed for models the table does not know. */
export const DEFAULT_CONTEXT_WINDOW = 8192;

/**
 * Full context windows, in tokens, by model-name prefix; the longest matching prefix wins, so
 * `gpt-4o-mini-2024-07-18` finds `gpt-4o-mini` and `llama3.1:8b` finds `llama3.1`. Ollama sizes are
 * the models' own: an Ollama server may run them with a smaller `num_ctx`.
 */
export const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  // OpenAI
  "gpt-3.5-turbo": 16_385,
  "gpt-4": 8_192,
  "gpt-4-32k": 32_768,
  "gpt-4-turbo": 128_000,
  "gpt-4-1106": 128_000,
  "gpt-4-0125": 128_000,
  "gpt-4o": 128_000,
  "gpt-4o-mini": 128_000,
  "chatgpt-4o": 128_000,
  "gpt-4.1": 1_047_576,
  "gpt-4.5": 128_000,
  "gpt-5": 400_000,
  "gpt-oss": 131_072,
  o1: 200_000,
  "o1-mini": 128_000,
  "o1-preview": 128_000,
  o3: 200_000,
  "o3-mini": 200_000,
  "o4-mini": 200_000,
  // Anthropic
  "claude-": 200_000,
  "claude-2": 100_000,
  "claude-3": 200_000,
  "claude-3-5": 200_000,
  "claude-3-7": 200_000,
  "claude-sonnet-4": 200_000,
  "claude-opus-4": 200_000,
  "claude-haiku-4": 200_000,
  // Open models (Ollama names)
  llama2: 4_096,
  llama3: 8_192,
  "llama3.1": 131_072,
  "llama3.2": 131_072,
  "llama3.3": 131_072,
  llama4: 1_048_576,
  codellama: 16_384,
  mistral: 32_768,
  "mistral-nemo": 128_000,
  "mistral-small": 32_768,
  "mistral-large": 128_000,
  mixtral: 32_768,
  "mixtral:8x22b": 65_536,
  qwen: 8_192,
  qwen2: 32_768,
  "qwen2.5": 32_768,
  "qwen2.5-coder": 32_768,
  qwen3: 40_960,
  qwq: 40_960,
  gemma: 8_192,
  gemma2: 8_192,
  gemma3: 131_072,
  "gemma3:1b": 32_768,
  deepseek: 16_384,
  "deepseek-r1": 131_072,
  "deepseek-v3": 131_072,
  "deepseek-chat": 65_536,
  "deepseek-coder-v2": 163_840,
  phi: 2_048,
  phi3: 4_096,
  "phi3.5": 131_072,
  phi4: 16_384,
  "phi4-mini": 131_072,
  "command-r": 131_072,
  "granite3": 131_072,
};

// Sorted once, longest first, so the first match is the most specific one.
const PREFIXES = Object.keys(CONTEXT_WINDOWS).sort((a, b) => b.length - a.length);

/** The full context window of `model` ("provider/name" or a bare name), or DEFAULT_CONTEXT_WINDOW. */
export function contextWindowOf(model: string): number {
  const name = modelName(model).toLowerCase();
  const prefix = PREFIXES.find((candidate) => name.startsWith(candidate));
  return prefix === undefined ? DEFAULT_CONTEXT_WINDOW : (CONTEXT_WINDOWS[prefix] ?? DEFAULT_CONTEXT_WINDOW);
}

/** The usable context size: CONTEXT_WINDOW_USAGE_RATIO of the full window, as CrewAI computes it. */
export function usableContextWindow(windowTokens: number): number {
  return Math.floor(windowTokens * CONTEXT_WINDOW_USAGE_RATIO);
}

// Strips a provider prefix ("openai/gpt-4o") and an organisation path ("meta-llama/llama3.1").
function modelName(model: string): string {
  const slash = model.lastIndexOf("/");
  return slash === -1 ? model : model.slice(slash + 1);
}
