import type { Prepare } from "../../storage/SQLiteDatabase.js";

// FTS5's bm25() constants.
const K1 = 1.2;
const B = 0.75;

/** What FTS5's bm25() knows of the whole index: its row count, token count and average row length in tokens. */
export interface Bm25Stats {
  rows: number;
  averageLength: number;
  /** Tokens of every row together. */
  tokens?: number;
}

/**
 * The words FTS5's unicode61 tokenizer makes of `text`: runs of letters, numbers and private-use
 * characters, case-folded, with diacritics removed.
 */
export function ftsTokens(text: string): string[] {
  // Plain ASCII (most text) has no diacritics to remove, and its only letters and digits are [a-z0-9] once lower-cased.
  if (ASCII.test(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const folded = text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  return folded.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? [];
}

const ASCII = /^[ -~\t\n\r]*$/;

/** The index's row count and average length, read from FTS5's own averages record (id 1 of `<fts>_data`). */
export function ftsStats(prepare: Prepare, fts: string): Bm25Stats {
  const row = prepare(`SELECT block FROM ${fts}_data WHERE id = 1`).get() as { block: Uint8Array | ArrayBuffer } | undefined;
  if (!row) return { rows: 0, averageLength: 0, tokens: 0 };
  const bytes = row.block instanceof Uint8Array ? row.block : new Uint8Array(row.block);
  const [rows, at] = sqliteVarint(bytes, 0);
  const [tokens] = sqliteVarint(bytes, at);
  return { rows, averageLength: rows === 0 ? 0 : tokens / rows, tokens };
}

/**
 * Ranks `documents` for `terms` with FTS5's bm25() formula and the whole index's statistics, so scores
 * equal what FTS5 would give them: for a few documents (those a filter kept) this costs a tokenization
 * each, where FTS5 would rank every match of the index. Ranks are negative, lower is better (as bm25()).
 * Documents holding none of the terms are left out.
 */
export function rankByBm25<T extends { content: string }>(documents: readonly T[], terms: readonly string[], stats: Bm25Stats, documentsWith: (term: string) => number): (T & { rank: number })[] {
  const idf = terms.map((term) => bm25Idf(stats.rows, documentsWith(term)));
  const ranked: (T & { rank: number })[] = [];
  for (const doc of documents) {
    const tokens = ftsTokens(doc.content);
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    let score = 0;
    let found = false;
    terms.forEach((term, i) => {
      const tf = counts.get(term) ?? 0;
      if (tf === 0) return;
      found = true;
      score += bm25Term(idf[i] as number, tf, tokens.length, stats.averageLength);
    });
    if (found) ranked.push({ ...doc, rank: -score });
  }
  return ranked.sort((a, b) => a.rank - b.rank);
}

/** FTS5's inverse document frequency of a word in `hits` of `rows` documents (a word in half of them or more gets 1e-6). */
export function bm25Idf(rows: number, hits: number): number {
  const value = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return value > 0 ? value : 1e-6;
}

/** One word's share of a document's bm25 score: `tf` occurrences in a document of `length` tokens. */
export function bm25Term(idf: number, tf: number, length: number, averageLength: number): number {
  return idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / (averageLength || 1))));
}

/** Terms of an FTS5 expression made by ftsMatch ("a" OR "b"), each as FTS5 tokenizes it. */
export function matchTerms(match: string): string[] {
  return [...new Set(match.split(" OR ").flatMap((quoted) => ftsTokens(quoted.slice(1, -1))))];
}

/** SQLite's variable-length integer (big-endian groups of 7 bits; a 9th byte holds 8). */
function sqliteVarint(bytes: Uint8Array, start: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = bytes[start + i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, start + i + 1];
  }
  return [value * 256 + (bytes[start + 8] ?? 0), start + 9];
}
