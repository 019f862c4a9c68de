import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventBus } from "../../../src/events/index.js";
import { Flow, listen, router, start } from "../../../src/flow/index.js";
import { checkpointStoreFor, listCheckpointInfos, listCheckpoints, loadCheckpoint } from "../../../src/runtime/checkpoint/checkpointStores.js";
import type { CheckpointConfig, FlowProgress } from "../../../src/runtime/checkpoint/types.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-cp-flow-"));
});
afterEach(async () => {
  eventBus.clear();
  await rm(dir, { recursive: true, force: true });
});

const ran: string[] = [];

/** A router loop that fails once at round `failAt` (a crash stand-in) unless `failAt` is 0. */
class LoopFlow extends Flow<{ round: number; failAt: number; payload: string }> {
  override initialState = { round: 0, failAt: 0, payload: "" };
  constructor(checkpoint: boolean | CheckpointConfig) {
    super({ checkpoint });
  }
  @start() begin() {
    ran.push("begin");
    return "go";
  }
  @router("begin") check() {
    ran.push(`check${this.state.round}`);
    return this.state.round < 4 ? "more" : "stop";
  }
  @listen("more") step() {
    ran.push(`step${this.state.round}`);
    if (this.state.failAt === this.state.round + 1) throw new Error("crash");
    this.state.round += 1;
    this.state.payload = "p".repeat(1024);
    return this.state.round;
  }
  @router("step") again() {
    return this.state.round < 4 ? "more" : "stop";
  }
  @listen("stop") end() {
    ran.push("end");
    return `rounds ${this.state.round}`;
  }
}

describe("flow checkpoints and resume", () => {
  for (const provider of ["sqlite", "json"] as const) {
    it(`resumes a router loop after the methods that finished (${provider})`, async () => {
      ran.length = 0;
      const location = dir;
      await expect(new LoopFlow({ location, provider }).kickoff({ failAt: 3 })).rejects.toThrow("crash");
      expect(ran).toEqual(["begin", "check0", "step0", "step1", "step2"]);
      const latest = (await listCheckpoints(location)).at(-1)!;
      const cp = await loadCheckpoint(latest.id, { location });
      expect(cp.kind).toBe("flow");
      expect((cp.progress as FlowProgress).state).toMatchObject({ round: 2, failAt: 3 });
      expect((cp.progress as FlowProgress).journal.map((e) => e.method)).toEqual(["begin", "check", "step", "again", "step", "again"]);

      ran.length = 0;
      const flow = new LoopFlow({ location, provider });
      expect(await flow.kickoff({ failAt: 0 }, { fromCheckpoint: latest.id })).toBe("rounds 4");
      expect(ran).toEqual(["step2", "step3", "end"]);
      expect(flow.state.round).toBe(4);
      expect(flow.methodOutputs).toEqual(["go", "more", 1, "more", 2, "more", 3, "more", 4, "stop", "rounds 4"]);
    });
  }

  it("forks a flow checkpoint into a new branch", async () => {
    await expect(new LoopFlow({ location: dir }).kickoff({ failAt: 2 })).rejects.toThrow();
    const origin = (await listCheckpoints(dir)).at(-1)!;
    const fork = await LoopFlow.fork(origin.id, { branch: "b2", location: dir });
    expect(fork).toMatchObject({ kind: "flow", branch: "b2", parentId: origin.id });
    ran.length = 0;
    expect(await new LoopFlow({ location: dir }).kickoff({ failAt: 0 }, { fromCheckpoint: fork.id })).toBe("rounds 4");
    expect(ran[0]).toBe("step1");
    expect((await listCheckpoints(dir, { branch: "b2" })).length).toBeGreaterThan(1);
  });

  it("refuses a crew checkpoint, and a flow of another class", async () => {
    class Other extends Flow {
      @start() go() {
        return 1;
      }
    }
    await new Other({ checkpoint: { location: dir } }).kickoff();
    const id = (await listCheckpoints(dir)).at(-1)!.id;
    await expect(new LoopFlow({ location: dir }).kickoff({}, { fromCheckpoint: id })).rejects.toThrow(/written by flow "Other", not "LoopFlow"/);
  });

  it("grows the SQLite store by what changed per step, not by the whole history", async () => {
    class Counter extends Flow<{ n: number; blob: string; fixed: string }> {
      override initialState = { n: 0, blob: "", fixed: "f".repeat(4096) };
      override maxMethodCalls = 1000;
      @start() tick() {
        this.state.n += 1;
        this.state.blob = String(this.state.n).padStart(1024, "x");
      }
      @router("tick") loop() {
        return this.state.n < 300 ? "tick-again" : "done";
      }
      @start("tick-again") retick() {
        return this.tick();
      }
      @router("retick") loop2() {
        return this.state.n < 300 ? "tick-again" : "done";
      }
    }
    await new Counter({ checkpoint: { location: dir } }).kickoff();
    // Closing folds the write-ahead log into the file, which then holds everything.
    await checkpointStoreFor({ location: dir }).close?.();
    const size = (await stat(join(dir, "checkpoints.db"))).size;
    const checkpoints = (await listCheckpointInfos(dir)).length;
    expect(checkpoints).toBeGreaterThan(590);
    // A whole-state write would be over 5 KB per checkpoint (the 4 KB field never changes).
    expect(size / checkpoints).toBeLessThan(2048);
  });
});
