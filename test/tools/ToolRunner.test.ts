import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { eventBus } from "../../src/events/index.js";
import type { CrewtsEvent } from "../../src/events/index.js";
import { InMemoryToolCache, ToolError, ToolRunner, tool } from "../../src/tools/index.js";
import type { BaseTool, ToolCache } from "../../src/tools/index.js";

const numbers = z.object({ first_number: z.number(), second_number: z.number() });

function multiplier(extra: Partial<Parameters<typeof tool<typeof numbers>>[0]> = {}) {
  const execute = vi.fn(({ first_number, second_number }: z.infer<typeof numbers>) => first_number * second_number);
  const t = tool({ name: "multiplier", description: "Multiplies two numbers", schema: numbers, execute, ...extra });
  return { tool: t, execute };
}

function failing(failures: number, error: unknown = new Error("service unavailable")) {
  let calls = 0;
  const execute = vi.fn(() => {
    calls += 1;
    if (calls <= failures) throw error;
    return { status: "ok", calls };
  });
  const t = tool({ name: "Flaky Service", description: "Calls a flaky service", schema: z.object({ id: z.string() }), execute });
  return { tool: t, execute };
}

describe("ToolRunner", () => {
  const offs: Array<() => void> = [];
  afterEach(() => {
    for (const off of offs.splice(0)) off();
  });

  it("runs a tool and returns its output as a string", async () => {
    const { tool: t, execute } = multiplier();
    const runner = new ToolRunner([t]);
    const result = await runner.run({ name: "multiplier", arguments: { first_number: 2, second_number: 3 } });
    expect(result).toEqual({ output: "6", ok: true, resultAsAnswer: false, fromCache: false, toolName: "multiplier" });
    expect(execute).toHaveBeenCalledWith({ first_number: 2, second_number: 3 });
    expect(t.currentUsageCount).toBe(1);
  });

  it("turns results into text: strings as is, objects as JSON, undefined as empty", async () => {
    const values: unknown[] = ["plain", { a: [1, 2] }, undefined, null, 10n];
    const t = tool({ name: "echo", description: "Echoes", schema: z.object({ i: z.number() }), execute: ({ i }) => values[i] });
    const runner = new ToolRunner([t]);
    const outputs: string[] = [];
    for (let i = 0; i < values.length; i++) outputs.push((await runner.run({ name: "echo", arguments: { i } })).output);
    expect(outputs).toEqual(["plain", '{"a":[1,2]}', "", "null", "10"]);
  });

  it("answers bad arguments with an observation naming the problem, without running the tool", async () => {
    const { tool: t, execute } = multiplier();
    const runner = new ToolRunner([t]);
    const result = await runner.run({ name: "multiplier", arguments: { first_number: "2" } });
    expect(result.ok).toBe(false);
    expect(result.toolName).toBe("multiplier");
    expect(result.output).toContain('- first_number: expected number, got a string ("2")');
    expect(result.output).toContain("- second_number: missing, expected number");
    expect(execute).not.toHaveBeenCalled();
    expect(t.currentUsageCount).toBe(0);
  });

  it("accepts JSON text arguments and repairs malformed ones", async () => {
    const { tool: t } = multiplier();
    const runner = new ToolRunner([t]);
    expect((await runner.run({ name: "multiplier", arguments: '{"first_number": 2, "second_number": 5}' })).output).toBe("10");
    expect((await runner.run({ name: "multiplier", arguments: "{'first_number': 3, 'second_number': 5,}" })).output).toBe("15");
    expect((await runner.run({ name: "multiplier", arguments: '{"first_number": 4, "second_number": 5' })).output).toBe("20");
    const bad = await runner.run({ name: "multiplier", arguments: "just some words" });
    expect(bad.ok).toBe(false);
    expect(bad.output).toContain("must be a JSON object");
  });

  it("says an unknown tool does not exist and lists the available names", async () => {
    const runner = new ToolRunner([multiplier().tool, failing(0).tool]);
    const result = await runner.run({ name: "divider", arguments: {} });
    expect(result).toMatchObject({ ok: false, fromCache: false, resultAsAnswer: false });
    expect(result.toolName).toBeUndefined();
    expect(result.output).toContain('"divider" does not exist');
    expect(result.output).toContain("multiplier, flaky_service");
    const unnamed = await runner.run({ name: "  ", arguments: {} });
    expect(unnamed.output).toContain("You did not name a tool");
    expect(unnamed.output).toContain("multiplier, flaky_service");
  });

  it("finds tools by sanitized name, original name ignoring case, or a close misspelling", async () => {
    const { tool: flaky } = failing(0);
    const { tool: mult } = multiplier();
    const runner = new ToolRunner([flaky, mult]);
    const args = { first_number: 1, second_number: 1 };
    expect((await runner.run({ name: "Multiplier", arguments: args })).toolName).toBe("multiplier");
    expect((await runner.run({ name: "FLAKY SERVICE", arguments: { id: "a" } })).toolName).toBe("flaky_service");
    expect((await runner.run({ name: "`multiplier`", arguments: { first_number: 2, second_number: 1 } })).ok).toBe(true);
    const misspelled = await runner.run({ name: "multiplyer", arguments: { first_number: 3, second_number: 1 } });
    expect(misspelled).toMatchObject({ ok: true, toolName: "multiplier", output: "3" });
    // difflib ratios against "multiplier": "multipliers" 0.95 and "multipler" 0.95 pass the 0.85 bar, "multiply" 0.78 does not.
    expect((await runner.run({ name: "multipliers", arguments: { first_number: 4, second_number: 1 } })).ok).toBe(true);
    expect((await runner.run({ name: "multipler", arguments: { first_number: 5, second_number: 1 } })).ok).toBe(true);
    expect((await runner.run({ name: "multiply", arguments: args })).output).toContain("does not exist");
  });

  it("does not run the same call twice in a row, and runs it again after a different call", async () => {
    const { tool: t, execute } = multiplier();
    const runner = new ToolRunner([t]);
    const args = { first_number: 2, second_number: 3 };
    expect((await runner.run({ name: "multiplier", arguments: args })).ok).toBe(true);
    const repeated = await runner.run({ name: "multiplier", arguments: { second_number: 3, first_number: 2 } });
    expect(repeated).toMatchObject({ ok: false, fromCache: false, toolName: "multiplier" });
    expect(repeated.output).toContain("already used this tool with exactly this input");
    expect(repeated.output).toContain("final answer");
    expect(execute).toHaveBeenCalledTimes(1);
    await runner.run({ name: "multiplier", arguments: { first_number: 1, second_number: 1 } });
    expect((await runner.run({ name: "multiplier", arguments: args })).ok).toBe(true);
    expect(execute).toHaveBeenCalledTimes(3);
    expect(t.currentUsageCount).toBe(3);
  });

  it("stops a tool at its maxUsageCount without running it", async () => {
    const { tool: t, execute } = multiplier({ maxUsageCount: 2 });
    const runner = new ToolRunner([t]);
    await runner.run({ name: "multiplier", arguments: { first_number: 1, second_number: 1 } });
    await runner.run({ name: "multiplier", arguments: { first_number: 2, second_number: 1 } });
    const limited = await runner.run({ name: "multiplier", arguments: { first_number: 3, second_number: 1 } });
    expect(limited.ok).toBe(false);
    expect(limited.output).toContain('"multiplier" has reached its usage limit of 2 uses');
    expect(execute).toHaveBeenCalledTimes(2);
    t.resetUsage();
    expect((await runner.run({ name: "multiplier", arguments: { first_number: 3, second_number: 1 } })).ok).toBe(true);
  });

  it("serves repeated arguments from the cache when one is given", async () => {
    const { tool: t, execute } = multiplier();
    const cache = new InMemoryToolCache();
    const runner = new ToolRunner([t], { cache });
    await runner.run({ name: "multiplier", arguments: { first_number: 2, second_number: 3 } });
    await runner.run({ name: "multiplier", arguments: { first_number: 9, second_number: 9 } });
    // A second runner (another agent execution) sharing the cache.
    const other = new ToolRunner([t], { cache });
    const hit = await other.run({ name: "multiplier", arguments: '{"second_number": 3, "first_number": 2}' });
    expect(hit).toEqual({ output: "6", ok: true, resultAsAnswer: false, fromCache: true, toolName: "multiplier" });
    expect(execute).toHaveBeenCalledTimes(2);
    expect(t.currentUsageCount).toBe(2);
  });

  it("does not cache a result when cacheFunction returns false", async () => {
    const cacheFunction = vi.fn((_args: z.infer<typeof numbers>, result: unknown) => result !== 6);
    const { tool: t, execute } = multiplier({ cacheFunction });
    const cache = new InMemoryToolCache();
    const runner = new ToolRunner([t], { cache });
    await runner.run({ name: "multiplier", arguments: { first_number: 2, second_number: 3 } });
    await runner.run({ name: "multiplier", arguments: { first_number: 1, second_number: 1 } });
    expect(cacheFunction).toHaveBeenNthCalledWith(1, { first_number: 2, second_number: 3 }, 6);
    expect(cache.size).toBe(1);
    const again = await runner.run({ name: "multiplier", arguments: { first_number: 2, second_number: 3 } });
    expect(again.fromCache).toBe(false);
    expect(execute).toHaveBeenCalledTimes(3);
  });

  it("retries a throwing tool, then answers with an observation carrying the error", async () => {
    const { tool: t, execute } = failing(Infinity);
    const runner = new ToolRunner([t]);
    const result = await runner.run({ name: "flaky_service", arguments: { id: "a" } });
    expect(execute).toHaveBeenCalledTimes(3);
    expect(result).toMatchObject({ ok: false, resultAsAnswer: false, fromCache: false, toolName: "flaky_service" });
    expect(result.output).toContain('The tool "flaky_service" failed with this error: service unavailable');
    expect(result.output).toContain('"id":{"type":"string"}');
    expect(result.output).toContain("call it again with different arguments");
    expect(t.currentUsageCount).toBe(1);

    const once = failing(Infinity, "plain string thrown");
    const single = new ToolRunner([once.tool], { maxAttempts: 1 });
    expect((await single.run({ name: "flaky_service", arguments: { id: "a" } })).output).toContain("plain string thrown");
    expect(once.execute).toHaveBeenCalledTimes(1);
  });

  it("removes API keys from a tool's error before the model and the events see it", async () => {
    const events: CrewtsEvent<"tool_usage_error">[] = [];
    offs.push(eventBus.on("tool_usage_error", (e) => void events.push(e)));
    const { tool: t } = failing(Infinity, new Error("GET https://api.example.com/v1?api_key=abcdef1234567890 failed with 403"));
    const result = await new ToolRunner([t], { maxAttempts: 1 }).run({ name: "flaky_service", arguments: { id: "a" } });
    expect(result.output).toContain("api_key=[redacted] failed with 403");
    expect(JSON.stringify(events)).not.toContain("abcdef1234567890");
    expect(events).toHaveLength(1);
  });

  it("returns the result of a flaky tool that succeeds on its second attempt", async () => {
    const { tool: t, execute } = failing(1);
    const runner = new ToolRunner([t]);
    const result = await runner.run({ name: "Flaky Service", arguments: { id: "a" } });
    expect(result).toMatchObject({ ok: true, output: '{"status":"ok","calls":2}' });
    expect(execute).toHaveBeenCalledTimes(2);
  });

  it("flags the result of a resultAsAnswer tool, also from the cache, but not its failures", async () => {
    const { tool: t } = multiplier({ resultAsAnswer: true });
    const cache = new InMemoryToolCache();
    expect(await new ToolRunner([t], { cache }).run({ name: "multiplier", arguments: { first_number: 2, second_number: 2 } })).toMatchObject({
      ok: true,
      resultAsAnswer: true,
    });
    expect(await new ToolRunner([t], { cache }).run({ name: "multiplier", arguments: { first_number: 2, second_number: 2 } })).toMatchObject({
      fromCache: true,
      resultAsAnswer: true,
    });
    expect((await new ToolRunner([t]).run({ name: "multiplier", arguments: {} })).resultAsAnswer).toBe(false);
  });

  it("emits started, finished and error events with the source ids", async () => {
    const events: CrewtsEvent[] = [];
    offs.push(eventBus.on("tool_usage_started", (e) => void events.push(e)));
    offs.push(eventBus.on("tool_usage_finished", (e) => void events.push(e)));
    offs.push(eventBus.on("tool_usage_error", (e) => void events.push(e)));
    const source = { agentId: "a1", agentRole: "Mathematician", taskId: "t1" };
    const cache = new InMemoryToolCache();
    const runner = new ToolRunner([multiplier().tool, failing(1).tool], { source, cache });

    await runner.run({ name: "multiplier", arguments: { first_number: 2, second_number: 3 } });
    expect(events.map((e) => e.type)).toEqual(["tool_usage_started", "tool_usage_finished"]);
    expect(events[0]).toMatchObject({ ...source, toolName: "multiplier", toolArgs: { first_number: 2, second_number: 3 } });
    const finished = events[1] as CrewtsEvent<"tool_usage_finished">;
    expect(finished).toMatchObject({ ...source, toolName: "multiplier", output: "6", fromCache: false });
    expect(finished.durationMs).toBeGreaterThanOrEqual(0);

    events.length = 0;
    await new ToolRunner([multiplier().tool], { source, cache }).run({
      name: "multiplier",
      arguments: { first_number: 2, second_number: 3 },
    });
    expect(events.map((e) => e.type)).toEqual(["tool_usage_started", "tool_usage_finished"]);
    expect(events[1]).toMatchObject({ fromCache: true, output: "6" });

    events.length = 0;
    await runner.run({ name: "flaky_service", arguments: { id: "x" } });
    expect(events.map((e) => e.type)).toEqual(["tool_usage_started", "tool_usage_error", "tool_usage_finished"]);
    expect(events[1]).toMatchObject({ ...source, toolName: "flaky_service", error: "service unavailable" });

    events.length = 0;
    await runner.run({ name: "nope", arguments: "{}" });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "tool_usage_error", toolName: "nope", toolArgs: "{}" });
    expect((events[0] as CrewtsEvent<"tool_usage_error">).error).toContain("does not exist");
  });

  it("builds no event payloads when nobody listens", async () => {
    const spy = vi.spyOn(eventBus, "emit");
    await new ToolRunner([multiplier().tool]).run({ name: "multiplier", arguments: { first_number: 1, second_number: 2 } });
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it("keeps running when a custom cache throws", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const broken: ToolCache = {
      get: () => {
        throw new Error("db down");
      },
      set: () => {
        throw new Error("db down");
      },
      clear: () => undefined,
    };
    const result = await new ToolRunner([multiplier().tool], { cache: broken }).run({
      name: "multiplier",
      arguments: { first_number: 2, second_number: 2 },
    });
    expect(result).toMatchObject({ ok: true, output: "4", fromCache: false });
    expect(warn).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });

  it("offers tool specs, descriptions and names for prompts", () => {
    const runner = new ToolRunner([multiplier().tool, failing(0).tool]);
    expect(runner.toolNames()).toBe("multiplier, flaky_service");
    expect(runner.toolSpecs().map((s) => s.name)).toEqual(["multiplier", "flaky_service"]);
    expect(runner.toolSpecs()[1]?.description).toBe("Calls a flaky service");
    const text = runner.describeTools();
    expect(text).toContain("Tool Name: multiplier\n");
    expect(text).toContain("Tool Description: Multiplies two numbers\nTool Name: flaky_service\n");
    expect(runner.tools).toHaveLength(2);
  });

  it("validates its tools and options at construction", () => {
    const { tool: t } = multiplier();
    expect(new ToolRunner([t, t]).tools).toHaveLength(1);
    const clash = tool({ name: "Multiplier", description: "Another", schema: numbers, execute: () => 0 });
    expect(() => new ToolRunner([t, clash])).toThrow(/Two different tools are both called "multiplier"/);
    expect(() => new ToolRunner([{ name: "fake" } as unknown as BaseTool])).toThrow(/tools\[0\] is not a tool/);
    expect(() => new ToolRunner([t], { maxAttempts: 0 })).toThrow(ToolError);
    expect(() => new ToolRunner([t], { maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => new ToolRunner([t], { cache: {} as ToolCache })).toThrow(/cache: must implement ToolCache/);
    expect(() => new ToolRunner([t], { retries: 2 } as never)).toThrow(/Invalid ToolRunner options/);
  });

  it("runs a tool with no arguments from empty text", async () => {
    const t = tool({ name: "now", description: "Current time", schema: z.object({}), execute: () => "noon" });
    expect((await new ToolRunner([t]).run({ name: "now", arguments: "" })).output).toBe("noon");
  });
});
