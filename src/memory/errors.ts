import { StorageError } from "../storage/StorageError.js";
import type { MemoryType } from "./types.js";

/** Names of the memories in messages. */
export const MEMORY_NAMES: Record<MemoryType, string> = {
  short: "short-term memory",
  long: "long-term memory",
  entity: "entity memory",
  external: "external memory",
};

/** Thrown at construction for invalid memory options (bad scoring weights, a missing API key). */
export class MemoryOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MemoryOptionsError";
  }
}

/** Thrown by `save` for a value the memory cannot store (e.g. an entity without a name). */
export class MemoryValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MemoryValueError";
  }
}

/** Thrown by `flush` (and `close`) when deferred writes failed; `failures` are their errors, in order. */
export class MemoryWriteError extends Error {
  constructor(
    readonly kind: MemoryType,
    readonly failures: readonly Error[],
  ) {
    const first = failures[0];
    const written = `${failures.length} deferred write(s) to ${MEMORY_NAMES[kind]} failed; the values were not saved`;
    super(
      // A StorageError names the file and the fix already.
      first instanceof StorageError
        ? `${written}: ${first.message}`
        : `${written}. First error: ${first?.message ?? "unknown error"}. Check the storage location (CREWTS_STORAGE_DIR or the memory's path) or the provider, then save again.`,
      { cause: first },
    );
    this.name = "MemoryWriteError";
  }
}

/** Thrown by `evaluateTask` when the model's answer is not the evaluation JSON; `rawOutput` is what it said. */
export class TaskEvaluationError extends Error {
  constructor(
    message: string,
    readonly rawOutput: string,
  ) {
    super(message);
    this.name = "TaskEvaluationError";
  }
}

/** An unknown thrown value as an Error. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
