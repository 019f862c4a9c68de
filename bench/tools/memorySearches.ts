// Times each memory's search alone (10,000 items each, the memory scenario's data), to compare versions:
//   npx tsx bench/tools/memorySearches.ts [rounds=60]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EntityMemory } from "../../src/memory/EntityMemory.js";
import { LongTermMemory } from "../../src/memory/LongTermMemory.js";
import { ShortTermMemory } from "../../src/memory/ShortTermMemory.js";
import { populate } from "../scenarios/memory.js";

const rounds = Number(process.argv[2] ?? 60);
const dir = mkdtempSync(join(tmpdir(), "crewts-memory-searches-"));
const memory = { short: new ShortTermMemory({ path: join(dir, "short.db") }), long: new LongTermMemory({ path: join(dir, "long.db") }), entity: new EntityMemory({ path: join(dir, "entity.db") }) };
await populate(memory.short, memory.long, memory.entity);
const TOPICS = ["pricing", "churn", "onboarding", "latency", "security", "roadmap", "hiring", "support", "billing", "compliance"];
const COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Wonka", "Tyrell"];
const query = (i: number) => `Task ${i % 10}: research ${TOPICS[i % 10]} for ${COMPANIES[i % 10]} and write part ${i % 10}`;
const times: Record<string, number[]> = { short: [], long: [], entity: [] };
for (let i = 0; i < rounds + 5; i++) {
  for (const kind of ["short", "long", "entity"] as const) {
    const t0 = performance.now();
    await memory[kind].search(query(i));
    if (i >= 5) times[kind]!.push(performance.now() - t0);
  }
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!.toFixed(2);
console.log(Object.entries(times).map(([k, xs]) => `${k} p50 ${q(xs, 0.5)} p10 ${q(xs, 0.1)} ms`).join("; "));
await Promise.all([memory.short.close(), memory.long.close(), memory.entity.close()]);
rmSync(dir, { recursive: true, force: true });
