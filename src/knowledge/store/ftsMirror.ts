import type { Prepare, SQLiteDatabase } from "../../storage/SQLiteDatabase.js";
import { bm25Idf, bm25Term, ftsStats, ftsTokens, type Bm25Stats } from "./bm25.js";

/**
 * Most tokens an FTS5 index may hold to be mirrored in process (about 20,000 memory items of 30 words):
 * the mirror costs about 10 bytes a token, and larger indexes (knowledge bases) are ranked by FTS5.
 */
export const MAX_MIRRORED_TOKENS = 600_000;

const ASCII_TEXT = /^\p{ASCII}*$/u;
// Runs of characters other than ASCII separators: each is one token for FTS5 and ftsTokens when it is plain ASCII.
const CHUNKS = /(?:[A-Za-z0-9]|\P{ASCII})+/gu;
const ASCII_WORDS = /[a-z0-9]+/g;

/**
 * The words of `text` whose count ftsTokens may get wrong: FTS5's tokenizer and ftsTokens agree on ASCII
 * text, but around other characters they may not (FTS5 keeps some diacritics, joins some symbols into
 * words). Every word made from a run that holds a non-ASCII character is one, however it is split or folded.
 */
export function uncertainTerms(text: string): string[] {
  if (ASCII_TEXT.test(text)) return [];
  const terms: string[] = [];
  for (const chunk of text.match(CHUNKS) ?? []) {
    if (ASCII_TEXT.test(chunk)) continue;
    // FTS5 may split the run at any of its non-ASCII characters or keep them, folded to ASCII or not.
    for (const form of [chunk.toLowerCase(), chunk.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()]) {
      terms.push(...(form.match(ASCII_WORDS) ?? []), ...(form.replace(/\P{ASCII}/gu, "").match(ASCII_WORDS) ?? []));
    }
    terms.push(...ftsTokens(chunk));
  }
  return terms;
}

// Largest rowid rank()'s arrays are made for (FTS5 rowids of our stores count up from 1).
const MAX_DENSE_ROWID = 2 ** 24;

/** One word's documents, in parallel arrays: rowid and occurrences. */
interface Postings {
  term: string;
  rowids: number[];
  counts: number[];
}

/** A ranked match: rank as FTS5's bm25() gives it (negative, lower is better). */
export interface MirrorMatch {
  rowid: number;
  rank: number;
}

/**
 * An in-process copy of a one-column FTS5 index: each word's documents with their word counts and
 * lengths. FTS5 spends most of a ranked query on reading each match's size and positions, so a query
 * whose words are in thousands of rows costs milliseconds; the mirror scores the same rows with the
 * same bm25 formula and statistics (ftsStats: the index's own row and token counts) in a fraction of it.
 *
 * One mirror per file and FTS table, shared by every handle on the connection (SQLiteDatabase.derived).
 * Writers apply their changes in the transaction that makes them (tracking()); any other change (another
 * process, a handle that does not track, a rollback) makes it stale, and it is read again on next use.
 * It is used only while its row and token counts equal the index's, so text FTS5 tokenizes otherwise
 * than ftsTokens never gives other scores: the query goes to FTS5.
 */
export class FtsMirror {
  private readonly postings = new Map<string, Postings>();
  private readonly documents = new Map<number, Postings[]>();
  // Each mirrored row's length in tokens, by rowid.
  private lengths = new Int32Array(0);
  // Words whose counts may differ from FTS5's (uncertainTerms); kept until the mirror is read again.
  private readonly uncertain = new Set<string>();
  private tokens = 0;
  // The largest rowid mirrored: rank() scores into arrays indexed by rowid (rowids of FTS5 rows are dense).
  private maxRowid = 0;
  private sparse = false;
  private scores = new Float64Array(0);
  private stamps = new Uint32Array(0);
  private stamp = 0;
  /** Times the mirror was read from the file (diagnostics: writes of this process are applied, not read again). */
  loads = 0;
  // The connection's write state and data_version the mirror is current at; undefined when stale.
  private syncedAt: string | undefined;
  // The index's structure record (its segments and write counter: it changes with every write to the index)
  // and statistics when the mirror was last known current: after the file was closed and opened again, or
  // another connection wrote other tables, the mirror is still current when they are the same.
  private noted: string | undefined;

  private constructor(
    private readonly db: SQLiteDatabase,
    private readonly fts: string,
    private readonly column: string,
  ) {}

  /** The mirror of `fts` (content in `column`) on the file of `db`. */
  static of(db: SQLiteDatabase, fts: string, column: string): FtsMirror {
    return db.derived(`fts-mirror:${fts}`, () => new FtsMirror(db, fts, column));
  }

  /**
   * Inside db.use(): the mirror, read again first when stale, with the index's statistics; undefined when
   * the index holds more than MAX_MIRRORED_TOKENS or the mirror's counts differ from FTS5's.
   */
  current(prepare: Prepare): { mirror: FtsMirror; stats: Bm25Stats } | undefined {
    const stats = ftsStats(prepare, this.fts);
    if ((stats.tokens ?? 0) > MAX_MIRRORED_TOKENS) {
      this.clear();
      this.syncedAt = undefined;
      return undefined;
    }
    const at = this.stateNow(prepare, false);
    if (this.syncedAt !== at) {
      const noted = this.noted !== undefined && this.noted === this.structure(prepare, stats);
      if (!noted) {
        this.clear();
        for (const row of prepare(`SELECT rowid, ${this.column} AS content FROM ${this.fts}`).iterate() as Iterable<{ rowid: number; content: string | null }>) {
          this.add(row.rowid, row.content ?? "");
        }
        this.loads++;
      }
      this.syncedAt = at;
      this.noted = undefined;
    }
    // Rowids far above the row count (rows inserted with chosen rowids) would make rank()'s arrays large.
    const dense = !this.sparse && this.maxRowid <= 16 * stats.rows + 65_536;
    return dense && this.documents.size === stats.rows && this.tokens === stats.tokens ? { mirror: this, stats } : undefined;
  }

  /**
   * Inside a transaction's synchronous body, before its writes: the mirror to apply them to (add, remove,
   * clear), current once the transaction commits; undefined when it is stale anyway (nothing to track).
   */
  tracking(prepare: Prepare): FtsMirror | undefined {
    if (this.syncedAt === undefined || this.syncedAt !== this.stateNow(prepare, false)) {
      // Current before the file was closed, and the index unchanged since: current again.
      if (this.noted === undefined || this.noted !== this.structure(prepare, ftsStats(prepare, this.fts))) return undefined;
      this.noted = undefined;
    }
    this.syncedAt = this.stateNow(prepare, true);
    return this;
  }

  /** Called before the connection closes: notes the index's state when the mirror is current, so opening the file again keeps it. */
  beforeClose(prepare: Prepare): void {
    if (this.syncedAt !== undefined && this.syncedAt === this.stateNow(prepare, false)) this.noted = this.structure(prepare, ftsStats(prepare, this.fts));
  }

  /** Adds (or replaces) the row `rowid` with `content`. */
  add(rowid: number, content: string): void {
    this.remove(rowid);
    if (rowid < 0 || rowid > MAX_DENSE_ROWID) {
      // Arrays by rowid cannot hold it: the mirror is not used until it is read again without such rows.
      this.sparse = true;
      return;
    }
    const tokens = ftsTokens(content);
    const counts = new Map<string, number>();
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    const terms: Postings[] = [];
    for (const [term, count] of counts) {
      let postings = this.postings.get(term);
      if (!postings) {
        postings = { term, rowids: [], counts: [] };
        this.postings.set(term, postings);
      }
      postings.rowids.push(rowid);
      postings.counts.push(count);
      terms.push(postings);
    }
    if (rowid >= this.lengths.length) {
      const grown = new Int32Array(Math.max(rowid + 1, this.lengths.length * 2, 1024));
      grown.set(this.lengths);
      this.lengths = grown;
    }
    this.lengths[rowid] = tokens.length;
    for (const term of uncertainTerms(content)) this.uncertain.add(term);
    this.documents.set(rowid, terms);
    if (rowid > this.maxRowid) this.maxRowid = rowid;
    this.tokens += tokens.length;
  }

  /** Removes the row `rowid`, if mirrored. */
  remove(rowid: number): void {
    const terms = this.documents.get(rowid);
    if (!terms) return;
    for (const postings of terms) {
      const at = postings.rowids.lastIndexOf(rowid);
      if (at < 0) continue;
      postings.rowids.splice(at, 1);
      postings.counts.splice(at, 1);
      if (postings.rowids.length === 0) this.postings.delete(postings.term);
    }
    this.documents.delete(rowid);
    this.tokens -= this.lengths[rowid] as number;
  }

  /** Removes every row. */
  clear(): void {
    this.postings.clear();
    this.documents.clear();
    this.uncertain.clear();
    this.maxRowid = 0;
    this.sparse = false;
    this.tokens = 0;
  }

  /**
   * The best `limit` rows holding any of `terms` (FTS5 tokens, in the query's order), best first, ranked
   * as FTS5's bm25() ranks them (equal ranks by rowid); `matches` counts every row holding one. Undefined
   * when a term is not plain ASCII or may be counted otherwise than by FTS5 (uncertainTerms): FTS5 ranks then.
   */
  rank(terms: readonly string[], stats: Bm25Stats, limit: number): { best: MirrorMatch[]; matches: number } | undefined {
    if (terms.some((term) => !ASCII_TEXT.test(term) || this.uncertain.has(term))) return undefined;
    if (limit <= 0) return { best: [], matches: 0 };
    // Scores by rowid in arrays kept between queries; a row's stamp says whether this query has scored it yet.
    if (this.scores.length <= this.maxRowid) {
      this.scores = new Float64Array(this.maxRowid + 1024);
      this.stamps = new Uint32Array(this.maxRowid + 1024);
    }
    const { scores, stamps, lengths } = this;
    if (this.stamp === 0xffffffff) {
      stamps.fill(0);
      this.stamp = 0;
    }
    const stamp = ++this.stamp;
    const touched: number[] = [];
    // Terms add up in the query's order, as FTS5 sums its phrases, so the sums round alike.
    for (const term of terms) {
      const postings = this.postings.get(term);
      if (!postings) continue;
      const idf = bm25Idf(stats.rows, postings.rowids.length);
      const { rowids, counts } = postings;
      for (let i = 0; i < rowids.length; i++) {
        const rowid = rowids[i] as number;
        const part = bm25Term(idf, counts[i] as number, lengths[rowid] as number, stats.averageLength);
        if (stamps[rowid] === stamp) scores[rowid] = (scores[rowid] as number) + part;
        else {
          stamps[rowid] = stamp;
          scores[rowid] = part;
          touched.push(rowid);
        }
      }
    }
    // The best `limit`, kept sorted (worst last): most matches score below the worst kept and cost one comparison.
    const best: MirrorMatch[] = [];
    for (const rowid of touched) {
      const rank = -(scores[rowid] as number);
      if (best.length === limit) {
        const worst = best[limit - 1] as MirrorMatch;
        if (rank > worst.rank || (rank === worst.rank && rowid > worst.rowid)) continue;
        best.pop();
      }
      let at = best.length;
      while (at > 0 && ((best[at - 1] as MirrorMatch).rank > rank || ((best[at - 1] as MirrorMatch).rank === rank && (best[at - 1] as MirrorMatch).rowid > rowid))) at--;
      best.splice(at, 0, { rowid, rank });
    }
    return { best, matches: touched.length };
  }

  private structure(prepare: Prepare, stats: Bm25Stats): string {
    const row = prepare(`SELECT block FROM ${this.fts}_data WHERE id = 10`).get() as { block: Uint8Array | ArrayBuffer } | undefined;
    const bytes = row ? Buffer.from(row.block instanceof Uint8Array ? row.block : new Uint8Array(row.block)).toString("hex") : "";
    return `${bytes}|${stats.rows}|${stats.tokens}`;
  }

  private stateNow(prepare: Prepare, afterCommit: boolean): string {
    const version = (prepare("PRAGMA data_version").get() as { data_version: number } | undefined)?.data_version;
    return `${this.db.writeState(afterCommit)}|${version}`;
  }
}
