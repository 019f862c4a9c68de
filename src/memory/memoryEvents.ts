import { eventBus } from "../events/EventBus.js";
import type { EventSource } from "../events/types.js";
import { redactSecrets } from "../llm/redact.js";
import type { MemoryEventSource, MemoryType, MetadataValue } from "./types.js";

/** CrewAI's source type of each memory, carried by memory events. */
export const SOURCE_TYPES: Record<MemoryType, string> = {
  short: "short_term_memory",
  long: "long_term_memory",
  entity: "entity_memory",
  external: "external_memory",
};

const PREVIEW_CHARS = 500;

/** At most 500 characters of `text`, for event payloads. */
export function preview(text: string): string {
  return text.length <= PREVIEW_CHARS ? text : `${text.slice(0, PREVIEW_CHARS - 1)}…`;
}

/** The source ids found in save metadata (agentId, agentRole, taskId, taskName, crewId). */
export function sourceFromMetadata(metadata: Record<string, MetadataValue>): MemoryEventSource {
  const source: MemoryEventSource = {};
  for (const key of ["agentId", "agentRole", "taskId", "taskName", "crewId"] as const) {
    const value = metadata[key];
    if (typeof value === "string") source[key] = value;
  }
  return source;
}

/** One queued save, as events describe it. */
export interface SaveEventInfo {
  kind: MemoryType;
  value: string;
  metadata: Record<string, MetadataValue>;
  source: MemoryEventSource;
}

const fields = (kind: MemoryType) => ({ memoryKind: kind, sourceType: SOURCE_TYPES[kind] });
const errorText = (error: unknown) => redactSecrets(error instanceof Error ? error.message : String(error));

/** Emits memory_save_started when anyone listens. */
export function emitSaveStarted(info: SaveEventInfo): void {
  if (!eventBus.hasListeners("memory_save_started")) return;
  eventBus.emit("memory_save_started", { ...info.source, ...fields(info.kind), value: preview(info.value), metadata: info.metadata });
}

/** Emits memory_save_completed when anyone listens. */
export function emitSaveCompleted(info: SaveEventInfo, saveTimeMs: number): void {
  if (!eventBus.hasListeners("memory_save_completed")) return;
  eventBus.emit("memory_save_completed", { ...info.source, ...fields(info.kind), value: preview(info.value), metadata: info.metadata, saveTimeMs });
}

/** Emits memory_save_failed when anyone listens (the error message redacted of secrets). */
export function emitSaveFailed(info: SaveEventInfo, error: unknown): void {
  if (!eventBus.hasListeners("memory_save_failed")) return;
  eventBus.emit("memory_save_failed", { ...info.source, ...fields(info.kind), value: preview(info.value), metadata: info.metadata, error: errorText(error) });
}

/** A search as events describe it. */
export interface QueryEventInfo {
  kind: MemoryType;
  query: string;
  limit: number;
  scoreThreshold: number | undefined;
  source: EventSource;
}

const queryFields = (info: QueryEventInfo) => ({
  ...info.source,
  ...fields(info.kind),
  query: preview(info.query),
  limit: info.limit,
  ...(info.scoreThreshold === undefined ? {} : { scoreThreshold: info.scoreThreshold }),
});

/** Emits memory_query_started when anyone listens. */
export function emitQueryStarted(info: QueryEventInfo): void {
  if (eventBus.hasListeners("memory_query_started")) eventBus.emit("memory_query_started", queryFields(info));
}

/** Emits memory_query_completed when anyone listens. */
export function emitQueryCompleted(info: QueryEventInfo, resultsCount: number, queryTimeMs: number): void {
  if (eventBus.hasListeners("memory_query_completed")) eventBus.emit("memory_query_completed", { ...queryFields(info), resultsCount, queryTimeMs });
}

/** Emits memory_query_failed when anyone listens. */
export function emitQueryFailed(info: QueryEventInfo, error: unknown): void {
  if (eventBus.hasListeners("memory_query_failed")) eventBus.emit("memory_query_failed", { ...queryFields(info), error: errorText(error) });
}
