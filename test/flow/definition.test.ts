import { afterEach, describe, expect, it, vi } from "vitest";
import { and, Flow, FlowDefinitionError, flowGraph, listen, or, router, start } from "../../src/flow/index.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Flow definition", () => {
  it("rejects a method that listens to itself, naming it", () => {
    class SelfListening extends Flow {
      @start() begin() {}
      @listen(or("begin", "echo")) echo() {}
    }
    expect(() => new SelfListening()).toThrow(FlowDefinitionError);
    expect(() => new SelfListening()).toThrow(/^Invalid flow definition in SelfListening: method "echo" listens to itself/);
  });

  it("rejects a flow without a start method", () => {
    class NoStart extends Flow {
      @listen("x") y() {}
    }
    expect(() => new NoStart()).toThrow(/Invalid flow definition in NoStart: no @start\(\) method/);
  });

  it("warns once per class about a trigger that is no method when no router could emit it", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    class Typo extends Flow {
      @start() begin() {}
      @listen("begni") next() {}
    }
    new Typo();
    new Typo();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/Typo: "next" listens to "begni", which is not a method of this flow, and the flow has no router that could emit it/);
  });

  it("warns about a conditional start in a flow without routers", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    class Stranded extends Flow {
      @start() begin() {}
      @start("go") later() {}
    }
    new Stranded();
    expect(String(warn.mock.calls[0]![0])).toMatch(/conditional start "later" waits for "go", but only a router's return value starts it/);
  });

  it("accepts unknown trigger names when the flow has a router that may emit them", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    class Routed extends Flow {
      @start() begin() {}
      @router("begin") decide() {
        return "approved";
      }
      @listen("approved") ship() {}
    }
    new Routed();
    expect(warn).not.toHaveBeenCalled();
  });

  it("warns about a label outside every router's declared emit list", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    class Declared extends Flow {
      @start() begin() {}
      @router("begin", { emit: ["approved", "rejected"] }) decide() {
        return "approved";
      }
      @listen("aproved") ship() {}
    }
    new Declared();
    expect(String(warn.mock.calls[0]![0])).toMatch(/"ship" waits for "aproved", which no router declares in its emit list/);
  });

  it("rejects non-conditions in and()/or() and private methods", () => {
    expect(() => and()).toThrow(/at least one condition/);
    expect(() => or("a", 3 as unknown as string)).toThrow(/Invalid condition in or\(\)/);
    expect(() => {
      class Private extends Flow {
        @start() #hidden() {}
        run() {
          this.#hidden();
        }
      }
      return Private;
    }).toThrow(/public instance methods/);
  });

  it("inherits decorated methods through subclasses of subclasses, and lets overrides replace them", async () => {
    const ran: string[] = [];
    class Base extends Flow {
      @start() begin() {
        ran.push("base.begin");
      }
      @listen("begin") middle() {
        ran.push("base.middle");
      }
    }
    class Child extends Base {
      @listen("middle") end() {
        ran.push("child.end");
      }
    }
    class GrandChild extends Child {
      @listen("begin") override middle() {
        ran.push("grandchild.middle");
      }
    }
    await new GrandChild().kickoff();
    expect(ran).toEqual(["base.begin", "grandchild.middle", "child.end"]);
    ran.length = 0;
    await new Child().kickoff();
    expect(ran).toEqual(["base.begin", "base.middle", "child.end"]);
  });

  it("lets @router() stack with @start() to route from an entry point", async () => {
    const ran: string[] = [];
    class StartRouter extends Flow {
      @start()
      @router()
      entry() {
        return "left";
      }
      @listen("left") goLeft() {
        ran.push("left");
      }
    }
    await new StartRouter().kickoff();
    expect(ran).toEqual(["left"]);
  });

  it("describes the flow as a graph for plots", () => {
    class Graphed extends Flow {
      @start() a() {}
      @start() b() {}
      @listen("a") c() {}
      @listen(and("a", "b")) d() {}
      @listen(or("c", "d")) e() {}
      @router("e") decide() {
        return "again";
      }
      @start("again") loop() {}
      @listen("done") finish() {}
    }
    const graph = flowGraph(Graphed);
    expect(graph.name).toBe("Graphed");
    expect(graph.nodes).toEqual([
      { id: "a", kind: "start" },
      { id: "b", kind: "start" },
      { id: "c", kind: "listen" },
      { id: "d", kind: "listen" },
      { id: "e", kind: "listen" },
      { id: "decide", kind: "router" },
      { id: "loop", kind: "start", conditionalStart: true },
      { id: "finish", kind: "listen" },
    ]);
    expect(graph.edges).toEqual(
      expect.arrayContaining([
        { from: "a", to: "c", kind: "listen" },
        { from: "a", to: "d", kind: "and", label: "a AND b" },
        { from: "b", to: "d", kind: "and", label: "a AND b" },
        { from: "c", to: "e", kind: "or", label: "c OR d" },
        { from: "d", to: "e", kind: "or", label: "c OR d" },
        { from: "e", to: "decide", kind: "listen" },
        { from: "decide", to: "loop", kind: "router", label: "again" },
        { from: "decide", to: "finish", kind: "router", label: "done" },
      ]),
    );
    expect(graph.edges).toHaveLength(8);
    expect(flowGraph(new Graphed())).toEqual(graph);
  });

  it("draws no router edge into a listener whose and(...) needs the label, as CrewAI's direct-trigger rule", () => {
    class Joined extends Flow {
      @start() a() {}
      @router("a") decide() {
        return "go";
      }
      @router("a", { emit: ["ok"] }) check() {
        return "ok";
      }
      @listen(and("go", "a")) both() {}
      @listen(or("go", and("ok", "a"))) either() {}
      @listen(and("ok", "a")) declared() {}
    }
    const routerEdges = flowGraph(Joined).edges.filter((e) => e.kind === "router");
    expect(routerEdges).toEqual([{ from: "decide", to: "either", kind: "router", label: "go" }]);
    const andEdges = flowGraph(Joined).edges.filter((e) => e.to === "both");
    expect(andEdges).toEqual([{ from: "a", to: "both", kind: "and", label: "go AND a" }]);
  });

  it("draws router edges only for declared labels when a router declares emit", () => {
    class Emitting extends Flow {
      @start() a() {}
      @router("a", { emit: ["yes"] }) r1() {
        return "yes";
      }
      @router("a", { emit: ["no"] }) r2() {
        return "no";
      }
      @listen("yes") onYes() {}
      @listen("no") onNo() {}
    }
    const routerEdges = flowGraph(Emitting).edges.filter((e) => e.kind === "router");
    expect(routerEdges).toEqual([
      { from: "r1", to: "onYes", kind: "router", label: "yes" },
      { from: "r2", to: "onNo", kind: "router", label: "no" },
    ]);
  });
});
