import { MemoryValueError } from "./errors.js";
import type { MetadataValue } from "./types.js";

/** SQL conditions and parameters matching metadata exactly. */
export interface SqlFilter {
  sql: string;
  params: (string | number | null)[];
}

/** `AND json_extract(<column>, '$."key"') IS ?` for each filter entry (IS: a null value matches a missing field). */
export function metadataFilterSql(column: string, filter: Record<string, MetadataValue> = {}): SqlFilter {
  let sql = "";
  const params: (string | number | null)[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key.includes('"')) throw new MemoryValueError(`metadata filter key ${JSON.stringify(key)} contains a double quote; use keys without one.`);
    sql += ` AND json_extract(${column}, ?) IS ?`;
    params.push(`$."${key}"`, typeof value === "boolean" ? Number(value) : value);
  }
  return { sql, params };
}
