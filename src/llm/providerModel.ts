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
  apiKeyEnvVar: string | undefined;
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

/**
 * Resolves address and key from options, then env (OPENAI_API_KEY / OPENAI_BASE_URL,
 * ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, OLLAMA_HOST, OPENAI_COMPATIBLE_API_KEY). Read at call
 * time, so an agent can be built before the env is set.
 */
export function resolveConnection(id: ModelId, options: { baseURL?: string | undefined; apiKey?: string | undefined }): ProviderConnection {
  const env = process.env;
  const envKey = (name: string) => (env[name] === "" ? undefined : env[name]);
  switch (id.provider) {
    case "openai":
      return {
        baseURL: options.baseURL ?? envKey("OPENAI_BASE_URL"),
        apiKey: options.apiKey ?? envKey("OPENAI_API_KEY"),
        apiKeyEnvVar: API_KEY_ENV.openai,
        apiKeyRequired: true,
      };
    case "anthropic":
      return {
        baseURL: options.baseURL ?? envKey("ANTHROPIC_BASE_URL"),
        apiKey: options.apiKey ?? envKey("ANTHROPIC_API_KEY"),
        apiKeyEnvVar: API_KEY_ENV.anthropic,
        apiKeyRequired: true,
      };
    case "ollama":
      return {
        baseURL: ollamaBaseURL(options.baseURL ?? envKey("OLLAMA_HOST") ?? DEFAULT_OLLAMA_HOST),
        apiKey: options.apiKey ?? envKey("OLLAMA_API_KEY"),
        apiKeyEnvVar: undefined,
        apiKeyRequired: false,
      };
    case "openai-compatible":
      return {
        baseURL: options.baseURL,
        apiKey: options.apiKey ?? envKey("OPENAI_COMPATIBLE_API_KEY"),
        apiKeyEnvVar: API_KEY_ENV["openai-compatible"],
        apiKeyRequired: false,
      };
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
        baseURL: connection.baseURL ?? DEFAULT_OLLAMA_HOST,
        // Without it, streamed answers report no token usage.
        includeUsage: true,
      }).chatModel(id.name);
  }
}
