import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Flow, FlowStateError, start } from "../../src/flow/index.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("Flow state", () => {
  it("starts from a plain initialState copied per instance, with a uuid id", async () => {
    class Plain extends Flow<{ counter: number; items: string[] }> {
      override initialState = { counter: 0, items: [] as string[] };
      @start() add() {
        this.state.counter += 1;
        this.state.items.push("x");
      }
    }
    const a = new Plain();
    const b = new Plain();
    await a.kickoff();
    expect(a.state).toMatchObject({ counter: 1, items: ["x"] });
    expect(b.state).toMatchObject({ counter: 0, items: [] });
    expect(a.state.id).toMatch(UUID);
    expect(a.state.id).not.toBe(b.state.id);
  });

  it("has an id and accepts any fields without initialState", async () => {
    class Untyped extends Flow {
      @start() write() {
        this.state.written = true;
      }
    }
    const flow = new Untyped();
    expect(flow.state.id).toMatch(UUID);
    await flow.kickoff({ topic: "AI" });
    expect(flow.state).toMatchObject({ topic: "AI", written: true });
  });

  it("merges kickoff inputs into the state and keeps a given id", async () => {
    class Inputs extends Flow<{ topic: string; limit: number }> {
      override initialState = { topic: "none", limit: 3 };
      @start() read() {
        return `${this.state.topic}/${this.state.limit}`;
      }
    }
    const flow = new Inputs();
    expect(await flow.kickoff({ topic: "agents", id: "my-id" })).toBe("agents/3");
    expect(flow.state).toEqual({ topic: "agents", limit: 3, id: "my-id" });
  });

  it("keeps the id across kickoffs of one instance", async () => {
    class Twice extends Flow {
      @start() noop() {}
    }
    const flow = new Twice();
    const id = flow.state.id;
    await flow.kickoff();
    await flow.kickoff({ more: 1 });
    expect(flow.state.id).toBe(id);
  });

  it("applies a zod schema's defaults and validates inputs against it", async () => {
    const State = z.object({ topic: z.string().default("AI"), count: z.number().int().min(0).default(0), tags: z.array(z.string()).default([]) });
    class Typed extends Flow<z.infer<typeof State>> {
      override initialState = State;
      @start() bump() {
        this.state.count += 1;
        this.state.tags.push(this.state.topic);
        return this.state.count;
      }
    }
    const flow = new Typed();
    expect(flow.state).toMatchObject({ topic: "AI", count: 0, tags: [] });
    expect(await flow.kickoff({ topic: "flows" })).toBe(1);
    expect(flow.state).toMatchObject({ topic: "flows", count: 1, tags: ["flows"] });
    expect(new Typed().state.tags).toEqual([]);

    const error = await new Typed().kickoff({ count: -2 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowStateError);
    expect((error as Error).message).toMatch(/^Invalid state for flow Typed: count: .*>=0/);
  });

  it("keeps the id with a strict schema that does not declare it", async () => {
    const State = z.strictObject({ n: z.number().default(1) });
    class Strict extends Flow<z.infer<typeof State>> {
      override initialState = State;
      @start() read() {
        return this.state.n;
      }
    }
    const flow = new Strict();
    expect(await flow.kickoff({ id: "fixed", n: 2 })).toBe(2);
    expect(flow.state).toEqual({ n: 2, id: "fixed" });
  });

  it("reports a missing required field with its path", () => {
    const State = z.object({ user: z.object({ name: z.string() }) });
    class Required extends Flow<z.infer<typeof State>> {
      override initialState = State;
      @start() noop() {}
    }
    expect(() => new Required().state).toThrow(/Invalid state for flow Required: user: /);
  });

  it("takes required schema fields from the first kickoff's inputs", async () => {
    const State = z.object({ user: z.string(), greeting: z.string().default("hi") });
    class Greeter extends Flow<z.infer<typeof State>> {
      override initialState = State;
      @start() greet() {
        return `${this.state.greeting} ${this.state.user}`;
      }
    }
    expect(await new Greeter().kickoff({ user: "ada" })).toBe("hi ada");
  });
});
