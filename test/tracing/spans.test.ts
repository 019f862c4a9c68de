import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { Crew } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { Flow, listen, start } from "../../src/flow/index.js";
import { humanFeedback } from "../../src/flow/humanFeedback/humanFeedback.js";
import { HumanFeedbackPending } from "../../src/flow/humanFeedback/types.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryTaskOutputStore } from "../../src/storage/index.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { tool } from "../../src/tools/index.js";
import { traceHeaders, withTraceContext, type DisableTracing } from "../../src/tracing/index.js";
import { action, final } from "../crew/helpers.js";
import { parentOf, traceToMemory, tree } from "./helpers.js";

let disable: DisableTracing | undefined;
afterEach(async () => {
  await disable?.();
  disable = undefined;
  eventBus.clear();
});

const SECRET = "sk-tracingsecret1234567890";

function lookupTool(seen: Record<string, string>[] = [], fail = false) {
  return tool({
    name: "lookup",
    description: "Looks a word up",
    schema: z.object({ word: z.string() }),
    execute: ({ word }) => {
      seen.push(traceHeaders());
      if (fail) throw new Error(`lookup backend refused key ${SECRET}`);
      return `${word} means something`;
    },
  });
}

/** A two-task crew; the first task's agent uses the lookup tool once. */
function twoTaskCrew(options: { fail?: boolean; seen?: Record<string, string>[]; llm?: FakeLLM } = {}): Crew {
  const llm =
    options.llm ??
    new FakeLLM((messages) => {
      const text = messages.map((m) => m.content).join("\n");
      if (text.includes("Summarize")) return final("summary");
      // After the tool's observation (or its failure), the answer.
      const last = String(messages[messages.length - 1]?.content);
      return /means something|failed/.test(last) ? final("defined") : action("lookup", { word: "otel" });
    });
  const agent = new Agent({ role: "Researcher", goal: "Define words", backstory: "You define words.", llm, tools: [lookupTool(options.seen, options.fail)], maxRetryLimit: 0 });
  const define = new Task({ description: `Define otel (key ${SECRET})`, expectedOutput: "A definition", agent });
  const summarize = new Task({ description: "Summarize the definition", expectedOutput: "A summary", agent, context: [define] });
  return new Crew({ agents: [agent], tasks: [define, summarize], taskOutputStore: new InMemoryTaskOutputStore() });
}

describe("enableTracing: spans of a crew", () => {
  it("nests crew.kickoff > task > agent > llm.call / tool.call, in one trace", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    await twoTaskCrew().kickoff();
    const spans = t.spans();
    expect(tree(spans)).toEqual([
      "crew.kickoff",
      "  task",
      "    agent",
      "      llm.call",
      "      tool.call",
      "      llm.call",
      "  task",
      "    agent",
      "      llm.call",
    ]);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    for (const span of spans) expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it("puts GenAI semantic convention attributes on llm.call, agent and tool.call spans", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const llm = new FakeLLM([{ text: final("done"), usage: { promptTokens: 11, completionTokens: 7 } }], { model: "openai/gpt-test" });
    const agent = new Agent({ role: "Writer", goal: "Write", backstory: "You write.", llm });
    await new Crew({ agents: [agent], tasks: [new Task({ description: "Write", expectedOutput: "Text", agent })], taskOutputStore: new InMemoryTaskOutputStore() }).kickoff();
    const call = t.spans().find((s) => s.name === "llm.call")!;
    expect(call.attributes).toMatchObject({
      "gen_ai.system": "openai",
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-test",
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.response.finish_reasons": ["stop"],
      "crewts.agent.role": "Writer",
    });
    const agentSpan = t.spans().find((s) => s.name === "agent")!;
    expect(agentSpan.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Writer" });
    const crewSpan = t.spans().find((s) => s.name === "crew.kickoff")!;
    expect(crewSpan.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 11, "gen_ai.usage.output_tokens": 7 });
    expect(typeof crewSpan.attributes["crewts.kickoff.id"]).toBe("string");
  });

  it("keeps prompts, completions and outputs off spans unless captureContent is on, and redacts secrets when it is", async () => {
    const off = await traceToMemory(false);
    disable = off.disable;
    await twoTaskCrew().kickoff();
    const leaked = off.spans().flatMap((s) => [...Object.keys(s.attributes), ...s.events.map((e) => e.name)]).filter((k) => /prompt|completion|\.output$|arguments|inputs/.test(k));
    expect(leaked).toEqual([]);
    expect(JSON.stringify(off.spans().map((s) => s.attributes))).not.toContain("Define otel");
    await disable();

    const on = await traceToMemory(true);
    disable = on.disable;
    await twoTaskCrew().kickoff();
    const call = on.spans().find((s) => s.name === "llm.call")!;
    const prompt = call.events.find((e) => e.name === "gen_ai.content.prompt")!.attributes!["gen_ai.prompt"] as string;
    expect(prompt).toContain("Define otel");
    expect(prompt).toContain("[redacted]");
    expect(prompt).not.toContain(SECRET);
    expect(call.events.find((e) => e.name === "gen_ai.content.completion")!.attributes!["gen_ai.completion"]).toContain("lookup");
    const toolSpan = on.spans().find((s) => s.name === "tool.call")!;
    expect(toolSpan.attributes).toMatchObject({ "gen_ai.tool.name": "lookup", "crewts.tool.arguments": '{"word":"otel"}', "crewts.tool.output": "otel means something" });
  });

  it("records a failing tool on its span as an ERROR with the exception, secrets redacted, and the run goes on", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    await twoTaskCrew({ fail: true }).kickoff();
    const toolSpan = t.spans().find((s) => s.name === "tool.call")!;
    expect(toolSpan.status.code).toBe(SpanStatusCode.ERROR);
    expect(toolSpan.status.message).toContain("lookup backend refused key [redacted]");
    const exception = toolSpan.events.find((e) => e.name === "exception")!;
    expect(exception.attributes!["exception.message"]).toContain("[redacted]");
    expect(JSON.stringify(t.spans().map((s) => [s.status, s.events]))).not.toContain(SECRET);
    expect(parentOf(toolSpan, t.spans())!.name).toBe("agent");
    expect(t.spans().find((s) => s.name === "crew.kickoff")!.status.code).not.toBe(SpanStatusCode.ERROR);
  });

  it("marks a failed LLM call and every span it fails (agent, task, crew) as ERROR", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const llm = new FakeLLM([new Error(`provider said no to ${SECRET}`)]);
    await expect(twoTaskCrew({ llm }).kickoff()).rejects.toThrow();
    const byName = (name: string) => t.spans().find((s) => s.name === name)!;
    for (const name of ["llm.call", "agent", "task", "crew.kickoff"]) {
      expect(byName(name).status.code, name).toBe(SpanStatusCode.ERROR);
      expect(byName(name).status.message, name).not.toContain(SECRET);
    }
    expect(byName("llm.call").events.some((e) => e.name === "exception")).toBe(true);
  });

  it("gives two concurrent kickoffs of one crew their own traces, never linking one run's spans to the other", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const llm = new FakeLLM(
      (messages) => {
        const text = messages.map((m) => m.content).join("\n");
        return final(/Research (\w+)/.exec(text)?.[1] ?? "none");
      },
      { latencyMs: 3 },
    );
    const agent = new Agent({ role: "Researcher", goal: "Research", backstory: "You research.", llm });
    const one = new Task({ description: "Research {topic}", expectedOutput: "Notes", agent });
    const two = new Task({ description: "Research {topic} again", expectedOutput: "Notes", agent, context: [one] });
    const crew = new Crew({ agents: [agent], tasks: [one, two], taskOutputStore: new InMemoryTaskOutputStore() });
    await Promise.all([crew.kickoff({ topic: "alpha" }), crew.kickoff({ topic: "beta" })]);
    const spans = t.spans();
    const roots = spans.filter((s) => s.name === "crew.kickoff");
    expect(roots).toHaveLength(2);
    expect(roots[0]!.spanContext().traceId).not.toBe(roots[1]!.spanContext().traceId);
    for (const root of roots) {
      const traceId = root.spanContext().traceId;
      const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
      expect(tree(inTrace)).toEqual(["crew.kickoff", "  task", "    agent", "      llm.call", "  task", "    agent", "      llm.call"]);
    }
    // The runs share the crew's, tasks' and agent's ids; their kickoff ids tell them apart.
    expect(roots[0]!.attributes["crewts.kickoff.id"]).not.toBe(roots[1]!.attributes["crewts.kickoff.id"]);
    expect(roots[0]!.attributes["crewts.crew.id"]).toBe(roots[1]!.attributes["crewts.crew.id"]);
  });

  it("hands the tool span's W3C context to code running inside the tool (traceHeaders)", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const seen: Record<string, string>[] = [];
    await twoTaskCrew({ seen }).kickoff();
    const toolSpan = t.spans().find((s) => s.name === "tool.call")!.spanContext();
    expect(seen).toEqual([{ traceparent: `00-${toolSpan.traceId}-${toolSpan.spanId}-01` }]);
    expect(traceHeaders()).toEqual({});
  });

  it("stops making spans once disabled", async () => {
    const t = await traceToMemory();
    await t.disable();
    await twoTaskCrew().kickoff();
    expect(t.spans()).toEqual([]);
    expect(eventBus.hasListeners("task_started")).toBe(false);
  });
});

describe("enableTracing: flows and remote parents", () => {
  it("nests a crew kicked off in a flow method under flow.kickoff > flow.method", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const llm = new FakeLLM(() => final("written"));
    class Writing extends Flow {
      @start() plan() {
        return "topic";
      }
      @listen("plan") async write() {
        const agent = new Agent({ role: "Writer", goal: "Write", backstory: "You write.", llm });
        const crew = new Crew({ agents: [agent], tasks: [new Task({ description: "Write", expectedOutput: "Text", agent })], taskOutputStore: new InMemoryTaskOutputStore() });
        return (await crew.kickoff()).raw;
      }
    }
    expect(await new Writing().kickoff()).toBe("written");
    expect(tree(t.spans())).toEqual(["flow.kickoff", "  flow.method", "  flow.method", "    crew.kickoff", "      task", "        agent", "          llm.call"]);
    const methods = t.spans().filter((s) => s.name === "flow.method").map((s) => s.attributes["crewts.flow.method"]);
    expect(methods).toEqual(["plan", "write"]);
  });

  it("marks a flow whose method throws as ERROR on the method and the flow", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    class Broken extends Flow {
      @start() go() {
        throw new Error("method broke");
      }
    }
    await expect(new Broken().kickoff()).rejects.toThrow("method broke");
    for (const name of ["flow.method", "flow.kickoff"]) {
      const span = t.spans().find((s) => s.name === name)!;
      expect(span.status).toMatchObject({ code: SpanStatusCode.ERROR, message: "method broke" });
    }
  });

  it("ends the method and flow spans of a flow paused for human feedback, without an error", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    class Paused extends Flow {
      @start()
      @humanFeedback({ message: "ok?", provider: { requestFeedback: async (context) => Promise.reject(new HumanFeedbackPending({ context })) } })
      go() {
        return "x";
      }
    }
    const previous = process.env.CREWTS_STORAGE_DIR;
    process.env.CREWTS_STORAGE_DIR = await mkdtemp(join(tmpdir(), "crewts-trace-pause-"));
    try {
      expect(await new Paused().kickoff()).toBeInstanceOf(HumanFeedbackPending);
    } finally {
      await rm(process.env.CREWTS_STORAGE_DIR, { recursive: true, force: true });
      if (previous === undefined) delete process.env.CREWTS_STORAGE_DIR;
      else process.env.CREWTS_STORAGE_DIR = previous;
    }
    for (const name of ["flow.method", "flow.kickoff"]) {
      const span = t.spans().find((s) => s.name === name)!;
      expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
      expect(span.attributes["crewts.flow.paused"]).toBe(true);
    }
  });

  it("continues a trace from a W3C traceparent (withTraceContext), for runs started by another process", async () => {
    const t = await traceToMemory();
    disable = t.disable;
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parentId = "00f067aa0ba902b7";
    await withTraceContext({ TraceParent: `00-${traceId}-${parentId}-01` }, () => twoTaskCrew().kickoff());
    const root = t.spans().find((s) => s.name === "crew.kickoff")!;
    expect(root.spanContext().traceId).toBe(traceId);
    expect(root.parentSpanContext).toMatchObject({ traceId, spanId: parentId, isRemote: true });
    expect(new Set(t.spans().map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));
    // A malformed parent is ignored: the run starts its own trace.
    t.exporter.reset();
    await withTraceContext({ traceparent: "00-zz-bad-01" }, () => twoTaskCrew().kickoff());
    expect(t.spans().find((s) => s.name === "crew.kickoff")!.parentSpanContext).toBeUndefined();
  });
});

describe("enableTracing: memory and knowledge", () => {
  it("traces memory retrieval (with one memory.query per memory) and knowledge retrieval under the task, before its agent span", async () => {
    const { StringKnowledgeSource } = await import("../../src/knowledge/index.js");
    const t = await traceToMemory();
    disable = t.disable;
    const llm = new FakeLLM((messages) => (messages.some((m) => String(m.content).includes("You review the work of AI agents")) ? '{"quality":8,"suggestions":[],"entities":[]}' : final("noted")));
    const agent = new Agent({ role: "Clerk", goal: "Answer", backstory: "You answer.", llm, knowledgeSources: [new StringKnowledgeSource({ content: "Returns are accepted within 45 days." })] });
    const first = new Task({ description: "How long are returns accepted?", expectedOutput: "Days", agent });
    const second = new Task({ description: "Repeat how long returns are accepted", expectedOutput: "Days", agent });
    await new Crew({ agents: [agent], tasks: [first, second], memory: true, taskOutputStore: new InMemoryTaskOutputStore() }).kickoff();
    const spans = t.spans();
    const retrievals = spans.filter((s) => s.name === "memory.retrieval");
    expect(retrievals).toHaveLength(2);
    // The agent span starts once the prompt (with memory and knowledge) is built.
    for (const r of retrievals) expect(parentOf(r, spans)!.name).toBe("task");
    const queries = spans.filter((s) => s.name === "memory.query");
    expect(queries.length).toBeGreaterThanOrEqual(2);
    for (const q of queries) expect(parentOf(q, spans)!.name).toBe("memory.retrieval");
    const knowledge = spans.filter((s) => s.name === "knowledge.retrieval");
    expect(knowledge).toHaveLength(2);
    for (const k of knowledge) {
      expect(parentOf(k, spans)!.name).toBe("task");
      expect(k.attributes["crewts.knowledge.collection"]).toBe("Clerk");
    }
  });
});
