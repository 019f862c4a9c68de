// Flows as a CrewAI user ports them, through the public entry point only: the API.md sample, the
// CrewAI documentation's patterns (state, routers, loops, persistence, plots, events).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  and,
  type CrewtsEvent,
  eventBus,
  Flow,
  FlowDefinitionError,
  FlowMethodCallLimitError,
  FlowPlotError,
  InMemoryFlowPersistence,
  listen,
  or,
  persist,
  router,
  SQLiteFlowPersistence,
  start,
} from "../../src/index.js";
import { useTempStorageDir } from "./helpers.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const storage = useTempStorageDir("crewts-flow-acceptance-");
afterEach(() => {
  eventBus.clear();
});

// The sample of API.md, as written there (plus the types strict TypeScript asks for).
interface MyState {
  counter: number;
  ok?: boolean;
}
const trail: string[] = [];
class MyFlow extends Flow<MyState> {
  override initialState = { counter: 0 };
  @start() begin() {
    trail.push("begin");
    this.state.counter += 1;
    return "x";
  }
  @listen("begin") next(result: string) {
    trail.push(`next:${result}`);
    this.state.counter += 1;
  }
  @listen(and("a", "b")) both() {
    trail.push("both");
  }
  @listen(or("a", and("b", "c"))) either() {
    trail.push("either");
  }
  @router("next") decide() {
    return this.state.ok ? "approved" : "rejected";
  }
  @listen("approved") ship() {
    trail.push("ship");
    return `shipped after ${this.state.counter} steps`;
  }
}

describe("the API.md MyFlow sample", () => {
  beforeEach(() => {
    trail.length = 0;
  });

  it("routes to ship when the state approves, ending with ship's result", async () => {
    const flow = new MyFlow();
    const result = await flow.kickoff({ ok: true });
    expect(result).toBe("shipped after 2 steps");
    expect(trail).toEqual(["begin", "next:x", "ship"]);
    expect(flow.state).toMatchObject({ counter: 2, ok: true });
    expect(flow.state.id).toMatch(UUID);
    expect(flow.methodOutputs).toEqual(["x", undefined, "approved", "shipped after 2 steps"]);
  });

  it("ends with the router's label when nothing listens to it", async () => {
    const flow = new MyFlow();
    expect(await flow.kickoff()).toBe("rejected");
    expect(trail).toEqual(["begin", "next:x"]);
    expect(flow.state.counter).toBe(2);
  });

  it("fires and()/or() listeners on router labels", async () => {
    class Routed extends MyFlow {
      @router("next") fanOut() {
        return ["a", "b"];
      }
    }
    expect(await new Routed().kickoff()).toBeUndefined();
    expect(trail.slice(0, 2)).toEqual(["begin", "next:x"]);
    expect(trail.slice(2).sort()).toEqual(["both", "either"]);
  });
});

describe("flow state", () => {
  it("gives every instance its own copy of a plain initialState and a uuid id", async () => {
    class Counter extends Flow<{ count: number; items: string[] }> {
      override initialState = { count: 0, items: [] as string[] };
      @start() add() {
        this.state.count += 1;
        this.state.items.push(`item ${this.state.count}`);
        return this.state.count;
      }
    }
    const one = new Counter();
    const two = new Counter();
    expect(await one.kickoff()).toBe(1);
    expect(await two.kickoff()).toBe(1);
    expect(one.state.id).toMatch(UUID);
    expect(two.state.id).toMatch(UUID);
    expect(one.state.id).not.toBe(two.state.id);
    expect(two.state.items).toEqual(["item 1"]);
    // The id is fixed from first access and kept across kickoffs of one instance.
    const id = one.state.id;
    expect(await one.kickoff()).toBe(2);
    expect(one.state.id).toBe(id);
  });

  it("fills a zod schema's defaults, merges kickoff inputs and validates them", async () => {
    const ArticleState = z.object({
      topic: z.string().default("AI agents"),
      sections: z.array(z.string()).default([]),
      wordCount: z.number().int().min(0).default(0),
    });
    class ArticleFlow extends Flow<z.infer<typeof ArticleState>> {
      override initialState = ArticleState;
      @start() outline() {
        this.state.sections.push(`Intro to ${this.state.topic}`);
        this.state.wordCount += 100;
      }
    }
    const flow = new ArticleFlow();
    expect(flow.state).toMatchObject({ topic: "AI agents", sections: [], wordCount: 0 });
    expect(flow.state.id).toMatch(UUID);
    await flow.kickoff({ topic: "TypeScript" });
    expect(flow.state).toMatchObject({ topic: "TypeScript", sections: ["Intro to TypeScript"], wordCount: 100 });

    // Defaults are not shared between instances.
    const other = new ArticleFlow();
    await other.kickoff();
    expect(other.state.sections).toEqual(["Intro to AI agents"]);

    await expect(new ArticleFlow().kickoff({ wordCount: -1 })).rejects.toThrow(/wordCount/);
  });

  it("accepts free-form state without initialState, like CrewAI's unstructured state", async () => {
    class Loose extends Flow {
      @start() collect() {
        this.state.data = ["item1", "item2"];
        return "collected";
      }
      @listen("collect") process() {
        this.state.processed = (this.state.data as string[]).map((s) => s.toUpperCase());
        return this.state.processed;
      }
    }
    const flow = new Loose();
    expect(await flow.kickoff({ user: "ada" })).toEqual(["ITEM1", "ITEM2"]);
    expect(flow.state).toMatchObject({ user: "ada", data: ["item1", "item2"] });
    expect(flow.state.id).toMatch(UUID);
  });

  it("lets a constructor seed the state, as CrewAI's __init__ examples do", async () => {
    class Seeded extends Flow<{ iteration: number; maxIterations: number }> {
      constructor() {
        super();
        this.state.iteration = 0;
        this.state.maxIterations = 3;
      }
      @start("loop") generate() {
        this.state.iteration += 1;
      }
      @router("generate") check() {
        return this.state.iteration >= this.state.maxIterations ? "done" : "loop";
      }
    }
    const flow = new Seeded();
    expect(await flow.kickoff()).toBe("done");
    expect(flow.state.iteration).toBe(3);
  });
});

describe("execution", () => {
  it("resolves with the output of the method that finished last, and lists every output", async () => {
    class Parallel extends Flow<{ total: number }> {
      override initialState = { total: 0 };
      @start() fetchA() {
        this.state.total += 100;
        return "a";
      }
      @start() async fetchB() {
        await Promise.resolve();
        this.state.total += 200;
        return "b";
      }
      @start() async fetchC() {
        await new Promise((r) => setTimeout(r, 5));
        this.state.total += 300;
        return "c";
      }
      @listen(and("fetchA", "fetchB", "fetchC")) aggregate() {
        return this.state.total;
      }
    }
    const flow = new Parallel();
    expect(await flow.kickoff()).toBe(600);
    expect([...flow.methodOutputs].slice(0, 3).sort()).toEqual(["a", "b", "c"]);
    expect(flow.methodOutputs.at(-1)).toBe(600);
  });

  it("mixes sync and async methods and passes each result on", async () => {
    class Mixed extends Flow {
      @start() syncStart() {
        return 1;
      }
      @listen("syncStart") async asyncStep(n: number) {
        await new Promise((r) => setTimeout(r, 1));
        return n + 1;
      }
      @listen("asyncStep") syncStep(n: number) {
        return n * 10;
      }
      @router("syncStep") async asyncRouter() {
        await Promise.resolve();
        return "finish";
      }
      @listen("finish") async handleFinish() {
        return `result ${String(this.methodOutputs.at(-2))}`;
      }
    }
    expect(await new Mixed().kickoff()).toBe("result 20");
  });

  it("passes a router its trigger's result, and a label's listeners the router's output", async () => {
    const got: unknown[] = [];
    class Passing extends Flow {
      @start() analyze() {
        return 0.85;
      }
      @router("analyze") decision(score: number) {
        got.push(score);
        return score > 0.8 ? "high" : "low";
      }
      @router("high") escalate(score: number) {
        got.push(`escalate:${score}`);
        return "urgent";
      }
      @listen("high") approve(label: string) {
        got.push(label);
      }
      @listen("urgent") page(label: string) {
        got.push(label);
      }
    }
    await new Passing().kickoff();
    // As in CrewAI: routers of the cascade get the trigger's result, listeners of a label the router's output.
    expect(got.slice(0, 2)).toEqual([0.85, "escalate:0.85"]);
    expect(got.slice(2).sort()).toEqual(["high", "urgent"]);
  });

  it("routes to every label of a list a router returns", async () => {
    const ran: string[] = [];
    class MultiRoute extends Flow<{ notify: boolean; log: boolean; update: boolean }> {
      override initialState = { notify: true, log: true, update: false };
      @start() process() {}
      @router("process") complexDecision() {
        const routes: string[] = [];
        if (this.state.notify) routes.push("sendNotification");
        if (this.state.update) routes.push("updateDatabase");
        if (this.state.log) routes.push("logToSystem");
        return routes;
      }
      @listen("sendNotification") notifyUser() {
        ran.push("notify");
      }
      @listen("updateDatabase") updateDb() {
        ran.push("update");
      }
      @listen("logToSystem") logEvent() {
        ran.push("log");
      }
    }
    await new MultiRoute().kickoff();
    expect(ran.sort()).toEqual(["log", "notify"]);
  });

  it("loops through a conditional start until the router lets it out", async () => {
    class Retry extends Flow<{ attempts: number }> {
      override initialState = { attempts: 0 };
      @start() begin() {
        return "begun";
      }
      @start("retry") attempt() {
        this.state.attempts += 1;
      }
      @router(or("begin", "attempt")) check() {
        return this.state.attempts < 3 ? "retry" : "success";
      }
      @listen("success") finish() {
        return `succeeded after ${this.state.attempts} attempts`;
      }
    }
    const flow = new Retry();
    expect(await flow.kickoff()).toBe("succeeded after 3 attempts");
    // A second kickoff keeps the state, so the router lets it out at once.
    expect(await flow.kickoff()).toBe("succeeded after 3 attempts");
    expect(flow.methodOutputs).toEqual(["begun", "success", "succeeded after 3 attempts"]);
  });

  it("runs a 1000-round loop when maxMethodCalls is raised, and stops one past the limit", async () => {
    class Long extends Flow<{ n: number; rounds: number }> {
      override maxMethodCalls = 1000;
      override initialState = { n: 0, rounds: 1000 };
      @start("again") step() {
        this.state.n += 1;
      }
      @router("step") loop() {
        return this.state.n < this.state.rounds ? "again" : "done";
      }
    }
    const flow = new Long();
    expect(await flow.kickoff()).toBe("done");
    expect(flow.state.n).toBe(1000);
    expect(flow.methodOutputs).toHaveLength(2000);

    const error = await new Long().kickoff({ rounds: 1001 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowMethodCallLimitError);
    expect((error as Error).message).toMatch(/"step" was called more than 1000 times/);
  });

  it("rejects kickoff with the very error a method threw, and runs nothing after it", async () => {
    class Boom extends Error {}
    const boom = new Boom("the API is down");
    const ran: string[] = [];
    class Risky extends Flow {
      @start() fetch() {
        ran.push("fetch");
      }
      @listen("fetch") async parse() {
        await Promise.resolve();
        throw boom;
      }
      @listen("parse") save() {
        ran.push("save");
      }
    }
    await expect(new Risky().kickoff()).rejects.toBe(boom);
    expect(ran).toEqual(["fetch"]);

    class SyncRisky extends Flow {
      @start() explode() {
        throw new TypeError("bad input");
      }
    }
    await expect(new SyncRisky().kickoff()).rejects.toThrow(TypeError);
  });
});

describe("persistence", () => {
  it("@persist on the class saves after every method and resumes by id in a new instance", async () => {
    const backend = new InMemoryFlowPersistence();
    @persist(backend)
    class Checkpoint extends Flow<{ results: string[]; runs: number }> {
      override initialState = { results: [] as string[], runs: 0 };
      @start() stepOne() {
        this.state.runs += 1;
        this.state.results.push("Step 1 done");
      }
      @listen("stepOne") stepTwo() {
        this.state.results.push("Step 2 done");
        return this.state.results.length;
      }
    }
    const first = new Checkpoint();
    await first.kickoff();
    const id = first.state.id;
    expect(await backend.loadState(id)).toEqual({ id, results: ["Step 1 done", "Step 2 done"], runs: 1 });

    const resumed = new Checkpoint();
    expect(await resumed.kickoff({ id })).toBe(4);
    expect(resumed.state).toEqual({ id, results: ["Step 1 done", "Step 2 done", "Step 1 done", "Step 2 done"], runs: 2 });
  });

  it("restores over the initial state, so a field added since the save starts from its initial value", async () => {
    const backend = new InMemoryFlowPersistence();
    await backend.saveState("saved-by-v1", "step", { id: "saved-by-v1", done: 1 });
    @persist(backend)
    class Version2 extends Flow<{ done: number; tags: string[] }> {
      override initialState = { done: 0, tags: [] as string[] };
      @start() step() {
        this.state.done += 1;
        this.state.tags.push("v2");
      }
    }
    const flow = new Version2();
    await flow.kickoff({ id: "saved-by-v1" });
    expect(flow.state).toEqual({ id: "saved-by-v1", done: 2, tags: ["v2"] });
  });

  it("@persist() on a method saves that method's state to the default SQLite file", async () => {
    class Selective extends Flow<{ step: string }> {
      override initialState = { step: "init" };
      @persist() @start() critical() {
        this.state.step = "critical";
      }
      @listen("critical") unimportant() {
        this.state.step = "unimportant";
      }
    }
    const flow = new Selective();
    await flow.kickoff();
    expect(existsSync(join(storage.dir, "flow_states.db"))).toBe(true);
    const reader = new SQLiteFlowPersistence(join(storage.dir, "flow_states.db"));
    try {
      expect(await reader.loadState(flow.state.id)).toEqual({ id: flow.state.id, step: "critical" });
    } finally {
      await reader.close();
    }
    const again = new Selective();
    await again.kickoff({ id: flow.state.id });
    expect(again.state.id).toBe(flow.state.id);
  });

  it("resumes a zod-typed flow from the default SQLite backend, then applies the other inputs", async () => {
    const State = z.object({ counter: z.number().default(0), message: z.string().default("") });
    @persist()
    class Persistent extends Flow<z.infer<typeof State>> {
      override initialState = State;
      @start() increment() {
        this.state.counter += 1;
        return this.state.counter;
      }
    }
    const flow = new Persistent();
    await flow.kickoff({ message: "first" });
    const resumed = new Persistent();
    expect(await resumed.kickoff({ id: flow.state.id, message: "second" })).toBe(2);
    expect(resumed.state).toEqual({ id: flow.state.id, counter: 2, message: "second" });

    // An unknown id starts from the initial state, under that id.
    const fresh = new Persistent();
    await fresh.kickoff({ id: "never-saved" });
    expect(fresh.state).toEqual({ id: "never-saved", counter: 1, message: "" });
  });
});

describe("plot", () => {
  it("writes a standalone HTML file and resolves with its path", async () => {
    const flow = new MyFlow();
    const path = await flow.plot(join(storage.dir, "my_workflow"));
    expect(path).toBe(join(storage.dir, "my_workflow.html"));
    const html = await readFile(path, "utf8");
    expect(html).toMatch(/^<!doctype html>/i);
    for (const name of ["begin", "next", "both", "either", "decide", "ship", "approved"]) expect(html).toContain(name);
    // Standalone: no script or stylesheet is fetched from the network.
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=["']https?:/i);
  });

  it("rejects with a FlowPlotError that says what to do when the directory is missing", async () => {
    await expect(new MyFlow().plot(join(storage.dir, "missing", "plot"))).rejects.toThrow(FlowPlotError);
    await expect(new MyFlow().plot(join(storage.dir, "missing", "plot"))).rejects.toThrow(/does not exist\. Create it first/);
  });

  it("has written the file by the time plot() returns, for callers who do not await", () => {
    const file = join(storage.dir, "sync_call.html");
    void new MyFlow().plot(file);
    expect(existsSync(file)).toBe(true);
  });
});

describe("events", () => {
  it("reports the flow and each method with the flow's name, the state id, results and timings", async () => {
    const events: CrewtsEvent[] = [];
    for (const type of ["flow_started", "method_execution_started", "method_execution_finished", "flow_finished"] as const) {
      eventBus.on(type, (e) => {
        events.push(e);
      });
    }
    const flow = new MyFlow();
    await flow.kickoff({ ok: true });
    const id = flow.state.id;
    expect(events[0]).toMatchObject({ type: "flow_started", flowName: "MyFlow", flowId: id, inputs: { ok: true } });
    expect(events.at(-1)).toMatchObject({ type: "flow_finished", flowName: "MyFlow", flowId: id, result: "shipped after 2 steps" });
    const finished = events.filter((e): e is CrewtsEvent<"method_execution_finished"> => e.type === "method_execution_finished");
    expect(finished.map((e) => e.methodName)).toEqual(["begin", "next", "decide", "ship"]);
    expect(finished[2]).toMatchObject({ flowName: "MyFlow", flowId: id, result: "approved", state: { id, counter: 2 } });
    for (const e of events) {
      expect(e.timestamp).toBeInstanceOf(Date);
      expect(e.eventId).toEqual(expect.any(String));
    }
    for (const e of finished) expect(e.durationMs).toBeGreaterThanOrEqual(0);
    const started = events.filter((e): e is CrewtsEvent<"method_execution_started"> => e.type === "method_execution_started");
    expect(started.map((e) => e.methodName)).toEqual(["begin", "next", "decide", "ship"]);
  });

  it("reports a failing method with its error", async () => {
    const failures: CrewtsEvent<"method_execution_failed">[] = [];
    eventBus.on("method_execution_failed", (e) => {
      failures.push(e);
    });
    class Failing extends Flow {
      @start() broken() {
        throw new Error("no connection");
      }
    }
    const flow = new Failing();
    await expect(flow.kickoff()).rejects.toThrow("no connection");
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ flowName: "Failing", flowId: flow.state.id, methodName: "broken" });
    expect(String(failures[0]!.error)).toContain("no connection");
  });
});

describe("habits carried over from Python", () => {
  it("accepts @persist without parentheses, on the class and on a method", async () => {
    @persist
    class WholeFlow extends Flow<{ n: number }> {
      override initialState = { n: 0 };
      @start() count() {
        this.state.n += 1;
        return this.state.n;
      }
    }
    const first = new WholeFlow();
    await first.kickoff();
    expect(await new WholeFlow().kickoff({ id: first.state.id })).toBe(2);

    class OneMethod extends Flow<{ n: number }> {
      override initialState = { n: 0 };
      @persist
      @start()
      count() {
        this.state.n += 1;
        return this.state.n;
      }
    }
    const one = new OneMethod();
    await one.kickoff();
    expect(await new OneMethod().kickoff({ id: one.state.id })).toBe(2);
  });

  it("passes the trigger's result to a listener whose parameter has a default", async () => {
    class Defaults extends Flow {
      @start() produce() {
        return "made";
      }
      @listen("produce") consume(result = "nothing") {
        return `got ${result}`;
      }
    }
    expect(await new Defaults().kickoff()).toBe("got made");
  });

  it("keeps functions and class instances in a plain initialState", async () => {
    class Helpers extends Flow<{ format: (n: number) => string; n: number }> {
      override initialState = { format: (n: number) => `#${n}`, n: 7 };
      @start() show() {
        return this.state.format(this.state.n);
      }
    }
    expect(await new Helpers().kickoff()).toBe("#7");
  });

  it("kickoffAsync is kickoff, for code ported from kickoff_async", async () => {
    class Simple extends Flow {
      @start() async fetchData() {
        await Promise.resolve();
        return "data";
      }
    }
    expect(await new Simple().kickoffAsync()).toBe("data");
  });

  it("explains a handler named after the label it listens to", () => {
    class SameName extends Flow {
      @start() check() {}
      @router("check") route() {
        return "publish";
      }
      @listen("publish") publish() {}
    }
    expect(() => new SameName()).toThrow(FlowDefinitionError);
    expect(() => new SameName()).toThrow(/"publish" listens to itself.*@listen\("publish"\) handlePublish\(\)/);
  });

  it("explains decorators used without parentheses or on arrow-function fields", () => {
    expect(() => {
      class Bare extends Flow {
        // @ts-expect-error: start must be called, @start()
        @start begin() {}
      }
      return Bare;
    }).toThrow(/with parentheses \(@start\(\)/);
    expect(() => {
      class Arrow extends Flow {
        // @ts-expect-error: flow decorators take methods
        @start() begin = () => "x";
      }
      return Arrow;
    }).toThrow(/begin is a class field, not a method/);
  });
});
