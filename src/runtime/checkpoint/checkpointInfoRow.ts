import type { CheckpointInfo } from "./types.js";

/** The header columns every SQL checkpoint store keeps, as its rows name them. */
export interface CheckpointInfoRow {
  id: string;
  lineage: string;
  branch: string;
  parent_id: string | null;
  created_at: string;
  event: string;
  kind: string;
  name: string;
}

/** A checkpoint's header from its row (SQLite and Postgres stores alike). */
export function checkpointInfoFromRow(row: CheckpointInfoRow): CheckpointInfo {
  return {
    id: row.id,
    lineage: row.lineage,
    branch: row.branch,
    ...(row.parent_id !== null ? { parentId: row.parent_id } : {}),
    createdAt: row.created_at,
    event: row.event,
    kind: row.kind as CheckpointInfo["kind"],
    name: row.name,
  };
}
