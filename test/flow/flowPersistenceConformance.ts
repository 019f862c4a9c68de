import { afterEach, describe, expect, it } from "vitest";
import type { FlowPersistence } from "../../src/flow/index.js";

/**
 * The behaviour every FlowPersistence backend must have. `factory` returns a fresh, empty backend;
 * the suite closes it after each test when it has `close()`.
 */
export function describeFlowPersistence(name: string, factory: () => FlowPersistence | Promise<FlowPersistence>): void {
  describe(`FlowPersistence conformance: ${name}`, () => {
    let opened: FlowPersistence[] = [];
    const make = async (): Promise<FlowPersistence> => {
      const backend = await factory();
      opened.push(backend);
      return backend;
    };
    afterEach(async () => {
      for (const backend of opened) await backend.close?.();
      opened = [];
    });

    it("returns undefined for an unknown flow id", async () => {
      const p = await make();
      expect(await p.loadState("no-such-flow")).toBeUndefined();
    });

    it("round-trips a state with nested values", async () => {
      const p = await make();
      const state = { id: "f1", counter: 3, nested: { list: [1, "two", { three: true }], empty: null }, text: "héllo \"quoted\"" };
      await p.saveState("f1", "step_one", state);
      expect(await p.loadState("f1")).toEqual(state);
    });

    it("loads the latest save of a flow", async () => {
      const p = await make();
      await p.saveState("f1", "a", { id: "f1", step: 1 });
      await p.saveState("f1", "b", { id: "f1", step: 2 });
      await p.saveState("f1", "c", { id: "f1", step: 3 });
      expect(await p.loadState("f1")).toEqual({ id: "f1", step: 3 });
    });

    it("keeps flows apart", async () => {
      const p = await make();
      await p.saveState("f1", "a", { id: "f1", who: "one" });
      await p.saveState("f2", "a", { id: "f2", who: "two" });
      expect(await p.loadState("f1")).toEqual({ id: "f1", who: "one" });
      expect(await p.loadState("f2")).toEqual({ id: "f2", who: "two" });
    });

    it("stores a copy: later changes to the live state do not leak in", async () => {
      const p = await make();
      const state: Record<string, unknown> = { id: "f1", list: [1] };
      await p.saveState("f1", "a", state);
      (state.list as number[]).push(2);
      state.extra = true;
      expect(await p.loadState("f1")).toEqual({ id: "f1", list: [1] });
    });

    it("returns a fresh object each load", async () => {
      const p = await make();
      await p.saveState("f1", "a", { id: "f1", list: [1] });
      const first = await p.loadState("f1");
      (first!.list as number[]).push(99);
      expect(await p.loadState("f1")).toEqual({ id: "f1", list: [1] });
    });

    it("stores values the way JSON does (dates become ISO strings, undefined fields vanish)", async () => {
      const p = await make();
      await p.saveState("f1", "a", { id: "f1", when: new Date("2024-01-02T03:04:05.000Z"), gone: undefined });
      expect(await p.loadState("f1")).toEqual({ id: "f1", when: "2024-01-02T03:04:05.000Z" });
    });

    it("handles concurrent saves of one flow, loading one of them whole", async () => {
      const p = await make();
      await Promise.all(Array.from({ length: 20 }, (_, i) => p.saveState("f1", `m${i}`, { id: "f1", i })));
      const loaded = await p.loadState("f1");
      expect(loaded).toMatchObject({ id: "f1" });
      expect(typeof loaded!.i).toBe("number");
    });

    it("keeps the finished methods of a run with the state, in order, until cleared (when it keeps progress)", async () => {
      const p = await make();
      if (!p.loadProgress || !p.clearProgress) return;
      await p.saveState("f1", "a", { id: "f1", n: 1 }, { method: "a", result: { ok: true } });
      await p.saveState("f1", "b", { id: "f1", n: 2 }, { method: "b", result: "go" });
      await p.saveState("f2", "a", { id: "f2" }, { method: "a", result: 7 });
      await p.saveState("f1", "c", { id: "f1", n: 3 });
      expect(await p.loadProgress("f1")).toEqual([
        { method: "a", result: { ok: true } },
        { method: "b", result: "go" },
      ]);
      await p.clearProgress("f1");
      expect(await p.loadProgress("f1")).toEqual([]);
      expect(await p.loadProgress("f2")).toEqual([{ method: "a", result: 7 }]);
      expect(await p.loadState("f1")).toEqual({ id: "f1", n: 3 });
    });
  });
}
