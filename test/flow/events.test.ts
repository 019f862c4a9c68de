import { afterEach, describe, expect, it } from "vitest";
import { type CrewtsEvent, eventBus } from "../../src/events/index.js";
import { Flow, listen, start } from "../../src/flow/index.js";

afterEach(() => {
  eventBus.clear();
});

class Observed extends Flow<{ steps: string[] }> {
  override initialState = { steps: [] as string[] };
  @start() first() {
    this.state.steps.push("first");
    return "one";
  }
  @listen("first") second() {
    this.state.steps.push("second");
    return "two";
  }
}

describe("Flow events", () => {
  it("emits flow_started, method_execution_started/finished per method and flow_finished, with ids and payloads", async () => {
    const events: CrewtsEvent[] = [];
    eventBus.onAny((e) => {
      events.push(e);
    });
    const flow = new Observed();
    await flow.kickoff({ id: "flow-1", topic: "x" });

    expect(events.map((e) => e.type)).toEqual([
      "flow_started",
      "method_execution_started",
      "method_execution_finished",
      "method_execution_started",
      "method_execution_finished",
      "flow_finished",
    ]);
    for (const e of events) expect(e).toMatchObject({ flowName: "Observed", flowId: "flow-1" });
    expect(events[0]).toMatchObject({ inputs: { id: "flow-1", topic: "x" } });
    expect(events[1]).toMatchObject({ methodName: "first", state: { steps: [] } });
    // Snapshots: the finished event of `first` shows the state as it was then, not as it ended.
    expect(events[2]).toMatchObject({ methodName: "first", result: "one", state: { steps: ["first"] } });
    expect(events[4]).toMatchObject({ methodName: "second", result: "two", state: { steps: ["first", "second"] } });
    const finished = events[5] as CrewtsEvent<"flow_finished">;
    expect(finished.result).toBe("two");
    expect(finished.durationMs).toBeGreaterThanOrEqual(0);
    expect((events[2] as CrewtsEvent<"method_execution_finished">).durationMs).toBeGreaterThanOrEqual(0);
  });

  it("emits method_execution_failed with the error message and no flow_finished", async () => {
    class Failing extends Flow {
      @start() breaks() {
        throw new Error("nope");
      }
    }
    const types: string[] = [];
    let failed: CrewtsEvent<"method_execution_failed"> | undefined;
    eventBus.onAny((e) => {
      types.push(e.type);
    });
    eventBus.on("method_execution_failed", (e) => {
      failed = e;
    });
    await expect(new Failing().kickoff()).rejects.toThrow("nope");
    expect(types).toEqual(["flow_started", "method_execution_started", "method_execution_failed"]);
    expect(failed).toMatchObject({ flowName: "Failing", methodName: "breaks", error: "nope" });
    expect(failed!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("builds no payload when nobody listens", async () => {
    let cloned = 0;
    const original = globalThis.structuredClone;
    globalThis.structuredClone = ((value: unknown) => {
      cloned += 1;
      return original(value);
    }) as typeof structuredClone;
    try {
      const flow = new Observed();
      void flow.state; // the initial copy is not per step
      cloned = 0;
      await flow.kickoff();
      expect(cloned).toBe(0);
    } finally {
      globalThis.structuredClone = original;
    }
  });
});
