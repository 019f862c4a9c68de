// Where memory's time per task goes: wall time inside each memory's search and batch write, summed over
// the memory scenario's kickoffs (10,000 items in each memory), per task.
//   npx tsx bench/tools/memoryBreakdown.ts [kickoffs=30]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EntityMemory } from "../../src/memory/EntityMemory.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import { crewOf, memoryBenchLLM, populate } from "../scenarios/memory.js";

const count = Number(process.argv[2] ?? 30);
const dir = mkdtempSync(join(tmpdir(), "crewts-memory-breakdown-"));
const memory = {
  short: new ShortTermMemory({ path: join(dir, "short.db") }),
  long: new LongTermMemory({ path: join(dir, "long.db") }),
  entity: new EntityMemory({ path: join(dir, "entity.db") }),
};
await populate(memory.short, memory.long, memory.entity);
const spent = new Map<string, number>();
for (const [kind, m] of Object.entries(memory)) {
  const target = m as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of ["search", "writeRecords"]) {
    const original = target[method]!.bind(m);
    target[method] = async (...args: unknown[]) => {
      const t0 = performance.now();
      try {
        return await original(...args);
      } finally {
        spent.set(`${kind}.${method}`, (spent.get(`${kind}.${method}`) ?? 0) + performance.now() - t0);
      }
    };
  }
}
for (let i = 0; i < 3; i++) await crewOf(memoryBenchLLM(), memory).kickoff();
spent.clear();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < count; i++) await crewOf(memoryBenchLLM(), memory).kickoff();
const cpu = process.cpuUsage(cpu0);
const tasks = count * 10;
console.log(`per task: wall ${((performance.now() - t0) / tasks).toFixed(2)} ms, CPU ${((cpu.user + cpu.system) / 1000 / tasks).toFixed(2)} ms`);
console.log([...spent].map(([k, ms]) => `${k} ${(ms / tasks).toFixed(3)}`).join("; "));
await Promise.all([memory.short.close(), memory.long.close(), memory.entity.close()]);
rmSync(dir, { recursive: true, force: true });
