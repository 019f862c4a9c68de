import { describe, expect, it } from "vitest";
import { Flow, listen, or, start } from "../../../src/flow/index.js";
import { humanFeedback } from "../../../src/flow/humanFeedback/humanFeedback.js";
import { HumanFeedbackError, type HumanFeedbackProvider, type HumanFeedbackResult, type PendingFeedbackContext } from "../../../src/flow/humanFeedback/types.js";
import { InMemoryFlowPersistence } from "../../../src/flow/persistence/InMemoryFlowPersistence.js";
import { eventBus } from "../../../src/events/index.js";
import { FakeLLM } from "../../../src/testing/FakeLLM.js";

/** A provider answering from a list, recording each context it was asked with. */
function scripted(...answers: string[]): HumanFeedbackProvider & { asked: PendingFeedbackContext[] } {
  const asked: PendingFeedbackContext[] = [];
  return {
    asked,
    requestFeedback: async (context) => {
      asked.push(context);
      const next = answers.shift();
      if (next === undefined) throw new Error("no scripted feedback left");
      return next;
    },
  };
}

describe("@humanFeedback without emit", () => {
  it("hands a HumanFeedbackResult to the method's listeners and records the history", async () => {
    const provider = scripted("needs a title");
    const received: HumanFeedbackResult[] = [];
    class Simple extends Flow {
      @start()
      @humanFeedback({ message: "Review this:", provider, metadata: { ticket: 7 } })
      generate() {
        return "draft text";
      }
      @listen("generate") handle(result: HumanFeedbackResult) {
        received.push(result);
        return `got ${result.feedback}`;
      }
    }
    const flow = new Simple();
    const events: string[] = [];
    const offs = [
      eventBus.on("human_feedback_requested", (e) => void events.push(`requested:${e.methodName}:${String(e.output)}`)),
      eventBus.on("human_feedback_received", (e) => void events.push(`received:${e.feedback}:${String(e.outcome)}`)),
    ];
    try {
      expect(await flow.kickoff()).toBe("got needs a title");
    } finally {
      for (const off of offs) off();
    }
    expect(provider.asked[0]).toMatchObject({ methodName: "generate", methodOutput: "draft text", message: "Review this:", emit: null, flowClass: "Simple", flowId: flow.state.id, metadata: { ticket: 7 } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ output: "draft text", feedback: "needs a title", outcome: null, methodName: "generate", metadata: { ticket: 7 } });
    expect(received[0]!.timestamp).toBeInstanceOf(Date);
    expect(flow.lastHumanFeedback).toBe(received[0]);
    expect(flow.humanFeedbackHistory).toEqual(received);
    expect(events).toEqual(["requested:generate:draft text", "received:needs a title:null"]);
  });

  it("fails at once with a HumanFeedbackError naming the fix when there is no terminal and no provider", async () => {
    class NoOne extends Flow {
      ran = 0;
      @start()
      @humanFeedback({ message: "Approve?" })
      generate() {
        return "x";
      }
      @listen("generate") after() {
        this.ran++;
      }
    }
    expect(process.stdin.isTTY).toBeFalsy();
    const flow = new NoOne();
    const error = await flow.kickoff().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HumanFeedbackError);
    expect((error as Error).message).toMatch(/stdin is not a terminal.*provider/);
    expect(flow.ran).toBe(0);
  });
});

describe("@humanFeedback with emit", () => {
  it("routes an outcome typed as is (any case) without calling the model", async () => {
    // The decorator captured its options at class definition: rebuild the class per case.
    const llm = new FakeLLM([]);
    const provider = scripted("APPROVED");
    class Exact extends Flow<{ log: string[] }> {
      override initialState = { log: [] as string[] };
      @start()
      @humanFeedback({ message: "Approve?", emit: ["approved", "rejected"], llm, provider })
      draft() {
        return "the draft";
      }
      @listen("approved") publish(result: HumanFeedbackResult) {
        this.state.log.push(`published:${result.outcome}:${String(result.output)}`);
        return "published";
      }
      @listen("rejected") discard() {
        this.state.log.push("discarded");
      }
    }
    const flow = new Exact();
    expect(await flow.kickoff()).toBe("published");
    expect(flow.state.log).toEqual(["published:approved:the draft"]);
    expect(llm.calls).toHaveLength(0);
    expect(flow.lastHumanFeedback?.outcome).toBe("approved");
  });

  it("lets the model map free text to an outcome, and routes it", async () => {
    const llm = new FakeLLM(["rejected"]);
    const provider = scripted("this misses the point entirely");
    class Free extends Flow<{ log: string[] }> {
      override initialState = { log: [] as string[] };
      @start()
      @humanFeedback({ message: "Approve?", emit: ["approved", "rejected"], llm, provider })
      draft() {
        return "the draft";
      }
      @listen("approved") publish() {
        this.state.log.push("published");
      }
      @listen("rejected") discard(result: HumanFeedbackResult) {
        this.state.log.push(`discarded:${result.feedback}`);
        return "discarded";
      }
    }
    const flow = new Free();
    expect(await flow.kickoff()).toBe("discarded");
    expect(flow.state.log).toEqual(["discarded:this misses the point entirely"]);
    expect(llm.calls).toHaveLength(1);
    const prompt = llm.calls[0]!.messages.map((m) => m.content).join("\n");
    expect(prompt).toContain('"approved", "rejected"');
    expect(prompt).toContain("this misses the point entirely");
  });

  it("uses defaultOutcome for empty feedback and for a model answer outside emit; fails clearly without one", async () => {
    const build = (llm: FakeLLM, answer: string, defaultOutcome?: string) => {
      const provider = scripted(answer);
      class Defaults extends Flow<{ log: string[] }> {
        override initialState = { log: [] as string[] };
        @start()
        @humanFeedback({ message: "Approve?", emit: ["approved", "rejected"], llm, provider, ...(defaultOutcome ? { defaultOutcome } : {}) })
        draft() {
          return "d";
        }
        @listen("approved") publish() {
          this.state.log.push("published");
        }
        @listen("rejected") discard() {
          this.state.log.push("discarded");
        }
      }
      return new Defaults();
    };
    const silent = new FakeLLM([]);
    const empty = build(silent, "   ", "rejected");
    await empty.kickoff();
    expect(empty.state.log).toEqual(["discarded"]);
    expect(silent.calls).toHaveLength(0);

    const offScript = new FakeLLM(["maybe later?"]);
    const fallback = build(offScript, "hmm", "approved");
    await fallback.kickoff();
    expect(fallback.state.log).toEqual(["published"]);
    expect(offScript.calls).toHaveLength(1);

    const strict = build(new FakeLLM(["maybe later?"]), "hmm");
    await expect(strict.kickoff()).rejects.toThrow(HumanFeedbackError);
    await expect(build(new FakeLLM(["maybe later?"]), "hmm").kickoff()).rejects.toThrow(/not one of "approved", "rejected".*defaultOutcome/);
  });

  it("loops through a revision outcome, in either decorator order", async () => {
    const llm = new FakeLLM(["needs_revision"]);
    const provider = scripted("add more detail please", "approved");
    class Loop extends Flow<{ revisions: number; status: string }> {
      override initialState = { revisions: 0, status: "pending" };
      @start() generate() {
        return "draft";
      }
      @humanFeedback({ message: "Approve or revise?", emit: ["approved", "needs_revision"], llm, provider })
      @listen(or("generate", "needs_revision"))
      review() {
        this.state.revisions++;
        return `draft v${this.state.revisions}`;
      }
      @listen("approved") publish(result: HumanFeedbackResult) {
        this.state.status = `published ${String(result.output)}`;
        return this.state.status;
      }
    }
    const flow = new Loop();
    expect(await flow.kickoff()).toBe("published draft v2");
    expect(flow.state.revisions).toBe(2);
    expect(flow.humanFeedbackHistory.map((r) => r.outcome)).toEqual(["needs_revision", "approved"]);
    expect(provider.asked.map((c) => c.methodOutput)).toEqual(["draft v1", "draft v2"]);

    const provider2 = scripted("approved");
    class ListenFirst extends Flow {
      @start() generate() {
        return 1;
      }
      @listen("generate")
      @humanFeedback({ message: "ok?", emit: ["approved"], llm, provider: provider2 })
      check(n: number) {
        return n + 1;
      }
      @listen("approved") done(result: HumanFeedbackResult) {
        return `done ${String(result.output)}`;
      }
    }
    expect(await new ListenFirst().kickoff()).toBe("done 2");
  });

  it("rejects bad options where the class is defined", () => {
    expect(() => humanFeedback({ message: "x", emit: ["a", "b"] })).toThrow(/needs llm/);
    expect(() => humanFeedback({ message: "x", emit: ["a"], llm: new FakeLLM([]), defaultOutcome: "b" })).toThrow(/defaultOutcome "b" must be one of emit/);
    expect(() => humanFeedback({ message: "x", emit: [], llm: new FakeLLM([]) })).toThrow(/non-empty list/);
    expect(() => humanFeedback({ message: "x", learn: true })).toThrow(/learn: true needs llm/);
    expect(() => humanFeedback({} as never)).toThrow(/needs options with a message/);
  });
});

describe("@humanFeedback learn", () => {
  it("distils lessons from corrections, skips approvals, and pre-reviews later outputs with them", async () => {
    const responder = (messages: { role: string; content: string }[]) => {
      const system = messages[0]!.content;
      const user = messages[1]!.content;
      if (system.startsWith("You turn a reviewer")) return user.includes("looks good") ? "NONE" : "- Always cite sources";
      if (system.startsWith("You improve")) return `${user.split("Work:\n")[1]} [cited]`;
      throw new Error(`unexpected prompt: ${system}`);
    };
    const llm = new FakeLLM(responder);
    const persistence = new InMemoryFlowPersistence();
    const provider = scripted("you forgot the sources", "looks good");
    class Article extends Flow {
      @start()
      @humanFeedback({ message: "Review:", llm, provider, learn: true, learnLimit: 3 })
      write() {
        return "AI is safe.";
      }
    }
    const first = (await new Article({ persistence }).kickoff()) as HumanFeedbackResult;
    expect(first.output).toBe("AI is safe.");
    expect(llm.calls.map((c) => c.messages[0]!.content.slice(0, 14))).toEqual(["You turn a rev"]);

    const second = (await new Article({ persistence }).kickoff()) as HumanFeedbackResult;
    expect(provider.asked[1]!.methodOutput).toBe("AI is safe. [cited]");
    expect(second.output).toBe("AI is safe. [cited]");
    const review = llm.calls[1]!.messages[1]!.content;
    expect(review).toContain("- Always cite sources");
    // "looks good" taught nothing: the lesson store still holds one lesson.
    expect(await persistence.loadState("crewts:hitl-lessons:Article.write")).toEqual({ lessons: ["Always cite sources"] });
  });
});
