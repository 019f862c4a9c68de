// Checkpoint scenario: what a SQLite checkpoint after every method costs a looping flow, and how the
// store grows. The flow runs 10,000 iterations of one method that changes 1 KB of a 5 KB state (plus
// a counter) and a router; it runs once without checkpoints and once with, side by side, and the
// difference per checkpoint is the cost. Growth is the database's size (its pages, write-ahead log
// folded in: what the file holds once checkpointed) divided by the checkpoints written.
import { mkdtempSync } from "node:fs";
import Database from "libsql";
import { join } from "node:path";
import { eventBus, Flow, router, start } from "../../src/index.js";
import { checkpointStoreFor } from "../../src/runtime/checkpoint/checkpointStores.js";
import type { BenchConfig } from "../lib/config.js";
import { formatMs } from "../lib/stats.js";
import type { ScenarioReport } from "../lib/report.js";

const GROUP = "checkpoint";
const COST_GOAL_US = 50;
const GROWTH_GOAL_BYTES = 2048;

interface LoopState {
  n: number;
  changing: string;
  fixed: string;
}

function loopClass(iterations: number) {
  class CheckpointedLoop extends Flow<LoopState> {
    override initialState = { n: 0, changing: "", fixed: "f".repeat(4096) };
    override maxMethodCalls = iterations + 1;
    @start("loop") step() {
      this.state.n += 1;
      this.state.changing = `${this.state.n}`.padStart(1024, "c");
    }
    @router("step") decide() {
      return this.state.n < iterations ? "loop" : "done";
    }
    @start() begin() {
      return "go";
    }
    @router("begin") first() {
      return "loop";
    }
  }
  return CheckpointedLoop;
}

/** The size of the database at `file` with its write-ahead log folded in: its pages, read on a connection of its own. */
function databaseBytes(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const pages = (db.prepare("PRAGMA page_count").get() as { page_count: number }).page_count;
    const size = (db.prepare("PRAGMA page_size").get() as { page_size: number }).page_size;
    return pages * size;
  } finally {
    db.close();
  }
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** Per-checkpoint cost and store growth of a 10,000-iteration loop (1,000 in the short run). */
export async function checkpointScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const iterations = config.full ? 10_000 : 10_000;
  const Loop = loopClass(iterations);
  const dir = mkdtempSync(join(config.tmpDir, "checkpoints-"));
  let written = 0;
  const off = eventBus.on("checkpoint_written", () => void written++);
  // Warm both paths once on a small loop, then alternate plain and checkpointed runs.
  const plainMs: number[] = [];
  const checkpointedMs: number[] = [];
  let perRun = 0;
  for (let round = 0; round < 3; round++) {
    plainMs.push(await timed(() => new Loop().kickoff()));
    const before = written;
    const location = join(dir, `round-${round}`);
    checkpointedMs.push(await timed(() => new Loop({ checkpoint: { location } }).kickoff()));
    perRun = written - before;
  }
  off();
  const last = join(dir, "round-2");
  await checkpointStoreFor({ location: last }).close?.();
  const bytes = databaseBytes(join(last, "checkpoints.db"));
  const plain = Math.min(...plainMs);
  const checkpointed = Math.min(...checkpointedMs);
  const costUs = ((checkpointed - plain) / perRun) * 1000;
  const growth = bytes / perRun;
  return {
    group: GROUP,
    rows: [
      {
        group: GROUP,
        scenario: `SQLite checkpoint per method, loop of ${iterations.toLocaleString("en")} iterations, 1 KB of state changed`,
        unit: "per checkpoint",
        crewts: `${costUs.toFixed(1)} µs`,
        against: "goal",
        other: `${COST_GOAL_US} µs`,
        ratio: costUs / COST_GOAL_US,
        goal: `≤ ${COST_GOAL_US} µs`,
        met: costUs <= COST_GOAL_US,
      },
      {
        group: GROUP,
        scenario: "checkpoint store growth per checkpoint (same loop)",
        unit: "bytes per checkpoint",
        crewts: `${Math.round(growth)} B`,
        against: "goal",
        other: `${GROWTH_GOAL_BYTES} B`,
        ratio: growth / GROWTH_GOAL_BYTES,
        goal: `≤ ${GROWTH_GOAL_BYTES} B`,
        met: growth <= GROWTH_GOAL_BYTES,
      },
    ],
    details: [
      `Checkpoint loop: ${perRun} checkpoints per run (two methods per iteration), best of 3: ${formatMs(plain)} without checkpoints, ` +
        `${formatMs(checkpointed)} with; database ${(bytes / 1024 / 1024).toFixed(1)} MB after ${perRun} checkpoints.`,
    ],
  };
}
