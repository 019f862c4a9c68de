import { createServer } from "node:net";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { LLM, LLMConnectionError, LLMOptionsError, parseModelId, resolveLLM } from "../../src/llm/index.js";
import { tool } from "../../src/tools/index.js";
import { mockServerPerTest } from "./providerSetups.js";

const startServer = mockServerPerTest();

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("model strings", () => {
  it("says which provider crewts does not know, in a sentence", () => {
    expect(() => parseModelId("foo/bar")).toThrow('model "foo/bar" has provider "foo" that crewts does not know.');
    expect(() => parseModelId("llama")).toThrow('model "llama" has no provider.');
  });

  it("names the environment variable a bad default model came from", () => {
    vi.stubEnv("CREWTS_MODEL", "");
    vi.stubEnv("MODEL", "foo/bar");
    let error: unknown;
    try {
      resolveLLM();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LLMOptionsError);
    expect((error as LLMOptionsError).message).toMatch(/^The environment variable MODEL is invalid: model "foo\/bar" has provider "foo" that crewts does not know\./);
    expect((error as LLMOptionsError).message).toContain("Fix MODEL (in the shell or .env) or unset it.");
    expect((error as LLMOptionsError).environmentVariable).toBe("MODEL");
    vi.stubEnv("CREWTS_MODEL", "nope/x");
    expect(() => resolveLLM()).toThrow(/^The environment variable CREWTS_MODEL is invalid/);
  });
});

describe("connection errors", () => {
  it("suggest the setting of the provider that failed", async () => {
    const port = await closedPort();
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const cases: [string, RegExp, RegExp][] = [
      ["openai/gpt-4o-mini", /OPENAI_BASE_URL/, /OLLAMA_HOST|ANTHROPIC_BASE_URL/],
      ["anthropic/claude-3-5-haiku-latest", /ANTHROPIC_BASE_URL/, /OLLAMA_HOST|OPENAI_BASE_URL/],
      ["ollama/llama3.1", /OLLAMA_HOST/, /OPENAI_BASE_URL|ANTHROPIC_BASE_URL/],
      ["openai-compatible/my-model", /the baseURL option/, /OLLAMA_HOST|OPENAI_BASE_URL|ANTHROPIC_BASE_URL/],
    ];
    for (const [model, named, notNamed] of cases) {
      const llm = new LLM({ model, baseURL, apiKey: "sk-test", maxRetries: 0 });
      const error = await llm.call([{ role: "user", content: "hi" }]).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, model).toBeInstanceOf(LLMConnectionError);
      expect((error as Error).message, model).toMatch(named);
      expect((error as Error).message, model).not.toMatch(notNamed);
    }
  });
});

describe("openai-compatible models", () => {
  it("call tools natively: the tools reach the server and the agent runs the one it picks", async () => {
    const server = await startServer({
      responses: [{ toolCalls: [{ name: "multiplier", arguments: { a: 6, b: 7 } }] }, "The answer is 42."],
    });
    const multiplier = tool({
      name: "multiplier",
      description: "Multiplies two numbers",
      schema: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a * b,
    });
    const llm = new LLM({ model: "openai-compatible/local", baseURL: server.url });
    expect(llm.supportsFunctionCalling()).toBe(true);
    const agent = new Agent({ role: "Calculator", goal: "Compute", backstory: "Exact.", llm, tools: [multiplier] });
    expect((await agent.kickoff("6 x 7?")).raw).toBe("The answer is 42.");
    const first = server.requests[0]!.body as { tools?: { function: { name: string } }[] };
    expect(first.tools?.map((t) => t.function.name)).toEqual(["multiplier"]);
    const second = JSON.stringify(server.requests[1]!.body);
    expect(second).toContain("42");
  });
});

describe("Agent options", () => {
  it("suggests the option a misspelled one was meant to be", () => {
    expect(() => new Agent({ role: "r", goal: "g", backstory: "b", maxIterr: 3 } as never)).toThrow('unknown option "maxIterr": did you mean "maxIter"?');
    expect(() => new Agent({ role: "r", goal: "g", backstory: "b", zzz: 1 } as never)).toThrow(/unknown option "zzz": check the spelling; Agent accepts role, goal, backstory/);
  });
});
