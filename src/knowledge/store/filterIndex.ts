import { createHash } from "node:crypto";
import type { Prepare } from "../../storage/SQLiteDatabase.js";
import type { MetadataValue } from "./SearchStore.js";

// Below this many documents in a file, joining every keyword match to its document is cheap enough.
const MIN_ROWS = 2000;
/** Most documents a filter may keep for a keyword search to rank only those (see filteredRowids). */
export const MAX_FILTERED_ROWS = 1000;

const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A document row as the store reads it. */
export interface DocumentRow {
  rowid: number;
  id: string;
  content: string;
  metadata: string;
}

/**
 * The documents of `collection` that match `filter`, when there are at most
 * MAX_FILTERED_ROWS of them; undefined when there are more, when the file is small, or when the
 * index cannot be made (a read-only file). A filter usually names one run or one entity among
 * thousands of documents: FTS5 then ranks those few instead of every match. The lookup goes through an
 * expression index on the filter's first key, made on first use (`CREATE INDEX IF NOT EXISTS`).
 */
export function filteredDocuments(prepare: Prepare, collection: string, filter: Record<string, MetadataValue>, indexed: Set<string>): DocumentRow[] | undefined {
  const entries = Object.entries(filter);
  const first = entries[0];
  if (!first) return undefined;
  const total = (prepare("SELECT max(rowid) AS n FROM documents").get() as { n: number | null } | undefined)?.n ?? 0;
  if (total < MIN_ROWS) return undefined;
  // The path is written into the SQL (keys hold no double quote; single quotes are doubled) so that the
  // query's expression is the index's, which SQLite needs to use it.
  const expression = `json_extract(metadata, ${sqlText(`$."${first[0]}"`)})`;
  if (!indexed.has(first[0])) {
    const name = `documents_meta_${createHash("sha256").update(first[0]).digest("hex").slice(0, 12)}`;
    try {
      prepare(`CREATE INDEX IF NOT EXISTS ${name} ON documents (collection, ${expression})`).run();
    } catch {
      return undefined;
    }
    indexed.add(first[0]);
  }
  let sql = `SELECT rowid, id, content, metadata FROM documents WHERE collection = ? AND ${expression} IS ?`;
  const params: (string | number | null)[] = [collection, sqlValue(first[1])];
  for (const [key, value] of entries.slice(1)) {
    sql += " AND json_extract(metadata, ?) IS ?";
    params.push(`$."${key}"`, sqlValue(value));
  }
  const rows = prepare(`${sql} LIMIT ${MAX_FILTERED_ROWS + 1}`).all(...params) as DocumentRow[];
  return rows.length > MAX_FILTERED_ROWS ? undefined : rows;
}

function sqlValue(value: MetadataValue): string | number | null {
  return typeof value === "boolean" ? Number(value) : value;
}
