import { SQLiteSearchStore } from "../src/knowledge/store/SQLiteSearchStore.js";
const s = new SQLiteSearchStore({ path: "/tmp/mp2-HyJepd/memory/short_term_memory.db", collection: "short_term" });
const q = "Task 3: research onboarding for Initech and write part 3 a paragraph";
for (const [label, opts] of [["nofilter", { limit: 12 }], ["filter x", { limit: 12, filter: { runId: "x" } }], ["filter earlier", { limit: 12, filter: { runId: "earlier-run-3" } }]] as const) {
  await s.search(q, opts as any);
  const t0 = performance.now();
  let r;
  for (let i = 0; i < 200; i++) r = await s.search(q, opts as any);
  console.log(label, ((performance.now() - t0) / 20).toFixed(2), r!.length);
}
