import { describe, expect, it } from "vitest";
import { and, Flow, FlowMethodCallLimitError, listen, or, router, start } from "../../src/flow/index.js";
import { deferred, work } from "./helpers.js";

describe("Flow execution", () => {
  it("runs a linear chain, passing each result to the next listener", async () => {
    class Chain extends Flow<{ trail: string[] }> {
      override initialState = { trail: [] as string[] };
      @start() one() {
        this.state.trail.push("one");
        return 1;
      }
      @listen("one") two(previous: number) {
        this.state.trail.push(`two:${previous}`);
        return previous + 1;
      }
      @listen("two") async three(previous: number) {
        await Promise.resolve();
        this.state.trail.push(`three:${previous}`);
        return previous + 1;
      }
    }
    const flow = new Chain();
    expect(await flow.kickoff()).toBe(3);
    expect(flow.state.trail).toEqual(["one", "two:1", "three:2"]);
    expect(flow.methodOutputs).toEqual([1, 2, 3]);
  });

  it("runs an and() listener once every branch has fired, with the last trigger's result", async () => {
    const received: unknown[] = [];
    class Both extends Flow {
      @start() async a() {
        await work(20);
        return "A";
      }
      @start() b() {
        return "B";
      }
      @listen(and("a", "b")) both(last: unknown) {
        received.push(last);
        return "both";
      }
    }
    const flow = new Both();
    expect(await flow.kickoff()).toBe("both");
    expect(received).toEqual(["A"]);
  });

  it("runs an or() listener once, on the first branch to fire", async () => {
    const calls: unknown[] = [];
    class Either extends Flow {
      @start() fast() {
        return "fast";
      }
      @start() async slow() {
        await work(20);
        return "slow";
      }
      @listen(or("fast", "slow")) either(first: unknown) {
        calls.push(first);
      }
    }
    await new Either().kickoff();
    expect(calls).toEqual(["fast"]);
  });

  it("evaluates nested conditions: or(a, and(b, c))", async () => {
    const order: string[] = [];
    class Nested extends Flow {
      @start() b() {
        order.push("b");
      }
      @listen("b") async c() {
        await work(5);
        order.push("c");
      }
      @start("never") a() {
        order.push("a");
      }
      @listen(or("a", and("b", "c"))) joined() {
        order.push("joined");
      }
    }
    await new Nested().kickoff();
    expect(order).toEqual(["b", "c", "joined"]);
  });

  it("evaluates nested conditions: and(a, or(b, c)) waits for a and one of b, c", async () => {
    const order: string[] = [];
    class Nested extends Flow {
      @start() async a() {
        await work(15);
        order.push("a");
      }
      @start() b() {
        order.push("b");
      }
      @listen(and("a", or("b", "c"))) joined() {
        order.push("joined");
      }
    }
    await new Nested().kickoff();
    expect(order).toEqual(["b", "a", "joined"]);
  });

  it("routes on a router's string return", async () => {
    const ran: string[] = [];
    class Routing extends Flow<{ score: number }> {
      override initialState = { score: 0.9 };
      @start() analyze() {
        return "analyzed";
      }
      @router("analyze") decide() {
        return this.state.score > 0.8 ? "high" : "low";
      }
      @listen("high") onHigh(label: unknown) {
        ran.push(`high:${String(label)}`);
        return "approved";
      }
      @listen("low") onLow() {
        ran.push("low");
      }
    }
    expect(await new Routing().kickoff()).toBe("approved");
    expect(ran).toEqual(["high:high"]);
    ran.length = 0;
    await new Routing().kickoff({ score: 0.1 });
    expect(ran).toEqual(["low"]);
  });

  it("routes on a string enum value", async () => {
    enum Route {
      Ok = "ok",
      Retry = "retry",
    }
    const ran: string[] = [];
    class EnumFlow extends Flow {
      @start() begin() {}
      @router("begin") decide(): Route {
        return Route.Retry;
      }
      @listen(Route.Retry) onRetry() {
        ran.push("retry");
      }
      @listen(Route.Ok) onOk() {
        ran.push("ok");
      }
    }
    await new EnumFlow().kickoff();
    expect(ran).toEqual(["retry"]);
  });

  it("routes to several labels when a router returns a list, running their listeners concurrently", async () => {
    const ran: string[] = [];
    class Multi extends Flow {
      @start() begin() {}
      @router("begin") fanOut() {
        return ["notify", "store"];
      }
      @listen("notify") async sendNotification() {
        await work(100);
        ran.push("notify");
      }
      @listen("store") async saveRecord() {
        await work(100);
        ran.push("store");
      }
      @listen("skip") skipped() {
        ran.push("skip");
      }
    }
    const t0 = performance.now();
    await new Multi().kickoff();
    expect(performance.now() - t0).toBeLessThan(190);
    expect(ran.sort()).toEqual(["notify", "store"]);
  });

  it("lets a router listen to a router's label (routers run in sequence)", async () => {
    const order: string[] = [];
    class Chained extends Flow {
      @start() analyze() {
        order.push("analyze");
      }
      @router("analyze") first() {
        order.push("first");
        return "path_a";
      }
      @router("path_a") second() {
        order.push("second");
        return "final";
      }
      @listen("final") done() {
        order.push("done");
      }
      @listen("path_a") onPathA() {
        order.push("onPathA");
      }
    }
    await new Chained().kickoff();
    expect(order.slice(0, 3)).toEqual(["analyze", "first", "second"]);
    expect(order.slice(3).sort()).toEqual(["done", "onPathA"]);
  });

  it("stops the flow when a router returns nothing", async () => {
    const ran: string[] = [];
    class Nothing extends Flow {
      @start() begin() {
        return "begun";
      }
      @router("begin") decide() {
        return undefined;
      }
      @listen("undefined") never() {
        ran.push("never");
      }
    }
    expect(await new Nothing().kickoff()).toBeUndefined();
    expect(ran).toEqual([]);
  });

  it("loops through a router and a conditional start until the stop condition", async () => {
    class Loop extends Flow<{ counter: number }> {
      override initialState = { counter: 0 };
      @start("loop") iterate() {
        this.state.counter += 1;
        return this.state.counter;
      }
      @router("iterate") check() {
        return this.state.counter < 5 ? "loop" : "complete";
      }
      @listen("complete") finalize() {
        return `done after ${this.state.counter}`;
      }
    }
    const flow = new Loop();
    expect(await flow.kickoff()).toBe("done after 5");
    expect(flow.state.counter).toBe(5);
  });

  it("loops back to a listener through a router, re-firing and() and or() listeners each round", async () => {
    const joins: number[] = [];
    class Cycle extends Flow<{ round: number }> {
      override initialState = { round: 0 };
      @start() begin() {}
      @listen(or("begin", "again")) step() {
        this.state.round += 1;
      }
      @listen("step") left() {}
      @listen("step") right() {}
      @listen(and("left", "right")) join() {
        joins.push(this.state.round);
      }
      @router("join") decide() {
        return this.state.round < 3 ? "again" : "stop";
      }
    }
    const flow = new Cycle();
    await flow.kickoff();
    expect(joins).toEqual([1, 2, 3]);
  });

  it("stops a runaway loop with a clear error naming the method and the limit", async () => {
    class Runaway extends Flow {
      @start("again") spin() {}
      @router("spin") back() {
        return "again";
      }
    }
    const error = await new Runaway().kickoff().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowMethodCallLimitError);
    expect((error as Error).message).toMatch(/"spin" was called more than 100 times/);
    expect((error as Error).message).toMatch(/maxMethodCalls/);
  });

  it("honours a subclass's maxMethodCalls", async () => {
    class Long extends Flow<{ n: number }> {
      override maxMethodCalls = 500;
      override initialState = { n: 0 };
      @start("again") spin() {
        this.state.n += 1;
      }
      @router("spin") back() {
        return this.state.n < 400 ? "again" : "done";
      }
    }
    const flow = new Long();
    await flow.kickoff();
    expect(flow.state.n).toBe(400);

    class Short extends Long {
      override maxMethodCalls = 10;
    }
    await expect(new Short().kickoff()).rejects.toThrow(/more than 10 times/);
  });

  it("runs unconditional starts concurrently", async () => {
    class Starts extends Flow {
      @start() async a() {
        await work(150);
        return "a";
      }
      @start() async b() {
        await work(150);
        return "b";
      }
      @start() async c() {
        await work(150);
        return "c";
      }
    }
    const t0 = performance.now();
    await new Starts().kickoff();
    expect(performance.now() - t0).toBeLessThan(280);
  });

  it("runs listeners of one method concurrently", async () => {
    class Fan extends Flow {
      @start() begin() {}
      @listen("begin") async x() {
        await work(150);
      }
      @listen("begin") async y() {
        await work(150);
      }
      @listen("begin") async z() {
        await work(150);
      }
    }
    const t0 = performance.now();
    await new Fan().kickoff();
    expect(performance.now() - t0).toBeLessThan(280);
  });

  it("runs routers in sequence", async () => {
    const order: string[] = [];
    class Routers extends Flow {
      @start() begin() {}
      @router("begin") async r1() {
        await work(30);
        order.push("r1");
        return "x";
      }
      @router("begin") r2() {
        order.push("r2");
        return "y";
      }
    }
    await new Routers().kickoff();
    expect(order).toEqual(["r1", "r2"]);
  });

  it("runs conditional starts at kickoff when no unconditional start exists", async () => {
    const ran: string[] = [];
    class OnlyConditional extends Flow {
      @start("go") first() {
        ran.push("first");
      }
    }
    await new OnlyConditional().kickoff();
    expect(ran).toEqual(["first"]);

    class Mixed extends Flow {
      @start() main() {
        ran.push("main");
      }
      @start("go") later() {
        ran.push("later");
      }
    }
    ran.length = 0;
    await new Mixed().kickoff();
    expect(ran).toEqual(["main"]);
  });

  it("passes the trigger's result to every listener, also through default and rest parameters", async () => {
    const seen: unknown[][] = [];
    class Params extends Flow {
      @start() begin() {
        return { payload: 42 };
      }
      @listen("begin") withParam(result: unknown) {
        seen.push(["withParam", result]);
      }
      @listen("begin") withRest(...rest: unknown[]) {
        seen.push(["withRest", rest]);
      }
      @listen("begin") withDefault(result: unknown = "none") {
        seen.push(["withDefault", result]);
      }
      @listen("begin") withoutParam() {
        seen.push(["withoutParam"]);
      }
    }
    await new Params().kickoff();
    expect(seen).toContainEqual(["withParam", { payload: 42 }]);
    // As in CrewAI, where `*args` and `result=None` count as parameters.
    expect(seen).toContainEqual(["withRest", [{ payload: 42 }]]);
    expect(seen).toContainEqual(["withDefault", { payload: 42 }]);
    expect(seen).toContainEqual(["withoutParam"]);
  });

  it("resolves with the output of the method that finished last", async () => {
    class Last extends Flow {
      @start() async slow() {
        await work(40);
        return "slow";
      }
      @start() fast() {
        return "fast";
      }
      @listen("fast") afterFast() {
        return "afterFast";
      }
    }
    const flow = new Last();
    expect(await flow.kickoff()).toBe("slow");
    expect(flow.methodOutputs).toEqual(["fast", "afterFast", "slow"]);
  });

  it("resets methodOutputs and call counts on every kickoff, keeping the state", async () => {
    class Again extends Flow<{ runs: number }> {
      override initialState = { runs: 0 };
      override maxMethodCalls = 1;
      @start() begin() {
        this.state.runs += 1;
        return this.state.runs;
      }
    }
    const flow = new Again();
    await flow.kickoff();
    expect(await flow.kickoff()).toBe(2);
    expect(flow.methodOutputs).toEqual([2]);
  });

  it("fails the kickoff with the thrown error itself and starts nothing afterwards", async () => {
    const boom = new Error("boom");
    const slowDone = deferred();
    const ran: string[] = [];
    class Failing extends Flow {
      @start() async breaks() {
        await work(10);
        throw boom;
      }
      @start() async slow() {
        await work(60);
        ran.push("slow");
        slowDone.resolve();
      }
      @listen("slow") afterSlow() {
        ran.push("afterSlow");
      }
    }
    const error = await new Failing().kickoff().catch((e: unknown) => e);
    expect(error).toBe(boom);
    await slowDone.promise;
    await work(0);
    expect(ran).toEqual(["slow"]);
  });

  it("fails the kickoff when a sync listener throws", async () => {
    class SyncThrow extends Flow {
      @start() begin() {}
      @listen("begin") bad() {
        throw new TypeError("bad listener");
      }
    }
    await expect(new SyncThrow().kickoff()).rejects.toThrow(TypeError);
  });
});
