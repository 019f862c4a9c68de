import { vi } from "vitest";
import { eventBus, type CrewtsEvent } from "../../src/events/index.js";
import { LLM, type LLMOptions } from "../../src/llm/index.js";
import type { MockOpenAIServer } from "../../src/testing/index.js";

export { mockServerPerTest } from "../testing/mockServerPerTest.js";

/** A key shaped like a real one, to prove it never leaks. */
export const SECRET_KEY = "sk-test-SECRETKEY0123456789abcdef";

/** How each provider is wired to the mock server, and the path its requests must take. */
export interface ProviderSetup {
  provider: string;
  model: string;
  path: string;
  create(server: MockOpenAIServer, extra?: Partial<LLMOptions>): LLM;
}

const fast = { retry: { baseDelayMs: 5, maxDelayMs: 50 } } satisfies Partial<LLMOptions>;

export const PROVIDER_SETUPS: ProviderSetup[] = [
  {
    provider: "openai",
    model: "gpt-4o-mini",
    path: "/v1/chat/completions",
    create: (server, extra) => new LLM({ model: "openai/gpt-4o-mini", baseURL: server.url, apiKey: SECRET_KEY, ...fast, ...extra }),
  },
  {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    path: "/v1/messages",
    create: (server, extra) => new LLM({ model: "anthropic/claude-sonnet-4-5", baseURL: server.url, apiKey: SECRET_KEY, ...fast, ...extra }),
  },
  {
    provider: "openai-compatible",
    model: "mock-model",
    path: "/v1/chat/completions",
    create: (server, extra) => new LLM({ model: "openai-compatible/mock-model", baseURL: server.url, apiKey: SECRET_KEY, ...fast, ...extra }),
  },
  {
    provider: "ollama",
    model: "llama3.1",
    path: "/v1/chat/completions",
    // Ollama is reached through OLLAMA_HOST (the server's origin, without /v1), as users configure it.
    create: (server, extra) => {
      vi.stubEnv("OLLAMA_HOST", new URL(server.url).origin);
      return new LLM({ model: "ollama/llama3.1", ...fast, ...extra });
    },
  },
];

/** Records every event from now until the bus is cleared. */
export function recordEvents(): CrewtsEvent[] {
  const events: CrewtsEvent[] = [];
  eventBus.onAny((event) => {
    events.push(event);
  });
  return events;
}
