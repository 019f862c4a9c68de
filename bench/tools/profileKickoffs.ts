// CPU profile of crew kickoffs alone (after warm-up, module loading excluded), via the inspector:
//   npx tsx bench/tools/profileKickoffs.ts [out.cpuprofile] [kickoffs=3000] [tasks=1]
// then: npx tsx bench/tools/cpuprofileSummary.ts out.cpuprofile
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crewtsCrew, finalAnswerLLM } from "../scenarios/crew.js";

const [out = "kickoffs.cpuprofile", countArg = "3000", tasksArg = "1"] = process.argv.slice(2);
process.env.CREWTS_STORAGE_DIR ??= mkdtempSync(join(tmpdir(), "crewts-profile-"));
const count = Number(countArg);
const tasks = Number(tasksArg);
const crew = crewtsCrew(finalAnswerLLM(), tasks, true);
for (let i = 0; i < 300; i++) await crew.copy().kickoff({ topic: "warm" });

const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 50 });
await session.post("Profiler.start");
const t0 = performance.now();
for (let i = 0; i < count; i++) await crew.copy().kickoff({ topic: `t${i}` });
const ms = performance.now() - t0;
const { profile } = await session.post("Profiler.stop");
writeFileSync(out, JSON.stringify(profile));
console.log(`${count} copy+kickoff of a ${tasks}-task crew: ${((ms / count) * 1000).toFixed(0)} µs each; profile in ${out}`);
