import type { Embedder } from "../embedders/Embedder.js";
import {
  contentHash,
  informativeTerms,
  queryTerms,
  type MetadataValue,
  type SearchDocument,
  type SearchOptions,
  type SearchResult,
  type SearchStore,
  type StoredDocument,
  type UpsertReport,
} from "./SearchStore.js";
import { rankedSearch } from "./ranking.js";

/** Options of InMemorySearchStore. */
export interface InMemorySearchStoreOptions {
  /** Enables vector and hybrid search; without it the store searches keywords (BM25) only. */
  embedder?: Embedder;
}

// FTS5's bm25() defaults, so both backends rank alike.
const BM25_K1 = 1.2;
const BM25_B = 0.75;

interface IndexedDocument {
  id: string;
  content: string;
  metadata: Record<string, MetadataValue>;
  /** JSON of the metadata, to tell a metadata-only change from none. */
  metadataJson: string;
  hash: string;
  /** Term frequencies of the content. */
  terms: Map<string, number>;
  length: number;
}

interface Ranked {
  id: string;
  doc: IndexedDocument;
  score: number;
}

/**
 * A SearchStore held in memory, with no dependencies: BM25 over its own inverted index, brute-force
 * cosine over vectors, RRF for hybrid. For tests, short-lived programs and small corpora (search
 * time grows linearly with the documents in vector mode); SQLiteSearchStore persists and scales.
 */
export class InMemorySearchStore implements SearchStore {
  private readonly embedder: Embedder | undefined;
  private readonly documents = new Map<string, IndexedDocument>();
  /** Term → ids of the documents holding it. */
  private readonly postings = new Map<string, Set<string>>();
  private totalLength = 0;
  /** Unit vectors by embedder id and content hash: unchanged text is never embedded twice, even after a reset. */
  private readonly vectors = new Map<string, Float64Array>();

  constructor(options: InMemorySearchStoreOptions = {}) {
    this.embedder = options.embedder;
  }

  async upsert(documents: readonly SearchDocument[], options: { signal?: AbortSignal } = {}): Promise<UpsertReport> {
    options.signal?.throwIfAborted();
    const report: UpsertReport = { added: 0, updated: 0, unchanged: 0, embedded: 0 };
    const pending: { doc: SearchDocument; hash: string; metadataJson: string }[] = [];
    for (const doc of new Map(documents.map((d) => [d.id, d])).values()) {
      const hash = contentHash(doc.content);
      const metadataJson = JSON.stringify(doc.metadata ?? {});
      const existing = this.documents.get(doc.id);
      if (existing && existing.hash === hash && existing.metadataJson === metadataJson && this.hasVector(hash)) {
        report.unchanged++;
        continue;
      }
      pending.push({ doc, hash, metadataJson });
      if (existing) report.updated++;
      else report.added++;
    }
    // Embed before changing anything: a failed or aborted embedding leaves the store as it was.
    if (this.embedder) await this.embedMissing(pending, options.signal, report);
    for (const { doc, hash, metadataJson } of pending) {
      // Replaced in place (Map.set keeps the key's position): ids() lists documents in insertion order.
      const previous = this.documents.get(doc.id);
      if (previous) this.unindex(previous);
      const terms = new Map<string, number>();
      const tokens = tokenize(doc.content);
      for (const term of tokens) terms.set(term, (terms.get(term) ?? 0) + 1);
      const stored: IndexedDocument = { id: doc.id, content: doc.content, metadata: JSON.parse(metadataJson) as Record<string, MetadataValue>, metadataJson, hash, terms, length: tokens.length };
      this.documents.set(doc.id, stored);
      this.totalLength += stored.length;
      for (const term of terms.keys()) {
        let ids = this.postings.get(term);
        if (!ids) this.postings.set(term, (ids = new Set()));
        ids.add(doc.id);
      }
    }
    return report;
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResult[]> {
    const accept = matcher(options.filter ?? {});
    const ranked = await rankedSearch(options, this.embedder !== undefined, {
      keyword: (pool) => this.keywordSearch(query, pool, accept),
      vector: (pool) => this.vectorSearch(query, pool, accept, options.signal),
    });
    return ranked.map(({ doc, score }) => ({ id: doc.id, content: doc.content, metadata: { ...doc.metadata }, score }));
  }

  async ids(filter: Record<string, MetadataValue> = {}): Promise<string[]> {
    const accept = matcher(filter);
    return [...this.documents.values()].filter(accept).map((doc) => doc.id);
  }

  async get(ids: readonly string[]): Promise<StoredDocument[]> {
    return ids.flatMap((id) => {
      const doc = this.documents.get(id);
      return doc ? [{ id: doc.id, content: doc.content, metadata: { ...doc.metadata } }] : [];
    });
  }

  async delete(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const doc = this.documents.get(id);
      if (!doc) continue;
      this.unindex(doc);
      this.documents.delete(id);
    }
  }

  async count(): Promise<number> {
    return this.documents.size;
  }

  async reset(): Promise<void> {
    this.documents.clear();
    this.postings.clear();
    this.totalLength = 0;
  }

  /** Nothing to release: the documents live as long as the store object. */
  async close(): Promise<void> {}

  /** Takes a document out of the keyword index (not out of `documents`). */
  private unindex(doc: IndexedDocument): void {
    this.totalLength -= doc.length;
    for (const term of doc.terms.keys()) {
      const ids = this.postings.get(term);
      ids?.delete(doc.id);
      if (ids?.size === 0) this.postings.delete(term);
    }
  }

  private hasVector(hash: string): boolean {
    return !this.embedder || this.vectors.has(vectorKey(this.embedder.id, hash));
  }

  /** Embeds each distinct text not yet in the vector cache, once. */
  private async embedMissing(pending: { doc: SearchDocument; hash: string }[], signal: AbortSignal | undefined, report: UpsertReport): Promise<void> {
    const embedder = this.embedder as Embedder;
    const missing = new Map<string, string>();
    for (const { doc, hash } of pending) if (!this.vectors.has(vectorKey(embedder.id, hash))) missing.set(hash, doc.content);
    if (missing.size === 0) return;
    const embedded = await embedder.embed([...missing.values()], signal ? { signal } : {});
    report.embedded += missing.size;
    [...missing.keys()].forEach((hash, index) => this.vectors.set(vectorKey(embedder.id, hash), unit(embedded[index] as number[])));
  }

  /** BM25 as FTS5 computes it (k1 1.2, b 0.75, any query word), scores relative to the best match. */
  private keywordSearch(query: string, limit: number, accept: (doc: IndexedDocument) => boolean): Ranked[] {
    // The words SQLiteSearchStore searches for (stop words dropped), tokenized as the documents were.
    const terms = [...new Set(queryTerms(query).flatMap(tokenize))];
    const n = this.documents.size;
    if (terms.length === 0 || n === 0) return [];
    // As SQLiteSearchStore: first without the words in half the documents or more (they change no
    // score), then with every word when that finds fewer than `limit` accepted documents.
    const kept = informativeTerms(terms, n, limit, (term) => this.postings.get(term)?.size ?? 0);
    if (kept.length < terms.length) {
      const ranked = this.bm25(kept, limit, accept);
      if (ranked.length >= limit) return ranked;
    }
    return this.bm25(terms, limit, accept);
  }

  private bm25(terms: readonly string[], limit: number, accept: (doc: IndexedDocument) => boolean): Ranked[] {
    const n = this.documents.size;
    const averageLength = this.totalLength / n;
    const scores = new Map<IndexedDocument, number>();
    for (const term of terms) {
      const ids = this.postings.get(term);
      if (!ids) continue;
      // FTS5's IDF, floored so a word in most documents still counts a little.
      const idf = Math.max(1e-6, Math.log((n - ids.size + 0.5) / (ids.size + 0.5)));
      for (const id of ids) {
        const doc = this.documents.get(id) as IndexedDocument;
        if (!accept(doc)) continue;
        const tf = doc.terms.get(term) ?? 0;
        const part = (idf * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * doc.length) / averageLength));
        scores.set(doc, (scores.get(doc) ?? 0) + part);
      }
    }
    const ranked = topK([...scores].map(([doc, score]) => ({ id: doc.id, doc, score })), limit);
    const best = ranked[0]?.score ?? 0;
    return ranked.map((r) => ({ id: r.id, doc: r.doc, score: best > 0 ? r.score / best : 1 }));
  }

  /** Cosine similarity against every accepted document with a vector of this embedder. */
  private async vectorSearch(query: string, limit: number, accept: (doc: IndexedDocument) => boolean, signal: AbortSignal | undefined): Promise<Ranked[]> {
    const embedder = this.embedder as Embedder;
    const [raw] = await embedder.embed([query], signal ? { signal } : {});
    if (!raw) return [];
    const q = unit(raw);
    const ranked: Ranked[] = [];
    for (const doc of this.documents.values()) {
      const vector = this.vectors.get(vectorKey(embedder.id, doc.hash));
      if (!vector || vector.length !== q.length || !accept(doc)) continue;
      let dot = 0;
      for (let i = 0; i < q.length; i++) dot += (q[i] as number) * (vector[i] as number);
      ranked.push({ id: doc.id, doc, score: Math.max(0, Math.min(1, dot)) });
    }
    return topK(ranked, limit);
  }
}

/** Words as FTS5's unicode61 tokenizer sees them: runs of letters and digits, lower-cased, diacritics removed. */
export function tokenize(text: string): string[] {
  return text.normalize("NFD").replace(/\p{M}+/gu, "").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function vectorKey(embedderId: string, hash: string): string {
  return `${embedderId}\u0000${hash}`;
}

function unit(vector: readonly number[]): Float64Array {
  const norm = Math.hypot(...vector);
  return Float64Array.from(vector, (x) => (norm === 0 ? 0 : x / norm));
}

/** The `k` best, highest score first; ties keep insertion order. */
function topK(ranked: Ranked[], k: number): Ranked[] {
  return ranked.sort((a, b) => b.score - a.score).slice(0, k);
}

/** A test of a document's metadata against a filter: exact values, a null filter value matching a missing field. */
function matcher(filter: Record<string, MetadataValue>): (doc: IndexedDocument) => boolean {
  const entries = Object.entries(filter);
  if (entries.length === 0) return () => true;
  return (doc) => entries.every(([key, value]) => (doc.metadata[key] ?? null) === value);
}
