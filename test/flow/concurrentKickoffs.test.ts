import { afterEach, describe, expect, it } from "vitest";
import { eventBus } from "../../src/events/index.js";
import { Flow, FlowStateError, InMemoryFlowPersistence, listen, persist, router, start } from "../../src/flow/index.js";

afterEach(() => eventBus.clear());

const topics = Array.from({ length: 50 }, (_, i) => `topic-${i}`);
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Research extends Flow<{ topic: string; steps: string[] }> {
  override initialState = { topic: "", steps: [] as string[] };
  note = "";
  @start() async begin() {
    await tick(this.state.topic.length % 3);
    this.state.steps.push(`begin ${this.state.topic}`);
    this.note = this.state.topic;
  }
  @router("begin") route() {
    return Number(this.state.topic.split("-")[1]) % 2 === 0 ? "even" : "odd";
  }
  @listen("even") async handleEven() {
    await tick(1);
    return `${this.state.topic} even: ${this.state.steps.join(",")} (${this.note})`;
  }
  @listen("odd") handleOdd() {
    return `${this.state.topic} odd: ${this.state.steps.join(",")} (${this.note})`;
  }
}

describe("concurrent kickoffs of one flow instance", () => {
  it("gives each of 50 concurrent kickoffs its own state, route and result", async () => {
    const flow = new Research();
    const ids = new Set<string>();
    eventBus.on("flow_started", (event) => void ids.add(event.flowId));
    const results = await Promise.all(topics.map((topic) => flow.kickoff({ topic })));
    for (const [i, result] of results.entries()) {
      const topic = topics[i]!;
      expect(result).toBe(`${topic} ${i % 2 === 0 ? "even" : "odd"}: begin ${topic} (${topic})`);
    }
    expect(ids.size).toBe(50);
    // The instance shows the kickoff that ran on it directly, the first.
    expect(flow.state.topic).toBe("topic-0");
    expect(flow.state.steps).toEqual(["begin topic-0"]);
  });

  it("starts a concurrent kickoff from the initial state, and later kickoffs from the instance's state as before", async () => {
    const flow = new Research();
    await flow.kickoff({ topic: "topic-1" });
    const [a, b] = await Promise.all([flow.kickoff({ topic: "topic-2" }), flow.kickoff({ topic: "topic-4" })]);
    // The first continues the instance's state (steps of topic-1 kept), the second starts anew.
    expect(a).toBe("topic-2 even: begin topic-1,begin topic-2 (topic-2)");
    expect(b).toBe("topic-4 even: begin topic-4 (topic-4)");
  });

  it("persists each concurrent run under its own id", async () => {
    const persistence = new InMemoryFlowPersistence();
    @persist(persistence)
    class Saved extends Research {}
    const flow = new Saved();
    const ids: string[] = [];
    eventBus.on("flow_started", (event) => void ids.push(event.flowId));
    await Promise.all(topics.slice(0, 6).map((topic) => flow.kickoff({ topic })));
    const states = await Promise.all(ids.map((id) => persistence.loadState(id)));
    expect(states.map((s) => s?.topic).sort()).toEqual(topics.slice(0, 6).sort());
  });

  it("explains a #private field a concurrent kickoff cannot read", async () => {
    class Secretive extends Flow<{ n: number }> {
      override initialState = { n: 0 };
      #calls = 0;
      @start() async begin() {
        await tick(1);
        this.#calls++;
        return this.#calls;
      }
    }
    const flow = new Secretive();
    const [first, second] = await Promise.allSettled([flow.kickoff(), flow.kickoff()]);
    expect(first).toEqual({ status: "fulfilled", value: 1 });
    expect(second.status).toBe("rejected");
    const error = (second as PromiseRejectedResult).reason as Error;
    expect(error).toBeInstanceOf(FlowStateError);
    expect(error.message).toMatch(/#private field.*one flow instance per kickoff/s);
  });
});
