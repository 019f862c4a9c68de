// Knowledge retrieval on SQLiteSearchStore (a file in the bench's tmp dir): keyword (FTS5) and vector
// (libsql vector index, 384 dims) search latency over many chunks, ingestion of 10 MB of text without
// embeddings, and recall@5 of each search mode on the labelled corpus of test/fixtures/retrieval.
// Vectors come from a hashed bag of words (the mock server's algorithm), so only the store is measured.
import { join } from "node:path";
import { FunctionEmbedder } from "../../src/knowledge/embedders/FunctionEmbedder.js";
import { StringKnowledgeSource } from "../../src/knowledge/sources/StringKnowledgeSource.js";
import { InMemorySearchStore } from "../../src/knowledge/store/InMemorySearchStore.js";
import type { MetadataValue, SearchStore } from "../../src/knowledge/store/SearchStore.js";
import { SQLiteSearchStore } from "../../src/knowledge/store/SQLiteSearchStore.js";
import { mockEmbedding } from "../../src/testing/index.js";
import { indexCorpus, RECALL_EMBEDDING_DIMENSIONS, RECALL_FLOORS, recallAt } from "../../test/fixtures/retrieval/retrievalCorpus.js";
import type { BenchConfig } from "../lib/config.js";
import { markdownTable } from "../lib/markdown.js";
import type { ResultRow, ScenarioReport } from "../lib/report.js";
import { formatMs, quantile } from "../lib/stats.js";

const GROUP = "knowledge";
const KEYWORD_CHUNKS = 100_000;
// The short run indexes fewer vectors and says so.
const VECTOR_CHUNKS_FULL = 100_000;
const VECTOR_CHUNKS_SHORT = 20_000;
const RECALL_K = 10;
const VECTOR_DIMENSIONS = 384;
const WORDS_PER_CHUNK = 80;
const INGEST_BYTES = 10 * 2 ** 20;
const GOALS = { keywordP50Ms: 10, vectorP50Ms: 20, ingestS: 10, vectorBuildS: 60, vectorRecall: 0.95 };

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Text with word frequencies like natural language: 20,000 pronounceable pseudo-words drawn by a
 * Zipf law (a few words in most chunks, most words in few), so FTS posting lists have realistic lengths.
 */
export class TextGenerator {
  readonly vocabulary: string[];
  private readonly cdf: Float64Array;
  private readonly next: () => number;

  constructor(seed: number, size = 20_000) {
    this.next = random(seed);
    const syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "be", "da", "fu", "go", "hi", "ja", "pe", "qui", "ze", "wa", "ol", "an", "er", "is"];
    const word = (i: number) => {
      let w = "";
      for (let n = i + 1; n > 0; n = Math.floor(n / syllables.length)) w += syllables[n % syllables.length];
      return w;
    };
    this.vocabulary = Array.from({ length: size }, (_, i) => word(i));
    this.cdf = new Float64Array(size);
    let sum = 0;
    for (let i = 0; i < size; i++) this.cdf[i] = sum += 1 / (i + 1) ** 1.05;
    for (let i = 0; i < size; i++) this.cdf[i]! /= sum;
  }

  /** A word's rank drawn by the Zipf law, within [from, to). */
  rank(from = 0, to = this.vocabulary.length): number {
    const lo0 = from === 0 ? 0 : this.cdf[from - 1]!;
    const target = lo0 + this.next() * (this.cdf[to - 1]! - lo0);
    let lo = from;
    let hi = to - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cdf[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  words(n: number): string {
    return Array.from({ length: n }, () => this.vocabulary[this.rank()]).join(" ");
  }

  /** A query of three words, none among the 50 most frequent (queries drop stop words). */
  query(): string {
    return Array.from({ length: 3 }, () => this.vocabulary[this.rank(50, 5000)]).join(" ");
  }

  /** About `bytes` of prose: sentences of 8–20 words, paragraphs of 6 sentences. */
  prose(bytes: number): string {
    const parts: string[] = [];
    let length = 0;
    for (let s = 1; length < bytes; s++) {
      const sentence = `${this.words(8 + Math.floor(this.next() * 13))}.${s % 6 === 0 ? "\n\n" : " "}`;
      parts.push(sentence);
      length += sentence.length;
    }
    return parts.join("");
  }
}

/** Upserts `count` generated chunks in batches of 1,000; returns the seconds it took. */
async function fill(store: SearchStore, text: TextGenerator, count: number): Promise<number> {
  const t0 = performance.now();
  for (let start = 0; start < count; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({ id: `c${start + i}`, content: text.words(WORDS_PER_CHUNK) }));
    await store.upsert(batch);
  }
  return (performance.now() - t0) / 1000;
}

interface Latency {
  p50: number;
  p95: number;
  n: number;
  /** Mean results per query, to show the searches found something. */
  hits: number;
}

async function latency(store: SearchStore, text: TextGenerator, mode: "keyword" | "vector", queries: number): Promise<Latency> {
  for (let i = 0; i < 5; i++) await store.search(text.query(), { mode });
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < queries; i++) {
    const query = text.query();
    const t0 = performance.now();
    hits += (await store.search(query, { mode })).length;
    times.push(performance.now() - t0);
  }
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), n: queries, hits: hits / queries };
}

const hashedEmbedder = (dimensions: number, id: string) => new FunctionEmbedder({ id, dimensions, embed: (texts) => texts.map((t) => mockEmbedding(t, dimensions)) });

/** The hashed embedder, keeping the vectors of the chunks it embeds (in order) while `capturing`, for exact search. */
function capturingEmbedder(dimensions: number): { embedder: FunctionEmbedder; vectors: Float32Array[]; stop: () => void } {
  const vectors: Float32Array[] = [];
  let capturing = true;
  const embed = (texts: string[]) =>
    texts.map((t) => {
      const vector = mockEmbedding(t, dimensions);
      if (capturing) vectors.push(Float32Array.from(vector));
      return vector;
    });
  return { embedder: new FunctionEmbedder({ id: `hashed-${dimensions}`, dimensions, embed }), vectors, stop: () => (capturing = false) };
}

/**
 * Recall@k of the store's vector search against exact search: a brute-force scan of every chunk's vector
 * (all unit length, so the dot product is the cosine), over `queries` new queries.
 */
async function vectorRecall(store: SearchStore, text: TextGenerator, vectors: Float32Array[], queries: number): Promise<number> {
  let found = 0;
  for (let q = 0; q < queries; q++) {
    const query = text.query();
    const qv = mockEmbedding(query, VECTOR_DIMENSIONS);
    const exact = vectors
      .map((v, i) => {
        let dot = 0;
        for (let d = 0; d < VECTOR_DIMENSIONS; d++) dot += (v[d] as number) * (qv[d] as number);
        return { id: `c${i}`, dot };
      })
      .sort((a, b) => b.dot - a.dot)
      .slice(0, RECALL_K);
    // Ties at the k-th place count as found whichever of them the store returns.
    const kth = exact[exact.length - 1]?.dot ?? 0;
    const exactIds = new Set(exact.map((e) => e.id));
    const results = await store.search(query, { mode: "vector", limit: RECALL_K });
    found += results.filter((r) => exactIds.has(r.id) || Math.abs(dotOf(vectors[Number(r.id.slice(1))], qv) - kth) < 1e-6).length;
  }
  return found / (queries * RECALL_K);
}

function dotOf(v: Float32Array | undefined, q: number[]): number {
  let dot = 0;
  for (let d = 0; v && d < VECTOR_DIMENSIONS; d++) dot += (v[d] as number) * (q[d] as number);
  return dot;
}

function latencyRow(scenario: string, l: Latency, goalMs: number): ResultRow {
  return {
    group: GROUP,
    scenario,
    unit: "per query",
    crewts: `p50 ${formatMs(l.p50)}, p95 ${formatMs(l.p95)}`,
    against: "limit",
    other: `p50 ${formatMs(goalMs)}`,
    ratio: l.p50 / goalMs,
    goal: `p50 < ${goalMs} ms`,
    met: l.p50 < goalMs,
  };
}

/** Runs the knowledge scenarios. */
export async function knowledgeScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const queries = config.full ? 200 : 50;
  const rows: ResultRow[] = [];
  const details: string[] = [];
  const builds: string[][] = [];

  // Keyword search over 100,000 chunks.
  const keywordStore = new SQLiteSearchStore({ path: join(config.tmpDir, "knowledge-keyword.db") });
  const keywordText = new TextGenerator(1);
  const keywordBuildS = await fill(keywordStore, keywordText, KEYWORD_CHUNKS);
  const keyword = await latency(keywordStore, keywordText, "keyword", queries);
  await keywordStore.close();
  const n = (x: number) => x.toLocaleString("en-US");
  rows.push(latencyRow(`keyword search (FTS5, BM25), ${n(KEYWORD_CHUNKS)} chunks`, keyword, GOALS.keywordP50Ms));
  builds.push([`keyword: ${n(KEYWORD_CHUNKS)} chunks, FTS5`, `${keywordBuildS.toFixed(1)} s`, formatMs((keywordBuildS * 1000) / KEYWORD_CHUNKS), `${keyword.hits.toFixed(1)}`]);

  // Vector search: exact scan of int8 vectors held in memory, re-ranked with the float vectors (VectorIndex).
  const vectorChunks = config.full ? VECTOR_CHUNKS_FULL : VECTOR_CHUNKS_SHORT;
  const capture = capturingEmbedder(VECTOR_DIMENSIONS);
  const vectorStore = new SQLiteSearchStore({ path: join(config.tmpDir, "knowledge-vector.db"), embedder: capture.embedder });
  const vectorText = new TextGenerator(2);
  const vectorBuildS = await fill(vectorStore, vectorText, vectorChunks);
  capture.stop();
  // The first search loads the vectors of the file into memory.
  const loadT0 = performance.now();
  await vectorStore.search(vectorText.query(), { mode: "vector" });
  const vectorLoadMs = performance.now() - loadT0;
  const vector = await latency(vectorStore, vectorText, "vector", queries);
  const recall = capture.vectors.length === vectorChunks ? await vectorRecall(vectorStore, vectorText, capture.vectors, config.full ? 100 : 30) : Number.NaN;
  await vectorStore.close();
  const shortNote = config.full ? "" : ` (short run; ${n(VECTOR_CHUNKS_FULL)} with --full)`;
  rows.push(latencyRow(`vector search (int8 scan in memory + exact re-rank, ${VECTOR_DIMENSIONS} dims), ${n(vectorChunks)} chunks${shortNote}`, vector, GOALS.vectorP50Ms));
  builds.push([`vector: ${n(vectorChunks)} chunks, ${VECTOR_DIMENSIONS} dims, FTS5 + vectors`, `${vectorBuildS.toFixed(1)} s`, formatMs((vectorBuildS * 1000) / vectorChunks), `${vector.hits.toFixed(1)}`]);
  builds.push([`vector: loading ${n(vectorChunks)} vectors into memory (first search)`, formatMs(vectorLoadMs), formatMs(vectorLoadMs / vectorChunks), ""]);
  rows.push({
    group: GROUP,
    scenario: `vector ingestion and indexing, ${n(vectorChunks)} chunks of ${VECTOR_DIMENSIONS} dims (upserts with embeddings, FTS5, vectors)${shortNote}`,
    unit: "s",
    crewts: `${vectorBuildS.toFixed(1)} s`,
    against: "limit",
    other: `${GOALS.vectorBuildS} s`,
    ratio: vectorBuildS / GOALS.vectorBuildS,
    goal: `< ${GOALS.vectorBuildS} s`,
    met: vectorBuildS < GOALS.vectorBuildS,
  });
  rows.push({
    group: GROUP,
    scenario: `vector search recall@${RECALL_K} against exact search (brute force), ${n(vectorChunks)} chunks${shortNote}`,
    unit: "recall",
    crewts: recall.toFixed(3),
    against: "floor",
    other: GOALS.vectorRecall.toFixed(2),
    goal: `≥ ${GOALS.vectorRecall}`,
    met: recall >= GOALS.vectorRecall,
  });

  // Ingestion of 10 MB of text, no embedder: chunking (StringKnowledgeSource) and upsert.
  const ingestText = new TextGenerator(3).prose(INGEST_BYTES);
  const ingestStore = new SQLiteSearchStore({ path: join(config.tmpDir, "knowledge-ingest.db") });
  const t0 = performance.now();
  const chunks = await new StringKnowledgeSource({ content: ingestText, source: "bench" }).load();
  const chunkedMs = performance.now() - t0;
  const report = await ingestStore.upsert(chunks.map((c, i) => ({ id: `i${i}`, content: c.content, metadata: c.metadata as Record<string, MetadataValue> })));
  const ingestS = (performance.now() - t0) / 1000;
  await ingestStore.close();
  rows.push({
    group: GROUP,
    scenario: `ingestion of ${(INGEST_BYTES / 2 ** 20).toFixed(0)} MB of text, no embeddings (chunking + upsert)`,
    unit: "s",
    crewts: `${ingestS.toFixed(2)} s`,
    against: "limit",
    other: `${GOALS.ingestS} s`,
    ratio: ingestS / GOALS.ingestS,
    goal: `< ${GOALS.ingestS} s`,
    met: ingestS < GOALS.ingestS && report.added === chunks.length,
  });
  builds.push([`ingestion: ${n(chunks.length)} chunks of 4,000 characters`, `${ingestS.toFixed(2)} s`, `chunking ${formatMs(chunkedMs)}`, ""]);

  // Recall@5 on the labelled corpus, both backends, the test suite's mock embeddings.
  const recallRows: string[][] = [];
  for (const [name, make] of [
    ["SQLiteSearchStore", () => new SQLiteSearchStore({ path: join(config.tmpDir, "knowledge-recall.db"), embedder: hashedEmbedder(RECALL_EMBEDDING_DIMENSIONS, "mock-embed") })],
    ["InMemorySearchStore", () => new InMemorySearchStore({ embedder: hashedEmbedder(RECALL_EMBEDDING_DIMENSIONS, "mock-embed") })],
  ] as const) {
    const store: SearchStore = make();
    await indexCorpus(store);
    const recall = { keyword: await recallAt(store, "keyword"), vector: await recallAt(store, "vector"), hybrid: await recallAt(store, "hybrid") };
    await store.close();
    const modes = ["keyword", "vector", "hybrid"] as const;
    rows.push({
      group: GROUP,
      scenario: `recall@5 on the labelled corpus, ${name}`,
      unit: "keyword / vector / hybrid",
      crewts: modes.map((m) => recall[m].toFixed(3)).join(" / "),
      against: "floor",
      other: modes.map((m) => RECALL_FLOORS[m].toFixed(2)).join(" / "),
      goal: "each ≥ its floor",
      met: modes.every((m) => recall[m] >= RECALL_FLOORS[m]),
    });
    recallRows.push([name, ...modes.map((m) => recall[m].toFixed(3))]);
  }

  details.push(
    `Chunks are ${WORDS_PER_CHUNK} pseudo-words drawn by a Zipf law from 20,000 (so posting lists are as skewed as in prose); ` +
      `queries are three words of frequency rank 50–5,000, ${queries} timed after 5 warm-up ones, each through SQLiteSearchStore.search ` +
      `(default limit 5) on a database file. Vectors are a hashed bag of words (the mock server's algorithm) in ${VECTOR_DIMENSIONS} dims, ` +
      `computed in-process, so build times are the store's (FTS5, documents and vector rows). Upserts go in batches of 1,000. ` +
      `Vector search scans int8 copies of every vector in memory (WebAssembly SIMD) and re-ranks the best by exact cosine; ` +
      `recall@${RECALL_K} compares its results with a brute-force scan of the float vectors.`,
    markdownTable(["build", "time", "per chunk", "results per query"], builds),
    markdownTable(["latency", "p50", "p95", "queries"], [
      ["keyword", formatMs(keyword.p50), formatMs(keyword.p95), String(keyword.n)],
      ["vector", formatMs(vector.p50), formatMs(vector.p95), String(vector.n)],
    ]),
    `Recall@5 on test/fixtures/retrieval (66 documents, 32 queries, paraphrases included), mock embeddings of ${RECALL_EMBEDDING_DIMENSIONS} dims, ` +
      "as test/knowledge/retrievalQuality.test.ts measures it:",
    markdownTable(["backend", "keyword", "vector", "hybrid"], recallRows),
  );
  return { group: GROUP, rows, details };
}
