// Times libsql's vector index settings on one workload: build time of N vectors (384 dims, the bench's
// hashed bag of words), query p50 and recall@10 against exact search. Used to choose the store's design:
//   npx tsx bench/tools/vectorIndexOptions.ts [rows=10000] [names...]
import Database from "libsql";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mockEmbedding } from "../../src/testing/index.js";
import { TextGenerator } from "../scenarios/knowledge.js";

const [rowsArg, ...names] = process.argv.slice(2);
const ROWS = Number(rowsArg ?? 10_000);
const DIMS = 384;
const QUERIES = 50;

const text = new TextGenerator(2);
const vectors = Array.from({ length: ROWS }, () => Float32Array.from(mockEmbedding(text.words(80), DIMS)));
const queries = Array.from({ length: QUERIES }, () => Float32Array.from(mockEmbedding(text.query(), DIMS)));

function exactTop(q: Float32Array, k: number): number[] {
  const scored = vectors.map((v, i) => {
    let dot = 0;
    for (let d = 0; d < DIMS; d++) dot += v[d]! * q[d]!;
    return [i + 1, dot] as const;
  });
  return scored.sort((a, b) => b[1] - a[1]).slice(0, k).map((s) => s[0]);
}
const truth = queries.map((q) => exactTop(q, 10));

const variants: Record<string, { index: string; after: boolean }> = {
  "default-float8": { index: "'metric=cosine', 'compress_neighbors=float8'", after: false },
  "default-float8-after": { index: "'metric=cosine', 'compress_neighbors=float8'", after: true },
  "n16-float8": { index: "'metric=cosine', 'compress_neighbors=float8', 'max_neighbors=16'", after: false },
  "n32-float8": { index: "'metric=cosine', 'compress_neighbors=float8', 'max_neighbors=32'", after: false },
  "n16-1bit": { index: "'metric=cosine', 'compress_neighbors=float1bit', 'max_neighbors=16'", after: false },
  "n32-1bit-insl50": { index: "'metric=cosine', 'compress_neighbors=float1bit', 'max_neighbors=32', 'insert_l=50'", after: false },
  "n16-float8-insl20": { index: "'metric=cosine', 'compress_neighbors=float8', 'max_neighbors=16', 'insert_l=20', 'search_l=100'", after: false },
  "no-index": { index: "", after: false },
};

const dir = mkdtempSync(join(tmpdir(), "vector-options-"));
for (const name of names.length > 0 ? names : Object.keys(variants)) {
  const v = variants[name]!;
  const db = new Database(join(dir, `${name}.db`));
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec(`CREATE TABLE v (rowid INTEGER PRIMARY KEY, embedding F32_BLOB(${DIMS}) NOT NULL)`);
  const createIndex = () => v.index && db.exec(`CREATE INDEX v_idx ON v (libsql_vector_idx(embedding, ${v.index}))`);
  const t0 = performance.now();
  if (!v.after) createIndex();
  const insert = db.prepare("INSERT INTO v (rowid, embedding) VALUES (?, ?)");
  for (let start = 0; start < ROWS; start += 1000) {
    db.exec("BEGIN");
    for (let i = start; i < Math.min(ROWS, start + 1000); i++) insert.run(i + 1, Buffer.from(vectors[i]!.buffer));
    db.exec("COMMIT");
  }
  if (v.after) createIndex();
  const buildS = (performance.now() - t0) / 1000;
  const search = v.index
    ? db.prepare("SELECT t.id AS id FROM vector_top_k('v_idx', vector32(?), 10) t")
    : db.prepare("SELECT rowid AS id FROM v ORDER BY vector_distance_cos(embedding, vector32(?)) LIMIT 10");
  const times: number[] = [];
  let hits = 0;
  queries.forEach((q, i) => {
    const t = performance.now();
    const ids = (search.all(JSON.stringify(Array.from(q))) as { id: number }[]).map((r) => r.id);
    times.push(performance.now() - t);
    hits += ids.filter((id) => truth[i]!.includes(id)).length;
  });
  times.sort((a, b) => a - b);
  console.log(`${name}: rows ${ROWS}, build ${buildS.toFixed(1)} s (${((buildS * 1e6) / ROWS).toFixed(0)} µs/row), query p50 ${times[Math.floor(QUERIES / 2)]!.toFixed(2)} ms, recall@10 ${(hits / (10 * QUERIES)).toFixed(3)}`);
  db.close();
}
rmSync(dir, { recursive: true, force: true });
