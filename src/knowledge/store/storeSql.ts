import type { Prepare } from "../../storage/SQLiteDatabase.js";
import { SearchStoreError, type MetadataValue, type SearchDocument } from "./SearchStore.js";

// The SQL pieces of SQLiteSearchStore: its row shapes, vector tables by dimension, metadata filters, vector blobs.

/** A document row as searches read it. */
export interface Row {
  rowid: number;
  id: string;
  content: string;
  metadata: string;
}

/** A document of an upsert with what the file holds of it: its content hash, metadata JSON and rowid when stored. */
export interface PendingDocument {
  doc: SearchDocument;
  hash: string;
  metadata: string;
  rowid: number | undefined;
  contentChanged: boolean;
}

/** The vector tables of a store file, one per dimension count. */
export const VECTOR_TABLES_SQL = "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'vectors_%'";

/** Dimensions of the vector tables (vectors_<dims>); the vector index adds shadow tables (vectors_64_idx_shadow) that hold none. */
export function vectorDims(rows: { name: string }[]): number[] {
  return rows.flatMap((r) => {
    const dims = /^vectors_(\d+)$/.exec(r.name)?.[1];
    return dims === undefined ? [] : [Number(dims)];
  });
}

/** One query telling whether a row has a vector of an embedder in any vector table. */
export function vectorLookupSql(dims: number[]): string {
  if (dims.length === 0) return "SELECT 1 WHERE ? IS NULL AND ? IS NULL";
  return `SELECT 1 WHERE ${dims.map((d) => `EXISTS (SELECT 1 FROM vectors_${d} WHERE rowid = ?1 AND embedder = ?2)`).join(" OR ")}`;
}

/** Deletes the vectors of `rowids` from every vector table. */
export function deleteVectors(prepare: Prepare, rowids: number[]): void {
  for (const dims of vectorDims(prepare(VECTOR_TABLES_SQL).all() as { name: string }[])) {
    const remove = prepare(`DELETE FROM vectors_${dims} WHERE rowid = ?`);
    for (const rowid of rowids) remove.run(rowid);
  }
}

/** A metadata filter as a WHERE fragment over documents `d` and its parameters. */
export interface FilterSql {
  sql: string;
  params: (string | number | null)[];
}

/** The SQL of a metadata filter: every key must equal its value (null matches a missing field). */
export function filterSql(filter: Record<string, MetadataValue>): FilterSql {
  let sql = "";
  const params: (string | number | null)[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key.includes('"')) throw new SearchStoreError(`metadata filter key ${JSON.stringify(key)} contains a double quote; use keys without one.`);
    // IS rather than =: a null filter value matches a null (or missing) field.
    sql += " AND json_extract(d.metadata, ?) IS ?";
    params.push(`$."${key}"`, typeof value === "boolean" ? Number(value) : value);
  }
  return { sql, params };
}

/** A vector as the float32 blob SQLite stores. */
export function float32Blob(vector: readonly number[]): Buffer {
  return Buffer.from(new Float32Array(vector).buffer);
}
