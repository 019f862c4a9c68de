import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ModelId, Provider } from "./modelId.js";

/** Where and how to reach one provider. */
export interface ProviderConnection {
  /** Server address, or undefined for the provider's default. */
  baseURL: string | undefined;
  /** Key to send, or undefined when the provider needs none (ollama, many compatible servers). */
  apiKey: string | undefined;
  /** Env var a missing or rejected key should be set in. */
  apiKeyEnvVar: string;
  /** Whether a call without a key cannot succeed (then it fails before any request). */
  apiKeyRequired: boolean;
}

/** Env var holding each provider's API key. */
export const API_KEY_ENV: Record<Provider, string> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  ollama: "OLLAMA_API_KEY",
  "openai-compatible": "OPENAI_COMPATIBLE_API_KEY",
};

const DEFAULT_OLLAMA_HOST = "http://localhost:11434";

// Env vars naming the server of the hosted providers, used when no baseURL is given.
const BASE_URL_ENV = { openai: "OPENAI_BASE_URL", anthropic: "ANTHROPIC_BASE_URL" } as const;

/**
 * Resolves address and key from options, then env (OPENAI_API_KEY / OPENAI_BASE_URL,
 * ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, OLLAMA_HOST / OLLAMA_API_KEY, OPENAI_COMPATIBLE_API_KEY).
 * Read at call time, so an agent can be built before the env is set.
 */
export function resolveConnection(id: ModelId, options: { baseURL?: string | undefined; apiKey?: string | undefined }): ProviderConnection {
  const env = (name: string) => (process.env[name] === "" ? undefined : process.env[name]);
  const apiKeyEnvVar = API_KEY_ENV[id.provider];
  const apiKey = options.apiKey ?? env(apiKeyEnvVar);
  switch (id.provider) {
    case "openai":
    case "anthropic":
      return { baseURL: options.baseURL ?? env(BASE_URL_ENV[id.provider]), apiKey, apiKeyEnvVar, apiKeyRequired: true };
    case "ollama":
      return { baseURL: ollamaBaseURL(options.baseURL ?? env("OLLAMA_HOST") ?? DEFAULT_OLLAMA_HOST), apiKey, apiKeyEnvVar, apiKeyRequired: false };
    case "openai-compatible":
      // Local servers usually need no key; one that does answers 401, which names the env var.
      return { baseURL: options.baseURL, apiKey, apiKeyEnvVar, apiKeyRequired: false };
  }
}

/**
 * Ollama's OpenAI-compatible endpoint under a host written as Ollama reads OLLAMA_HOST: without a
 * scheme ("localhost", "10.0.0.5:11434") the port defaults to 11434; with one, to the scheme's.
 * A trailing "/v1" is accepted too.
 */
export function ollamaBaseURL(host: string): string {
  let url = host.trim().replace(/\/+$/, "");
  if (!/^https?:\/\//i.test(url)) {
    const [hostPort = "", ...path] = url.split("/");
    const withPort = /:\d+$/.test(hostPort) ? hostPort : `${hostPort}:11434`;
    url = `http://${[withPort, ...path].join("/")}`;
  }
  return url.endsWith("/v1") ? url : `${url}/v1`;
}

/** Builds the AI SDK model for `id` (OpenAI through chat completions, not the Responses API). */
export function createProviderModel(id: ModelId, connection: ProviderConnection, headers: Record<string, string> | undefined): LanguageModel {
  const common = {
    ...(connection.baseURL !== undefined ? { baseURL: connection.baseURL } : {}),
    ...(connection.apiKey !== undefined ? { apiKey: connection.apiKey } : {}),
    ...(headers !== undefined ? { headers } : {}),
  };
  switch (id.provider) {
    case "openai":
      return createOpenAI(common).chat(id.name);
    case "anthropic":
      return createAnthropic(common).messages(id.name);
    case "ollama":
    case "openai-compatible":
      return createOpenAICompatible({
        ...common,
        name: id.provider,
        // Always set: the LLM constructor requires it for openai-compatible, and ollama has a default.
        baseURL: connection.baseURL ?? ollamaBaseURL(DEFAULT_OLLAMA_HOST),
        // Without it, streamed answers report no token usage.
        includeUsage: true,
      }).chatModel(id.name);
  }
}
