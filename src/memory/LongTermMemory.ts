import { randomUUID } from "node:crypto";
import { z } from "zod";
import { matchTerms } from "../knowledge/store/bm25.js";
import { FtsMirror } from "../knowledge/store/ftsMirror.js";
import { FtsQueryPlanner, ftsVocabTable, rankWithPlan } from "../knowledge/store/ftsQueryTerms.js";
import { resolveLLM } from "../llm/resolveLLM.js";
import type { BaseLLM } from "../llm/types.js";
import { SQLiteDatabase, type Prepare } from "../storage/SQLiteDatabase.js";
import { storagePath } from "../storage/storageDir.js";
import { parseStoredJson } from "../storage/StorageError.js";
import { MemoryValueError } from "./errors.js";
import { memoryText } from "./memoryText.js";
import { QueuedMemory, type Candidate, type CandidateQuery } from "./QueuedMemory.js";
import { resolveScoring, type MemoryScoring } from "./scoring.js";
import { metadataFilterSql } from "./sqlFilter.js";
import type { MetadataValue } from "./types.js";

/** File of long-term memory in the storage directory (`crewts reset-memories -l` deletes it). */
export const LONG_TERM_MEMORY_DB_FILE = "long_term_memory.db";

/** How well an agent did a task, and what to do better next time (CrewAI's LongTermMemoryItem). */
export interface LongTermEvaluation {
  taskDescription: string;
  expectedOutput?: string;
  agentRole: string;
  /** 0 to 10. */
  quality: number;
  suggestions: string[];
  metadata?: Record<string, MetadataValue>;
}

/** Options of LongTermMemory. */
export interface LongTermMemoryOptions {
  /** Database file; default long_term_memory.db in the storage directory. */
  path?: string;
  scoring?: MemoryScoring;
  /** The model that evaluates finished tasks (default: the agent's). */
  llm?: string | BaseLLM;
}

const metadataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const evaluationSchema = z.object({
  taskDescription: z.string().trim().min(1, "must be a non-empty string"),
  expectedOutput: z.string().optional(),
  agentRole: z.string(),
  quality: z.number().finite().min(0).max(10),
  suggestions: z.array(z.string()),
  metadata: z.record(z.string(), metadataValue).optional(),
});

interface LongTermRecord {
  id: string;
  taskDescription: string;
  agentRole: string;
  expectedOutput: string | null;
  quality: number;
  suggestions: string[];
  metadata: Record<string, MetadataValue>;
  createdAt: number;
}

const SETUP = [
  `CREATE TABLE IF NOT EXISTS long_term_memories (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    task_description TEXT NOT NULL,
    agent_role TEXT NOT NULL,
    expected_output TEXT,
    quality REAL NOT NULL,
    suggestions TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at INTEGER NOT NULL
  )`,
  // Task descriptions by words: a new task finds the lessons of similar ones, not only of identical ones.
  "CREATE VIRTUAL TABLE IF NOT EXISTS long_term_fts USING fts5(task_description, tokenize = 'unicode61')",
  ftsVocabTable("long_term_fts", "long_term_fts_vocab"),
];

interface Row {
  id: string;
  task_description: string;
  agent_role: string;
  expected_output: string | null;
  quality: number;
  suggestions: string;
  metadata: string;
  created_at: number;
  rank: number;
}

/**
 * Lessons of past tasks across runs: each evaluation (quality 0–10 and suggestions) is kept in SQLite;
 * `search(taskDescription)` returns the suggestions of similar tasks, ranked by relevance, recency and
 * quality (as importance, quality / 10).
 */
export class LongTermMemory extends QueuedMemory<LongTermRecord> {
  readonly kind = "long" as const;
  /** The evaluator model given in the options, if any. */
  readonly llm: BaseLLM | undefined;
  protected override readonly uniqueContent = true;
  private readonly db: SQLiteDatabase;
  private readonly queries: FtsQueryPlanner;

  constructor(options: LongTermMemoryOptions = {}) {
    super(resolveScoring(options.scoring));
    this.llm = options.llm === undefined ? undefined : resolveLLM(options.llm);
    const path = options.path;
    this.db = new SQLiteDatabase(() => path ?? storagePath(LONG_TERM_MEMORY_DB_FILE), SETUP);
    this.queries = new FtsQueryPlanner(this.db, { rows: "long_term_memories", vocab: "long_term_fts_vocab" });
  }

  /** Queues an evaluation of a finished task. */
  saveEvaluation(evaluation: LongTermEvaluation): Promise<void> {
    return this.save(evaluation, evaluation.metadata ?? {});
  }

  /**
   * Saves a LongTermEvaluation, or a text as a lesson: metadata taskDescription (or task) names the
   * task it applies to (default: the text itself), agentRole (or agent) and quality (default 5) are read too.
   */
  protected toRecords(value: unknown, metadata: Record<string, MetadataValue>): { record: LongTermRecord; text: string }[] {
    const createdAt = typeof metadata.createdAt === "number" ? metadata.createdAt : Date.now();
    const { createdAt: _c, ...rest } = metadata;
    let record: LongTermRecord;
    if (typeof value === "object" && value !== null && "taskDescription" in value) {
      const parsed = evaluationSchema.safeParse(value);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
        throw new MemoryValueError(`Invalid long-term memory evaluation: ${problems}.`);
      }
      const e = parsed.data;
      record = {
        id: randomUUID(),
        taskDescription: e.taskDescription,
        agentRole: e.agentRole,
        expectedOutput: e.expectedOutput ?? null,
        quality: e.quality,
        suggestions: e.suggestions.map((s) => s.trim()).filter((s) => s !== ""),
        metadata: { ...e.metadata, ...rest },
        createdAt,
      };
    } else {
      const text = memoryText(value, "long-term memory");
      const str = (key: string) => (typeof metadata[key] === "string" ? metadata[key] : undefined);
      const quality = typeof metadata.quality === "number" ? Math.min(10, Math.max(0, metadata.quality)) : 5;
      record = {
        id: randomUUID(),
        taskDescription: str("taskDescription") ?? str("task") ?? text,
        agentRole: str("agentRole") ?? str("agent") ?? "",
        expectedOutput: str("expectedOutput") ?? null,
        quality,
        suggestions: [text],
        metadata: rest,
        createdAt,
      };
    }
    return [{ record, text: `Task: ${record.taskDescription}\nQuality: ${record.quality}\nSuggestions: ${record.suggestions.join(" | ")}` }];
  }

  protected async writeRecords(records: LongTermRecord[]): Promise<void> {
    await this.db.transaction((prepare) => {
      const mirror = FtsMirror.of(this.db, "long_term_fts", "task_description").tracking(prepare);
      const insert = prepare(
        "INSERT INTO long_term_memories (id, task_description, agent_role, expected_output, quality, suggestions, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      );
      const fts = prepare("INSERT INTO long_term_fts (rowid, task_description) VALUES (?, ?)");
      for (const r of records) {
        // agentRole and quality are in the metadata JSON too, so filters can match them.
        const metadata = JSON.stringify({ ...r.metadata, agentRole: r.agentRole, quality: r.quality });
        const { lastInsertRowid } = insert.run(r.id, r.taskDescription, r.agentRole, r.expectedOutput, r.quality, JSON.stringify(r.suggestions), metadata, r.createdAt);
        fts.run(lastInsertRowid, r.taskDescription);
        mirror?.add(Number(lastInsertRowid), r.taskDescription);
      }
    });
  }

  protected async findCandidates(query: string, options: CandidateQuery): Promise<Candidate[]> {
    // Searching a memory that was never written creates no file.
    if (!(await this.db.canRead())) return [];
    const filter = metadataFilterSql("m.metadata", options.filter);
    const columns = "m.id, m.task_description, m.agent_role, m.expected_output, m.quality, m.suggestions, m.metadata, m.created_at";
    // Without a filter, FTS5 ranks alone and only the best rows are read: joining every match first reads
    // each matching row (suggestions, metadata) before sorting, which costs more than the ranking.
    const sql =
      filter.sql === ""
        ? `SELECT ${columns}, f.rank FROM (SELECT rowid, bm25(long_term_fts) AS rank FROM long_term_fts WHERE long_term_fts MATCH ? ORDER BY rank LIMIT ?) f ` +
          "JOIN long_term_memories m ON m.rowid = f.rowid ORDER BY f.rank"
        : `SELECT ${columns}, bm25(long_term_fts) AS rank FROM long_term_fts JOIN long_term_memories m ON m.rowid = long_term_fts.rowid ` +
          `WHERE long_term_fts MATCH ?${filter.sql} ORDER BY rank LIMIT ?`;
    const plan = await this.queries.plan(query, options.limit);
    const rank = (prepare: Prepare, match: string): Row[] => {
      // Without a filter the in-process mirror of the index ranks the matches (same scores, no FTS5 reads per match).
      const current = filter.sql === "" ? FtsMirror.of(this.db, "long_term_fts", "task_description").current(prepare) : undefined;
      const ranked = current?.mirror.rank(matchTerms(match), current.stats, options.limit);
      if (!ranked) return prepare(sql).all(match, ...filter.params, options.limit) as Row[];
      const read = prepare(`SELECT ${columns} FROM long_term_memories m WHERE m.rowid = ?`);
      return ranked.best.flatMap(({ rowid, rank }) => {
        const row = read.get(rowid) as Omit<Row, "rank"> | undefined;
        return row ? [{ ...row, rank }] : [];
      });
    };
    const rows = await rankWithPlan(plan, options.limit, (match) => this.db.use((prepare) => rank(prepare, match)));
    // BM25 is unbounded (lower is better): relevance is relative to the best match, as in SQLiteSearchStore.
    const best = rows[0]?.rank ?? -1;
    return rows.flatMap((row) => {
      const relevance = best < 0 ? row.rank / best : 1;
      if (relevance < options.scoreThreshold) return [];
      const suggestions = this.storedJson(row, "suggestions") as string[];
      const metadata: Record<string, MetadataValue> = {
        ...(this.storedJson(row, "metadata") as Record<string, MetadataValue>),
        taskDescription: row.task_description,
        agentRole: row.agent_role,
        quality: row.quality,
        ...(row.expected_output === null ? {} : { expectedOutput: row.expected_output }),
      };
      return suggestions.map((content, index) => ({
        id: `${row.id}#${index}`,
        content,
        metadata,
        relevance,
        createdAt: row.created_at,
        importance: row.quality / 10,
      }));
    });
  }

  protected async clear(): Promise<void> {
    if (!(await this.db.canRead())) return;
    await this.db.transaction((prepare) => {
      const mirror = FtsMirror.of(this.db, "long_term_fts", "task_description").tracking(prepare);
      prepare("DELETE FROM long_term_memories").run();
      prepare("DELETE FROM long_term_fts").run();
      mirror?.clear();
    });
    this.queries.forget();
  }

  /** Releases this memory's share of the file's connection; the next use opens it again. */
  protected async release(): Promise<void> {
    await this.db.close();
  }

  private storedJson(row: Row, column: "suggestions" | "metadata"): unknown {
    const where = `The ${column} of long-term memory "${row.id}" (table long_term_memories)`;
    return parseStoredJson(row[column], this.db.file, where, "Delete that row, or reset long-term memory (crewts reset-memories -l).");
  }
}
