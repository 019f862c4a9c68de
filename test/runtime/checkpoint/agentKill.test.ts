import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callCounts, runKillableChild } from "./fixtures/killChild.js";
import { listCheckpoints, loadCheckpoint } from "../../../src/runtime/checkpoint/checkpointStores.js";
import type { AgentProgress, Checkpoint } from "../../../src/runtime/checkpoint/types.js";
import { SURVEY_REQUEST, surveyor } from "./fixtures/agentWorkload.js";

// A standalone agent run in a child process is killed with SIGKILL at every line it prints (each
// checkpoint written, each model reply and tool result) and a random moment after some of them, then
// resumed here from its latest checkpoint: it must end with the uninterrupted run's answer and usage,
// and run exactly the model calls and tool calls its checkpoint did not record.

const child = join(import.meta.dirname, "fixtures/agentChild.ts");
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "crewts-agent-kill-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Runs the child; kills it with SIGKILL once it printed line `killAt` (after `delayMs` when given). */
async function runChild(dir: string, killAt?: number, delayMs = 0): Promise<string[]> {
  return (await runKillableChild(child, [], dir, killAt, delayMs)).lines;
}

/** The model calls and tool calls a checkpoint records as done, in the names the workload writes. */
function recorded(cp: Checkpoint | undefined): Map<string, number> {
  const map = new Map<string, number>();
  if (!cp) return map;
  map.set("llm", cp.usage.successfulRequests);
  for (const m of (cp.progress as AgentProgress).run?.messages ?? []) {
    if (m.role === "tool") map.set(`tool:${m.content.split("=")[0]}`, (map.get(`tool:${m.content.split("=")[0]}`) ?? 0) + 1);
  }
  return map;
}

async function resume(dir: string): Promise<{ raw: string; usage: unknown; cp: Checkpoint | undefined }> {
  const location = join(dir, "cps");
  const latest = (await listCheckpoints(location)).at(-1);
  const cp = latest ? await loadCheckpoint(latest.id, { location }) : undefined;
  process.env.CALLS_FILE = join(dir, "resumed.txt");
  try {
    const out = await surveyor(location).kickoff(cp ? "" : SURVEY_REQUEST, cp ? { fromCheckpoint: cp.id } : {});
    return { raw: out.raw, usage: out.usageMetrics, cp };
  } finally {
    delete process.env.CALLS_FILE;
  }
}

describe("agent kill test", () => {
  it("resumes a standalone agent killed at every checkpoint boundary and at random points between", async () => {
    const baseDir = await mkdtemp(join(root, "baseline-"));
    const all = await runChild(baseDir);
    expect(all.at(-1)).toBe(`DONE ${JSON.stringify("tide=1, wave=2, wind=3")}`);
    const baseLines = all.filter((l) => !l.startsWith("DONE"));
    const total = await callCounts(join(baseDir, "calls.txt"));
    expect(total).toEqual(new Map([["llm", 3], ["tool:tide", 1], ["tool:wave", 1], ["tool:wind", 1]]));
    expect(baseLines.filter((l) => l.startsWith("CP "))).toHaveLength(7);
    const here = await mkdtemp(join(root, "inproc-"));
    const base = await resume(here);
    expect(base.raw).toBe("tide=1, wave=2, wind=3");

    const points = baseLines.map((_, at) => ({ at, delayMs: 0 }));
    for (let i = 0; i < 6; i++) points.push({ at: Math.floor(Math.random() * baseLines.length), delayMs: 1 + Math.floor(Math.random() * 3) });
    // Four children at a time.
    const killed: (typeof points[number] & { dir: string })[] = [];
    for (let i = 0; i < points.length; i += 4) {
      killed.push(
        ...(await Promise.all(
          points.slice(i, i + 4).map(async (point) => {
            const dir = await mkdtemp(join(root, `at-${point.at}-`));
            await runChild(dir, point.at, point.delayMs);
            return { ...point, dir };
          }),
        )),
      );
    }

    let fromCheckpoint = 0;
    for (const point of killed) {
      const where = `killed at line ${point.at} (${baseLines[point.at]}) +${point.delayMs}ms`;
      const before = await callCounts(join(point.dir, "calls.txt"));
      const out = await resume(point.dir);
      if (out.cp) fromCheckpoint++;
      expect(out.raw, where).toBe(base.raw);
      expect(out.usage, where).toEqual(base.usage);
      const done = recorded(out.cp);
      const again = await callCounts(join(point.dir, "resumed.txt"));
      for (const [name, count] of total) {
        const kept = done.get(name) ?? 0;
        expect(before.get(name) ?? 0, `${where}: ${name} ran before the kill`).toBeGreaterThanOrEqual(kept);
        expect(again.get(name) ?? 0, `${where}: ${name} after resume`).toBe(count - kept);
      }
    }
    expect(fromCheckpoint).toBeGreaterThan(points.length / 2);
  }, 120_000);
});
