// The memory scenario's crew in a loop, to profile what memory adds per task:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/tools/memoryWorkload.ts [kickoffs=20] [off]
// Memories are filled with 10,000 items each first (bench/scenarios/memory.ts); "off" runs the crew without memory.
// With MEMORY_PROFILE=<file.cpuprofile>, only the measured kickoffs are profiled (not the filling):
//   MEMORY_PROFILE=/tmp/memory.cpuprofile npx tsx bench/tools/memoryWorkload.ts 200
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EntityMemory } from "../../src/memory/EntityMemory.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import { crewOf, memoryBenchLLM, populate } from "../scenarios/memory.js";

const [countArg, off] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), "crewts-memory-workload-"));
process.env.CREWTS_STORAGE_DIR ??= dir;
const memory = {
  short: new ShortTermMemory({ path: join(dir, "short.db") }),
  long: new LongTermMemory({ path: join(dir, "long.db") }),
  entity: new EntityMemory({ path: join(dir, "entity.db") }),
};
let t0 = performance.now();
await populate(memory.short, memory.long, memory.entity);
console.log(`populated in ${(performance.now() - t0).toFixed(0)} ms`);
const count = Number(countArg ?? 20);
for (let i = 0; i < 3; i++) await crewOf(memoryBenchLLM(), off ? undefined : memory).kickoff();
const profileFile = process.env.MEMORY_PROFILE;
const session = profileFile ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
}
t0 = performance.now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < count; i++) await crewOf(memoryBenchLLM(), off ? undefined : memory).kickoff();
const cpu = process.cpuUsage(cpu0);
// CPU time is steadier than wall time on a shared machine (the work is synchronous SQLite and JavaScript).
console.log(
  `${off ? "no memory" : "memory"}: ${((performance.now() - t0) / count / 10).toFixed(2)} ms per task (wall), ` +
    `${((cpu.user + cpu.system) / 1000 / count / 10).toFixed(2)} ms CPU per task, over ${count} kickoffs`,
);
if (session && profileFile) {
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(profileFile, JSON.stringify(profile));
  session.disconnect();
}
await Promise.all([memory.short.close(), memory.long.close(), memory.entity.close()]);
rmSync(dir, { recursive: true, force: true });
