import type { Prepare } from "../../storage/SQLiteDatabase.js";
import { VectorScanner } from "./vectorScan.js";

/** A candidate of a vector search: a document's rowid and its exact cosine similarity to the query. */
export interface VectorHit {
  rowid: number;
  similarity: number;
}

// Candidates re-ranked with exact float vectors per candidate wanted: int8 scores misorder close
// neighbours by about 1% of a score; the exact top 10 is within the int8 top 20 in practice.
const RERANK_FACTOR = 2;
const MIN_RERANK = 64;
const LOAD_PAGE = 4096;

/**
 * The vectors of one collection and embedder in one vector table (vectors_<dims>), held in memory as
 * int8 (VectorScanner) and searched exhaustively: the best candidates by approximate score are then
 * re-ranked by exact cosine over their float32 vectors read back from SQLite. Exact search needs no
 * index to build (libsql's DiskANN index cost ~7 ms per inserted row), so inserts cost a table write.
 *
 * Loaded on first search; the store keeps it current with its own writes (put, remove, clear) and
 * throws it away when another handle or process changed the file (SQLiteDatabase.changeMark).
 */
export class VectorIndex {
  private readonly scanner: VectorScanner;
  private readonly slots = new Map<number, number>();
  private rowids: number[] = [];
  private scores: Float32Array | undefined;
  /** The change mark the index was loaded at. */
  mark: string | undefined;

  constructor(
    readonly dimensions: number,
    private readonly table: string,
  ) {
    this.scanner = new VectorScanner(dimensions);
  }

  /** Vectors held. */
  get size(): number {
    return this.rowids.length;
  }

  /** Reads every vector of `collection` and `embedder` from the table. */
  load(prepare: Prepare, collection: string, embedder: string): void {
    this.clear();
    // In pages by rowid: all rows at once would hold every blob in memory twice. CROSS JOIN keeps the
    // vectors table outside, so each page is a rowid range (driven by documents, every page scanned them all).
    const page = prepare(
      `SELECT v.rowid AS rowid, v.embedding AS embedding FROM ${this.table} v CROSS JOIN documents d ON d.rowid = v.rowid ` +
        `WHERE v.rowid > ? AND d.collection = ? AND v.embedder = ? ORDER BY v.rowid LIMIT ${LOAD_PAGE}`,
    );
    for (let after = -1; ; ) {
      const rows = page.all(after, collection, embedder) as { rowid: number; embedding: ArrayBuffer | Uint8Array }[];
      for (const row of rows) this.put(row.rowid, floats(row.embedding));
      if (rows.length < LOAD_PAGE) break;
      after = (rows[rows.length - 1] as { rowid: number }).rowid;
    }
  }

  /** Adds or replaces the vector of `rowid`. */
  put(rowid: number, vector: ArrayLike<number>): void {
    // Unit length first: int8 scores then rank by cosine.
    let norm = 0;
    for (let d = 0; d < vector.length; d++) norm += (vector[d] as number) ** 2;
    norm = Math.sqrt(norm);
    const unit = norm === 0 ? vector : Array.from(vector, (x) => x / norm);
    const slot = this.slots.get(rowid) ?? this.rowids.length;
    if (slot === this.rowids.length) {
      this.rowids.push(rowid);
      this.slots.set(rowid, slot);
    }
    this.scanner.set(slot, unit);
  }

  /** Drops the vector of `rowid`, if held. */
  remove(rowid: number): void {
    const slot = this.slots.get(rowid);
    if (slot === undefined) return;
    const last = this.rowids.length - 1;
    const moved = this.rowids[last] as number;
    this.scanner.removeMovingLast(slot);
    this.rowids[slot] = moved;
    this.slots.set(moved, slot);
    this.rowids.pop();
    this.slots.delete(rowid);
  }

  /** Drops every vector. */
  clear(): void {
    this.scanner.clear();
    this.slots.clear();
    this.rowids = [];
  }

  /**
   * The nearest `k` rowids to `query` by cosine, best first, exact up to the re-ranking depth; `accept`
   * (a metadata filter) may turn candidates down, and the search then goes deeper until `k` pass or none is left.
   */
  nearest(prepare: Prepare, query: readonly number[], k: number, accept?: (rowid: number) => boolean): VectorHit[] {
    const n = this.rowids.length;
    if (n === 0 || k <= 0) return [];
    const norm = Math.hypot(...query);
    if (norm === 0) return [];
    this.scores = this.scanner.scores(query, this.scores);
    const scores = this.scores;
    const read = prepare(`SELECT embedding FROM ${this.table} WHERE rowid = ?`);
    const hits: VectorHit[] = [];
    // A deeper pass may order equal int8 scores differently: a candidate is looked at once.
    const seen = new Set<number>();
    // Depth doubles while a filter turns candidates down.
    for (let depth = Math.max(k * RERANK_FACTOR, MIN_RERANK), from = 0; from < n; depth *= 2) {
      const order = topSlots(scores, n, Math.min(depth, n));
      for (let i = from; i < order.length; i++) {
        const rowid = this.rowids[order[i] as number] as number;
        if (seen.has(rowid)) continue;
        seen.add(rowid);
        if (accept && !accept(rowid)) continue;
        const row = read.get(rowid) as { embedding: ArrayBuffer | Uint8Array } | undefined;
        if (row) hits.push({ rowid, similarity: cosine(floats(row.embedding), query, norm) });
      }
      from = order.length;
      if (hits.length >= k) break;
    }
    return hits.sort((a, b) => b.similarity - a.similarity).slice(0, k);
  }
}

/** The float32 values of an F32_BLOB (little-endian; libsql returns it as an ArrayBuffer, other blobs as a Buffer). */
export function floats(blob: ArrayBuffer | Uint8Array): Float32Array {
  if (blob instanceof ArrayBuffer) return new Float32Array(blob);
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

function cosine(vector: Float32Array, query: readonly number[], queryNorm: number): number {
  let dot = 0;
  let norm = 0;
  for (let d = 0; d < vector.length; d++) {
    const x = vector[d] as number;
    dot += x * (query[d] ?? 0);
    norm += x * x;
  }
  return norm === 0 ? 0 : dot / (Math.sqrt(norm) * queryNorm);
}

/** Slots of the `m` highest scores, best first (a bounded min-heap, then sorted). */
function topSlots(scores: Float32Array, n: number, m: number): number[] {
  const heap: number[] = [];
  const less = (a: number, b: number) => (scores[a] as number) < (scores[b] as number);
  for (let i = 0; i < n; i++) {
    if (heap.length < m) {
      heap.push(i);
      for (let c = heap.length - 1; c > 0; ) {
        const p = (c - 1) >> 1;
        if (!less(heap[c] as number, heap[p] as number)) break;
        [heap[c], heap[p]] = [heap[p] as number, heap[c] as number];
        c = p;
      }
    } else if ((scores[i] as number) > (scores[heap[0] as number] as number)) {
      heap[0] = i;
      for (let p = 0; ; ) {
        const l = 2 * p + 1;
        const r = l + 1;
        let s = p;
        if (l < m && less(heap[l] as number, heap[s] as number)) s = l;
        if (r < m && less(heap[r] as number, heap[s] as number)) s = r;
        if (s === p) break;
        [heap[s], heap[p]] = [heap[p] as number, heap[s] as number];
        p = s;
      }
    }
  }
  return heap.sort((a, b) => (scores[b] as number) - (scores[a] as number));
}
