import { afterEach, describe, expect, it, vi } from "vitest";
import { EventBus, eventBus } from "../../src/events/index.js";

describe("EventBus", () => {
  const bus = new EventBus();
  afterEach(() => bus.clear());

  it("delivers typed events with id and timestamp, and on() returns an unsubscribe function", () => {
    const seen: string[] = [];
    const off = bus.on("task_started", (e) => {
      seen.push(`${e.type}:${e.taskId}:${e.context}`);
      expect(e.eventId).toMatch(/^[0-9a-f-]{36}$/);
      expect(e.timestamp).toBeInstanceOf(Date);
    });
    bus.emit("task_started", { taskId: "t1", context: "ctx" });
    off();
    bus.emit("task_started", { taskId: "t2", context: "" });
    expect(seen).toEqual(["task_started:t1:ctx"]);
  });

  it("skips building events nobody listens to", () => {
    expect(bus.hasListeners("task_failed")).toBe(false);
    expect(bus.emit("task_failed", { taskId: "x", error: "e" })).toBeUndefined();
    const off = bus.onAny(() => undefined);
    expect(bus.hasListeners("task_failed")).toBe(true);
    off();
  });

  it("knows whether anyone listens through repeated subscriptions, unsubscribes and clear()", () => {
    const handler = () => undefined;
    const offA = bus.on("task_failed", handler);
    const offB = bus.on("task_failed", handler); // the same handler again: one subscription
    offB();
    expect(bus.hasListeners("task_failed")).toBe(false);
    offA(); // unsubscribing twice changes nothing
    const offAny = bus.onAny(handler);
    const offOther = bus.on("task_started", handler);
    bus.clear();
    expect(bus.hasListeners("task_started")).toBe(false);
    // Unsubscribe functions from before clear() must not hide a subscription made after it.
    offAny();
    offOther();
    const offNew = bus.on("task_started", handler);
    offOther();
    expect(bus.hasListeners("task_started")).toBe(true);
    expect(bus.hasListeners("task_failed")).toBe(false);
    offNew();
    expect(bus.hasListeners("task_started")).toBe(false);
  });

  it("reports a throwing handler and keeps delivering to the others", () => {
    const reported: string[] = [];
    bus.onHandlerError((error, event) => reported.push(`${event.type}:${(error as Error).message}`));
    const after = vi.fn();
    bus.on("tool_usage_error", () => {
      throw new Error("observer bug");
    });
    bus.on("tool_usage_error", after);
    expect(() => bus.emit("tool_usage_error", { toolName: "t", toolArgs: {}, error: "x" })).not.toThrow();
    expect(after).toHaveBeenCalledOnce();
    expect(reported).toEqual(["tool_usage_error:observer bug"]);
  });

  it("reports a rejecting async handler without an unhandled rejection", async () => {
    const reported = new Promise<string>((resolve) => bus.onHandlerError((error) => resolve((error as Error).message)));
    bus.on("flow_started", async () => {
      await Promise.resolve();
      throw new Error("async observer bug");
    });
    bus.emit("flow_started", { flowName: "F", flowId: "1", inputs: {} });
    await expect(reported).resolves.toBe("async observer bug");
  });

  it("once() fires a single time and wildcard handlers see every type", () => {
    const once = vi.fn();
    const all: string[] = [];
    bus.once("crew_kickoff_started", once);
    bus.onAny((e) => void all.push(e.type));
    bus.emit("crew_kickoff_started", { crewId: "c", inputs: {} });
    bus.emit("crew_kickoff_started", { crewId: "c", inputs: {} });
    expect(once).toHaveBeenCalledOnce();
    expect(all).toEqual(["crew_kickoff_started", "crew_kickoff_started"]);
  });

  it("the default reporter writes one line to stderr", () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const local = new EventBus();
    local.on("task_completed", () => {
      throw new Error("boom");
    });
    local.emit("task_completed", { taskId: "t", output: "o" });
    expect(spy).toHaveBeenCalledWith(expect.stringContaining('event handler for "task_completed" threw'));
    spy.mockRestore();
  });

  it("exports one process-wide bus", () => {
    expect(eventBus).toBeInstanceOf(EventBus);
  });
});
