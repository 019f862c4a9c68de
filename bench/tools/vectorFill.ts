// Fills a SQLiteSearchStore with N chunks and their 384-dim vectors, as the knowledge scenario does, and times vector
// searches, to profile ingestion and search:
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/tools/vectorFill.ts [chunks=20000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FunctionEmbedder } from "../../src/knowledge/embedders/FunctionEmbedder.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { mockEmbedding } from "../../src/testing/index.js";
import { TextGenerator } from "../scenarios/knowledge.js";

const count = Number(process.argv[2] ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), "crewts-vector-fill-"));
const embedder = new FunctionEmbedder({ id: "hashed-384", dimensions: 384, embed: (texts) => texts.map((t) => mockEmbedding(t, 384)) });
const store = new SQLiteSearchStore({ path: join(dir, "v.db"), embedder });
const text = new TextGenerator(2);
const t0 = performance.now();
for (let start = 0; start < count; start += 1000) {
  await store.upsert(Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({ id: `c${start + i}`, content: text.words(80) })));
}
const buildS = (performance.now() - t0) / 1000;
const l0 = performance.now();
await store.search(text.query(), { mode: "vector" });
const loadMs = performance.now() - l0;
const times: number[] = [];
for (let i = 0; i < 50; i++) {
  const q0 = performance.now();
  await store.search(text.query(), { mode: "vector" });
  times.push(performance.now() - q0);
}
times.sort((a, b) => a - b);
console.log(`${count} chunks in ${buildS.toFixed(1)} s; first search (loads the vectors) ${loadMs.toFixed(0)} ms; vector search p50 ${times[25]?.toFixed(2)} ms, p10 ${times[5]?.toFixed(2)} ms`);
await store.close();
rmSync(dir, { recursive: true, force: true });
