import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Crew,
  Flow,
  HookBlockedError,
  afterKickoff,
  afterLLMCall,
  afterStep,
  afterToolCall,
  beforeKickoff,
  beforeStep,
  beforeLLMCall,
  beforeToolCall,
  setHumanInputProvider,
  listen,
  start,
  tool,
  type HumanInputContext,
} from "../../src/index.js";
import type { FakeLLM } from "../../src/testing/index.js";
import { fakeAgent, final, task } from "../crew/helpers.js";

const unsubscribes: (() => void)[] = [];
const register = (off: () => void) => unsubscribes.push(off);
afterEach(() => {
  for (const off of unsubscribes.splice(0)) off();
  setHumanInputProvider(undefined);
});

/** A crew of one agent with one tool `echo`, whose model calls it with `args` then answers `answer`. */
function toolCrew(role = "Clerk", args: Record<string, unknown> = { text: "hi" }, answer = "done") {
  const ran: Record<string, unknown>[] = [];
  const echo = tool({
    name: "echo",
    description: "Echoes text",
    schema: z.object({ text: z.string() }),
    execute: (input) => {
      ran.push(input);
      return `echo: ${input.text}`;
    },
  });
  const { agent, llm } = fakeAgent(role, [{ toolCalls: [{ name: "echo", arguments: args }] }, final(answer)], { functionCalling: true }, { tools: [echo] });
  return { crew: new Crew({ agents: [agent], tasks: [task("Use echo", agent)] }), llm, ran };
}

/** What the model read after its tool call: the tool message of the second call. */
const observation = (llm: FakeLLM): string => llm.calls[1]!.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";

describe("LLM call hooks", () => {
  it("lets a before hook add to the messages, only for the agents it names, until unsubscribed", async () => {
    const seen: string[] = [];
    const off = beforeLLMCall(
      (ctx) => {
        seen.push(ctx.agentRole);
        ctx.messages.push({ role: "user", content: "Answer in French." });
      },
      { agents: ["Writer"] },
    );
    register(off);
    const writer = fakeAgent("Writer", [final("bonjour"), final("hello")]);
    const other = fakeAgent("Editor", [final("ok")]);
    await new Crew({ agents: [writer.agent, other.agent], tasks: [task("Greet", writer.agent), task("Check", other.agent)] }).kickoff();
    expect(seen).toEqual(["Writer"]);
    expect(writer.llm.calls[0]!.messages.at(-1)).toEqual({ role: "user", content: "Answer in French." });
    expect(other.llm.calls[0]!.messages.some((m) => m.content === "Answer in French.")).toBe(false);

    off();
    await new Crew({ agents: [writer.agent], tasks: [task("Greet", writer.agent)] }).kickoff();
    expect(seen).toEqual(["Writer"]);
    expect(writer.llm.calls[1]!.messages.some((m) => m.content === "Answer in French.")).toBe(false);
  });

  it("fails the agent step with HookBlockedError when a before hook returns false, without calling the model", async () => {
    register(beforeLLMCall(() => false));
    const { agent, llm } = fakeAgent("Writer", [final("never")]);
    await expect(new Crew({ agents: [agent], tasks: [task("Write", agent)] }).kickoff()).rejects.toBeInstanceOf(HookBlockedError);
    expect(llm.callCount).toBe(0);
  });

  it("replaces the response with the string an after hook returns", async () => {
    register(afterLLMCall((ctx) => ctx.response.replace("secret", "[hidden]")));
    const { agent } = fakeAgent("Writer", [final("the secret plan")]);
    const output = await new Crew({ agents: [agent], tasks: [task("Write", agent)] }).kickoff();
    expect(output.raw).toBe("the [hidden] plan");
  });

  it("runs a crew's own hooks for that crew only, after the global ones", async () => {
    const order: string[] = [];
    register(beforeLLMCall(() => void order.push("global")));
    const { agent } = fakeAgent("Writer", [final("a"), final("b")]);
    const hooked = new Crew({ agents: [agent], tasks: [task("Write", agent)], hooks: { beforeLLMCall: [() => void order.push("crew")], afterLLMCall: [() => "from crew hook"] } });
    expect((await hooked.kickoff()).raw).toBe("from crew hook");
    expect((await new Crew({ agents: [agent], tasks: [task("Write", agent)] }).kickoff()).raw).toBe("b");
    expect(order).toEqual(["global", "crew", "global"]);
  });
});

describe("tool call hooks", () => {
  it("lets a before hook change the tool input in place", async () => {
    register(beforeToolCall((ctx) => void (ctx.toolInput.text = `${String(ctx.toolInput.text)} (checked)`)));
    const { crew, ran, llm } = toolCrew();
    await crew.kickoff();
    expect(ran).toEqual([{ text: "hi (checked)" }]);
    expect(observation(llm)).toBe("echo: hi (checked)");
  });

  it("blocks a call a before hook refuses: the tool does not run and the model is told", async () => {
    register(beforeToolCall((ctx) => (ctx.toolName === "echo" ? false : undefined)));
    const { crew, ran, llm } = toolCrew();
    const output = await crew.kickoff();
    expect(ran).toEqual([]);
    expect(observation(llm)).toMatch(/"echo" was blocked by a hook/);
    expect(output.raw).toBe("done");
  });

  it("applies tool and agent filters", async () => {
    const calls: string[] = [];
    register(beforeToolCall(() => void calls.push("other tool"), { tools: ["search"] }));
    register(beforeToolCall(() => void calls.push("other agent"), { agents: ["Manager"] }));
    register(beforeToolCall(() => void calls.push("matching"), { tools: ["echo"], agents: ["Clerk"] }));
    await toolCrew().crew.kickoff();
    expect(calls).toEqual(["matching"]);
  });

  it("replaces the result with the string an after hook returns", async () => {
    register(afterToolCall((ctx) => ctx.toolResult.toUpperCase()));
    const { crew, llm } = toolCrew();
    await crew.kickoff();
    expect(observation(llm)).toBe("ECHO: HI");
  });
});

describe("tools that need approval", () => {
  it("asks the human input provider and turns a denial into an observation", async () => {
    const asked: HumanInputContext[] = [];
    setHumanInputProvider({
      requestInput: (context) => {
        asked.push(context);
        return Promise.resolve("no, not now");
      },
    });
    const ran: unknown[] = [];
    const risky = tool({ name: "delete_all", description: "Deletes", schema: z.object({ table: z.string() }), needsApproval: true, execute: (a) => ran.push(a) });
    const { agent, llm } = fakeAgent("Admin", [{ toolCalls: [{ name: "delete_all", arguments: { table: "users" } }] }, final("left alone")], { functionCalling: true }, { tools: [risky] });
    await new Crew({ agents: [agent], tasks: [task("Clean up", agent)] }).kickoff();
    expect(ran).toEqual([]);
    expect(asked).toEqual([expect.objectContaining({ kind: "tool_approval", toolName: "delete_all", toolInput: { table: "users" }, agentRole: "Admin" })]);
    expect(observation(llm)).toMatch(/did not approve running the tool "delete_all".*no, not now/);
  });

  it("runs the tool when approved, and asks only when the rule says so", async () => {
    const asked: string[] = [];
    setHumanInputProvider(async (prompt) => {
      asked.push(prompt);
      return "yes";
    });
    const ran: number[] = [];
    const pay = tool({ name: "pay", description: "Pays", schema: z.object({ amount: z.number() }), needsApproval: ({ amount }) => amount > 100, execute: ({ amount }) => ran.push(amount) });
    const { agent } = fakeAgent(
      "Cashier",
      [{ toolCalls: [{ name: "pay", arguments: { amount: 5 } }] }, { toolCalls: [{ name: "pay", arguments: { amount: 500 } }] }, final("paid")],
      { functionCalling: true },
      { tools: [pay] },
    );
    await new Crew({ agents: [agent], tasks: [task("Pay", agent)] }).kickoff();
    expect(ran).toEqual([5, 500]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('"amount":500');
  });
});

describe("kickoff hooks", () => {
  it("changes a crew's inputs and output, and a flow's", async () => {
    const kinds: string[] = [];
    register(
      beforeKickoff((ctx) => {
        kinds.push(`${ctx.kind}:${ctx.name}`);
        return { ...ctx.inputs, topic: "hooks" };
      }),
    );
    register(afterKickoff((ctx) => (ctx.kind === "flow" ? `${String(ctx.output)}!` : undefined)));
    const { agent, llm } = fakeAgent("Writer", [final("about hooks")]);
    const output = await new Crew({ name: "writers", agents: [agent], tasks: [task("Write about {topic}", agent)] }).kickoff({ topic: "x" });
    expect(llm.calls[0]!.messages.some((m) => m.content.includes("Write about hooks"))).toBe(true);
    expect(output.raw).toBe("about hooks");

    class TopicFlow extends Flow<{ topic: string }> {
      @start()
      say() {
        return this.state.topic;
      }
    }
    expect(await new TopicFlow().kickoff({ topic: "x" })).toBe("hooks!");
    expect(kinds).toEqual(["crew:writers", "flow:TopicFlow"]);
  });
});

describe("step hooks", () => {
  it("rewrite a task's context before it runs and its output before later tasks read it", async () => {
    const kinds: string[] = [];
    register(
      beforeStep((ctx) => {
        kinds.push(`${ctx.kind}:${ctx.stepName}:${ctx.agentRole ?? ""}`);
        return ctx.kind === "task" && ctx.stepName === "second" ? `${String(ctx.payload)}\nNote: figures are estimates.` : undefined;
      }),
    );
    register(
      afterStep(
        (ctx) => {
          const output = ctx.payload as { raw: string };
          output.raw = output.raw.toUpperCase();
        },
        { agents: ["Researcher"] },
      ),
    );
    const researcher = fakeAgent("Researcher", [final("ten facts")]);
    const writer = fakeAgent("Writer", [final("an article")]);
    const output = await new Crew({
      agents: [researcher.agent, writer.agent],
      tasks: [task("Research", researcher.agent, { name: "first" }), task("Write", writer.agent, { name: "second" })],
    }).kickoff();
    expect(kinds).toEqual(["task:first:Researcher", "task:second:Writer"]);
    const writerPrompt = writer.llm.calls[0]!.messages.map((m) => m.content).join("\n");
    expect(writerPrompt).toContain("TEN FACTS");
    expect(writerPrompt).toContain("Note: figures are estimates.");
    expect(output.tasksOutput.map((t) => t.raw)).toEqual(["TEN FACTS", "an article"]);
  });

  it("change a flow method's argument and result", async () => {
    register(beforeStep((ctx) => (ctx.kind === "flow_method" && ctx.stepName === "shout" ? `${String(ctx.payload)}!` : undefined)));
    register(afterStep((ctx) => (ctx.stepName === "shout" ? String(ctx.payload).toUpperCase() : undefined)));
    class LoudFlow extends Flow {
      @start()
      greet() {
        return "hello";
      }
      @listen("greet")
      shout(word: string) {
        return `${word} world`;
      }
    }
    expect(await new LoudFlow().kickoff()).toBe("HELLO! WORLD");
  });
});
