import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callCounts, runKillableChild, type ChildRun } from "./fixtures/killChild.js";
import { listCheckpoints, loadCheckpoint } from "../../../src/runtime/checkpoint/checkpointStores.js";
import { isCrewProgress, isFlowProgress, type Checkpoint } from "../../../src/runtime/checkpoint/types.js";
import { SweepFlow, sweepCrew } from "./fixtures/sweepWorkloads.js";

// Kill sweep: the crew and the flow of fixtures/sweepWorkloads.ts run in child processes that are
// killed with SIGKILL at every line they print (each checkpoint written, each method or model call
// started) and again a random moment after it; each killed run is then resumed here from its latest
// checkpoint. Every resumed run must end as an uninterrupted one did, and run exactly the calls the
// checkpoint did not record (so nothing recorded as finished ran twice).

const child = join(import.meta.dirname, "fixtures/sweepChild.ts");
type Kind = "crew" | "flow";
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "crewts-kill-sweep-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs the child; kills it with SIGKILL once it printed line `killAt` (after `delayMs` when given). */
function runChild(kind: Kind, dir: string, killAt?: number, delayMs = 0): Promise<ChildRun> {
  return runKillableChild(child, [kind], dir, killAt, delayMs);
}

/** What the checkpoint records as finished, in the names the workloads append to the calls file. */
function recorded(cp: Checkpoint | undefined): Map<string, number> {
  const map = new Map<string, number>();
  if (!cp) return map;
  const add = (name: string) => map.set(name, (map.get(name) ?? 0) + 1);
  if (isFlowProgress(cp.progress)) {
    for (const entry of cp.progress.journal) {
      add(entry.method);
      // The crew inside `research` finished with it: its model calls are recorded by the method's entry.
      if (entry.method === "research") for (const call of ["flowcrew:x", "flowcrew:y"]) add(call);
    }
  }
  if (isCrewProgress(cp.progress)) for (const t of cp.progress.tasks) if (!t.skipped) add(`crew:${/step-(\w+)/.exec(String(t.output.description))![1]}`);
  return map;
}

/** Resumes in this process from the latest checkpoint (or starts afresh when none was written). */
async function resume(kind: Kind, dir: string): Promise<{ result: unknown; state?: unknown; cp: Checkpoint | undefined }> {
  const location = join(dir, "cps");
  const latest = (await listCheckpoints(location)).at(-1);
  const cp = latest ? await loadCheckpoint(latest.id, { location }) : undefined;
  process.env.CALLS_FILE = join(dir, "resumed.txt");
  try {
    const options = cp ? { fromCheckpoint: cp.id } : {};
    if (kind === "crew") {
      const out = await sweepCrew(location).kickoff({ topic: "tides" }, options);
      return { result: out.tasksOutput.map((t) => t.raw), cp };
    }
    const flow = new SweepFlow({ checkpoint: { location } });
    const result = await flow.kickoff(undefined, options);
    const { id: _id, ...state } = flow.state as unknown as Record<string, unknown>;
    return { result, state, cp };
  } finally {
    delete process.env.CALLS_FILE;
  }
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

describe("kill sweep", () => {
  it("resumes a crew and a flow killed at every checkpoint boundary and at random points between", async () => {
    const baselines = new Map<Kind, { lines: string[]; calls: Map<string, number>; result: unknown; state?: unknown }>();
    for (const kind of ["crew", "flow"] as const) {
      const dir = await mkdtemp(join(root, `${kind}-baseline-`));
      const run = await runChild(kind, dir);
      // The same workload run here uninterrupted gives the outputs every resumed run must end with.
      const here = await mkdtemp(join(root, `${kind}-inproc-`));
      const full = await resume(kind, here);
      baselines.set(kind, { lines: run.lines.filter((l) => !l.startsWith("DONE")), calls: await callCounts(join(dir, "calls.txt")), result: full.result, ...(full.state ? { state: full.state } : {}) });
      expect(await callCounts(join(here, "resumed.txt"))).toEqual(await callCounts(join(dir, "calls.txt")));
    }

    // Every line is a boundary; 16 more kills land a random 1-3 ms after a random line.
    const points: { kind: Kind; at: number; delayMs: number }[] = [];
    for (const [kind, base] of baselines) for (let at = 0; at < base.lines.length; at++) points.push({ kind, at, delayMs: 0 });
    const boundaries = points.length;
    for (let i = 0; i < 16; i++) {
      const { kind, at } = points[Math.floor(Math.random() * boundaries)]!;
      points.push({ kind, at, delayMs: 1 + Math.floor(Math.random() * 3) });
    }
    expect(points.length).toBeGreaterThanOrEqual(50);

    const killed = await mapLimit(points, 4, async (point) => {
      const dir = await mkdtemp(join(root, `${point.kind}-${point.at}-`));
      const run = await runChild(point.kind, dir, point.at, point.delayMs);
      return { ...point, dir, run };
    });

    let resumedFromCheckpoint = 0;
    for (const point of killed) {
      const base = baselines.get(point.kind)!;
      const where = `${point.kind} killed at line ${point.at} (${base.lines[point.at]}) +${point.delayMs}ms`;
      const first = await callCounts(join(point.dir, "calls.txt"));
      const out = await resume(point.kind, point.dir);
      if (out.cp) resumedFromCheckpoint++;
      const done = recorded(out.cp);
      const again = await callCounts(join(point.dir, "resumed.txt"));
      expect(out.result, where).toEqual(base.result);
      if (base.state) expect(out.state, where).toEqual(base.state);
      for (const [name, total] of base.calls) {
        const before = done.get(name) ?? 0;
        // What the checkpoint records did run in the killed process, and runs no more.
        expect(first.get(name) ?? 0, `${where}: ${name} ran before the kill`).toBeGreaterThanOrEqual(before);
        expect(again.get(name) ?? 0, `${where}: ${name} after resume`).toBe(total - before);
      }
    }
    expect(resumedFromCheckpoint).toBeGreaterThan(points.length / 2);
  }, 300_000);
});
