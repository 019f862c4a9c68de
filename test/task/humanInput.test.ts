import { afterEach, describe, expect, it, vi } from "vitest";
import { HumanInputError, Task, setHumanInputProvider } from "../../src/task/index.js";
import { fakeAgent, final, userText } from "./helpers.js";

afterEach(() => setHumanInputProvider(undefined));

describe("humanInput", () => {
  it("accepts the answer on empty feedback", async () => {
    const ask = vi.fn(async (_prompt: string) => "  ");
    setHumanInputProvider(ask);
    const { agent, llm } = fakeAgent([final("draft")]);
    const output = await new Task({ description: "Write", expectedOutput: "x", agent, humanInput: true }).executeSync();
    expect(output.raw).toBe("draft");
    expect(ask).toHaveBeenCalledOnce();
    expect(ask.mock.calls[0]![0]).toContain("draft");
    expect(llm.calls).toHaveLength(1);
  });

  it("re-runs the agent with the feedback until it is accepted", async () => {
    const answers = ["Make it shorter", ""];
    setHumanInputProvider(async () => answers.shift() ?? "");
    const { agent, llm } = fakeAgent([final("a long long draft"), final("short")]);
    const output = await new Task({ description: "Write", expectedOutput: "x", agent, humanInput: true }).executeSync({ context: "ctx" });
    expect(output.raw).toBe("short");
    const retry = userText(llm, 1);
    expect(retry).toContain("Make it shorter");
    expect(retry).toContain("a long long draft");
    expect(retry).toContain("ctx");
  });

  it("stops asking after three rounds of feedback", async () => {
    const ask = vi.fn(async (_prompt: string) => "more");
    setHumanInputProvider(ask);
    const { agent, llm } = fakeAgent([final("1"), final("2"), final("3"), final("4")]);
    const output = await new Task({ description: "Write", expectedOutput: "x", agent, humanInput: true }).executeSync();
    expect(output.raw).toBe("4");
    expect(ask).toHaveBeenCalledTimes(3);
    expect(llm.calls).toHaveLength(4);
  });

  it("fails clearly without a terminal or provider", async () => {
    const isTTY = process.stdin.isTTY;
    process.stdin.isTTY = false;
    try {
      const { agent } = fakeAgent([final("draft")]);
      const error = await new Task({ description: "Write", expectedOutput: "x", agent, humanInput: true }).executeSync().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HumanInputError);
      expect((error as Error).message).toMatch(/setHumanInputProvider/);
    } finally {
      process.stdin.isTTY = isTTY;
    }
  });
});
