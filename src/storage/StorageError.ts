import { accessSync, closeSync, constants, existsSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";

/** What went wrong with a storage file; the message of a StorageError says what to do about it. */
export type StorageErrorCode =
  | "corrupt"
  | "read-only"
  | "cannot-open"
  | "too-many-open-files"
  | "locked"
  | "disk-full"
  | "bad-json"
  | "failed";

/** A storage file (SQLite database or saved JSON) could not be read or written; `path` names it, `code` says why. */
export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "StorageError";
  }
}

const WRITABLE_FOLDER = "set CREWTS_STORAGE_DIR to a writable folder";

/**
 * `error` as a StorageError naming `path` and the fix, when it is a SQLite or file-system error;
 * anything else (a store's own errors, a caller's) is returned as it is.
 */
export function toStorageError(error: unknown, path: string, readOnly = false): unknown {
  if (error instanceof StorageError || !(error instanceof Error)) return error;
  const sqlite = sqliteCode(error);
  const errno = (error as NodeJS.ErrnoException).code;
  if (sqlite === undefined && (typeof errno !== "string" || !/^E[A-Z]+$/.test(errno))) return error;
  const raw = error.message;
  const make = (code: StorageErrorCode, message: string) => new StorageError(code, path, message, { cause: error });
  if (errno === "EMFILE" || errno === "ENFILE") return tooManyFiles(path, error);
  if (errno === "EACCES" || errno === "EPERM" || errno === "EROFS") {
    return make("read-only", `${path} cannot be written (${errno}). Fix the permissions of the file and its folder, or ${WRITABLE_FOLDER}.`);
  }
  if (sqlite === undefined) return make("failed", `Storage file ${path} could not be used: ${raw}.`);
  switch (sqlite & 0xff) {
    case 26: // SQLITE_NOTADB
    case 11: // SQLITE_CORRUPT
      return make(
        "corrupt",
        `${path} is not a SQLite database or is damaged (${raw}). Move it away or delete it (what it held is lost): crewts creates a new one on the next write.`,
      );
    case 8: // SQLITE_READONLY (and its extended codes: read-only file, folder, or a database opened read-only)
      return readOnlyError(path, error);
    case 14: // SQLITE_CANTOPEN
      return cannotOpen(path, error);
    case 5: // SQLITE_BUSY
    case 6: // SQLITE_LOCKED
      return make(
        "locked",
        `${path} is locked by another process or connection (${raw}). Retry once it is done, or give this run its own folder (CREWTS_STORAGE_DIR).`,
      );
    case 13: // SQLITE_FULL
      return make("disk-full", `${path} cannot grow: the disk is full. Free some space, or ${WRITABLE_FOLDER} on another disk.`);
    default:
      if (readOnly && /no such table/i.test(raw)) return readOnlyError(path, error);
      return make("failed", `SQLite database ${path} failed: ${raw}.`);
  }
}

/** The SQLite result code of a libsql error (its rawCode, or the number at the end of a ConnectionFailed message). */
function sqliteCode(error: Error): number | undefined {
  const raw = (error as { rawCode?: unknown }).rawCode;
  if (typeof raw === "number") return raw;
  if (error.name === "SqliteError") return 1;
  const failed = /^ConnectionFailed\(.*: (\d+)"?\)$/s.exec(error.message);
  return failed ? Number(failed[1]) : undefined;
}

function readOnlyError(path: string, cause: Error): StorageError {
  // SQLite's own words help ("attempt to write a readonly database"); libsql's ConnectionFailed(...: 14) does not.
  const detail = cause.message.startsWith("ConnectionFailed") ? "" : ` (${cause.message})`;
  return new StorageError(
    "read-only",
    path,
    `${path} is read-only: this process may not write the file or its folder${detail}. Fix the permissions (e.g. chmod u+w on both), or ${WRITABLE_FOLDER}.`,
    { cause },
  );
}

function tooManyFiles(path: string, cause: Error): StorageError {
  return new StorageError(
    "too-many-open-files",
    path,
    `Could not open ${path}: the process has too many open files. Close the crews and flows you no longer use (crew.close(), flow.close()), or raise the limit (ulimit -n).`,
    { cause },
  );
}

/** Says why `path` could not be opened (or its folder made), by looking at the folder and the file. Only runs on failure. */
export function cannotOpen(path: string, cause: Error): StorageError {
  const folder = dirname(path);
  try {
    closeSync(openSync(folder, "r"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EMFILE" || code === "ENFILE") return tooManyFiles(path, cause);
  }
  const make = (message: string) => new StorageError("cannot-open", path, `Could not open ${path}: ${message}`, { cause });
  if (!isFolder(folder)) {
    // The nearest existing ancestor tells why the folder could not be made.
    let ancestor = folder;
    while (!existsSync(ancestor) && dirname(ancestor) !== ancestor) ancestor = dirname(ancestor);
    if (isFolder(ancestor) && !canWrite(ancestor)) {
      return new StorageError(
        "read-only",
        path,
        `Could not create the folder ${folder} for ${path}: ${ancestor} is read-only for this process. Fix its permissions, or ${WRITABLE_FOLDER}.`,
        { cause },
      );
    }
    if (!isFolder(ancestor)) return make(`its folder ${folder} does not exist and could not be created (${ancestor} is a file, not a folder). Move that file away, or ${WRITABLE_FOLDER}.`);
    return make(`its folder ${folder} could not be created (${cause.message}). Create it, or ${WRITABLE_FOLDER}.`);
  }
  if (isFolder(path)) return make("it is a folder, not a database file. Move the folder away, or give the store another path.");
  if (!canWrite(folder)) return readOnlyError(path, cause);
  return make(`${cause.message}. Check that the file and its folder can be read and written, or ${WRITABLE_FOLDER}.`);
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Parses JSON read from storage; bad JSON becomes a StorageError naming `where` (a row, a file) in `path` and the fix. */
export function parseStoredJson(text: string, path: string, where: string, fix: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new StorageError("bad-json", path, `${where} in ${path} is not valid JSON (${(error as Error).message}). ${fix}`, { cause: error });
  }
}
