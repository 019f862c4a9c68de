import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CrewtsEvent, eventBus } from "../../src/events/index.js";
import { Flow, flowGraph, listen, start } from "../../src/flow/index.js";

afterEach(() => {
  eventBus.clear();
});

class Named extends Flow {
  name = "my_flow";
  @start() first() {
    return "one";
  }
  @listen("first") second() {
    throw new Error("boom");
  }
}

class Getter extends Flow {
  get name(): string {
    return "from_getter";
  }
  @start() only() {
    return "done";
  }
}

class Unnamed extends Flow {
  @start() only() {
    return "done";
  }
}

async function eventsOf(flow: Flow): Promise<CrewtsEvent[]> {
  const events: CrewtsEvent[] = [];
  eventBus.onAny((e) => {
    events.push(e);
  });
  await flow.kickoff().catch(() => undefined);
  return events;
}

describe("a flow's name property (as CrewAI's Flow.name)", () => {
  it("names the flow in flow and method events instead of the class", async () => {
    const events = await eventsOf(new Named());
    expect(events.map((e) => e.type)).toEqual(["flow_started", "method_execution_started", "method_execution_finished", "method_execution_started", "method_execution_failed"]);
    for (const e of events) expect(e).toMatchObject({ flowName: "my_flow" });
  });

  it("reads a getter, and falls back to the class name without one", async () => {
    const named = await eventsOf(new Getter());
    expect(named.map((e) => (e as { flowName?: string }).flowName)).toEqual(["from_getter", "from_getter", "from_getter", "from_getter"]);
    eventBus.clear();
    const unnamed = await eventsOf(new Unnamed());
    expect(unnamed[0]).toMatchObject({ type: "flow_started", flowName: "Unnamed" });
    expect(unnamed.at(-1)).toMatchObject({ type: "flow_finished", flowName: "Unnamed" });
  });

  it("titles the graph and the plot", async () => {
    expect(flowGraph(new Named()).name).toBe("my_flow");
    expect(flowGraph(new Getter()).name).toBe("from_getter");
    expect(flowGraph(Named).name).toBe("Named");
    const dir = await mkdtemp(join(tmpdir(), "crewts-flow-name-"));
    try {
      const html = await readFile(await new Getter().plot(join(dir, "plot")), "utf8");
      expect(html).toContain("<title>from_getter");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
