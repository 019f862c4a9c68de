import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Flow, type FlowPersistence, InMemoryFlowPersistence, listen, persist, SQLiteFlowPersistence, start } from "../../src/flow/index.js";
import { useTempStorageDir, work } from "./helpers.js";

/** An in-memory backend that records every save, and can be slow to show that saves are awaited. */
class RecordingPersistence extends InMemoryFlowPersistence {
  readonly saves: { flowId: string; methodName: string; state: Record<string, unknown> }[] = [];
  writing = false;
  constructor(private readonly delayMs = 0) {
    super();
  }
  override async saveState(flowId: string, methodName: string, state: Record<string, unknown>): Promise<void> {
    this.writing = true;
    if (this.delayMs > 0) await work(this.delayMs);
    this.saves.push({ flowId, methodName, state: structuredClone(state) });
    await super.saveState(flowId, methodName, state);
    this.writing = false;
  }
}

const storage = useTempStorageDir("crewts-flow-persist-");

describe("Flow persistence", () => {
  it("@persist on the class saves after every method, before the next one starts", async () => {
    const backend = new RecordingPersistence(20);
    const seenWriting: boolean[] = [];
    @persist(backend)
    class Everything extends Flow<{ steps: string[] }> {
      override initialState = { steps: [] as string[] };
      @start() one() {
        this.state.steps.push("one");
      }
      @listen("one") two() {
        seenWriting.push(backend.writing);
        this.state.steps.push("two");
      }
    }
    const flow = new Everything();
    await flow.kickoff();
    expect(seenWriting).toEqual([false]);
    expect(backend.saves.map((s) => [s.methodName, s.state.steps])).toEqual([
      ["one", ["one"]],
      ["two", ["one", "two"]],
    ]);
    expect(backend.saves.every((s) => s.flowId === flow.state.id)).toBe(true);
  });

  it("@persist on a method saves only after that method", async () => {
    const backend = new RecordingPersistence();
    class Selective extends Flow<{ n: number }> {
      override initialState = { n: 0 };
      @start() one() {
        this.state.n = 1;
      }
      @persist(backend)
      @listen("one")
      two() {
        this.state.n = 2;
      }
      @listen("two") three() {
        this.state.n = 3;
      }
    }
    const flow = new Selective();
    await flow.kickoff();
    expect(backend.saves.map((s) => [s.methodName, s.state.n])).toEqual([["two", 2]]);
    expect(await backend.loadState(flow.state.id)).toMatchObject({ n: 2 });
  });

  it("resumes by id: restores the saved state, then applies the other inputs", async () => {
    const backend = new InMemoryFlowPersistence();
    @persist(backend)
    class Counter extends Flow<{ count: number; label: string }> {
      override initialState = { count: 0, label: "" };
      @start() bump() {
        this.state.count += 1;
        return this.state.count;
      }
    }
    const first = new Counter();
    await first.kickoff({ label: "first" });
    const id = first.state.id;

    const resumed = new Counter();
    expect(await resumed.kickoff({ id, label: "second" })).toBe(2);
    expect(resumed.state).toEqual({ id, count: 2, label: "second" });

    const fresh = new Counter();
    expect(await fresh.kickoff({ id: "never-saved" })).toBe(1);
    expect(fresh.state.id).toBe("never-saved");
  });

  it("subclasses inherit class-level @persist", async () => {
    const backend = new RecordingPersistence();
    @persist(backend)
    class Base extends Flow {
      @start() a() {}
    }
    class Child extends Base {
      @listen("a") b() {}
    }
    await new Child().kickoff();
    expect(backend.saves.map((s) => s.methodName)).toEqual(["a", "b"]);
  });

  it("uses the instance's persistence option over the decorated one", async () => {
    const decorated = new RecordingPersistence();
    const instance = new RecordingPersistence();
    @persist(decorated)
    class Chosen extends Flow {
      @start() a() {}
    }
    await new Chosen({ persistence: instance }).kickoff();
    expect(decorated.saves).toHaveLength(0);
    expect(instance.saves.map((s) => s.methodName)).toEqual(["a"]);
  });

  it("defaults to SQLiteFlowPersistence in the storage directory, and resumes from it", async () => {
    @persist()
    class Durable extends Flow<{ visits: number }> {
      override initialState = { visits: 0 };
      @start() visit() {
        this.state.visits += 1;
        return this.state.visits;
      }
    }
    const flow = new Durable();
    await flow.kickoff();
    const file = join(storage.dir, "flow_states.db");
    expect(existsSync(file)).toBe(true);
    const reader = new SQLiteFlowPersistence(file);
    try {
      expect(await reader.loadState(flow.state.id)).toEqual({ id: flow.state.id, visits: 1 });
    } finally {
      await reader.close();
    }
    expect(await new Durable().kickoff({ id: flow.state.id })).toBe(2);
  });

  it("validates a restored state against the schema", async () => {
    const backend: FlowPersistence = new InMemoryFlowPersistence();
    await backend.saveState("bad", "x", { id: "bad", count: "not a number" });
    const State = z.object({ count: z.number().default(0) });
    @persist(backend)
    class Checked extends Flow<z.infer<typeof State>> {
      override initialState = State;
      @start() a() {}
    }
    await expect(new Checked().kickoff({ id: "bad" })).rejects.toThrow(/Invalid state for flow Checked: count/);
  });

  it("fails the kickoff when a save fails", async () => {
    const broken: FlowPersistence = {
      saveState: () => Promise.reject(new Error("disk full")),
      loadState: () => Promise.resolve(undefined),
    };
    const ran: string[] = [];
    @persist(broken)
    class Unsaved extends Flow {
      @start() a() {
        ran.push("a");
      }
      @listen("a") b() {
        ran.push("b");
      }
    }
    await expect(new Unsaved().kickoff()).rejects.toThrow("disk full");
    expect(ran).toEqual(["a"]);
  });
});
