import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseStoredJson, toStorageError } from "../../storage/StorageError.js";
import { matches } from "./SQLiteCheckpointStore.js";
import type { Checkpoint, CheckpointFilter, CheckpointInfo, CheckpointStore } from "./types.js";

const SUFFIX = ".json";

/** A checkpoint store of plain files: one `<id>.json` per checkpoint in a directory, easy to read and to copy. */
export class JSONCheckpointStore implements CheckpointStore {
  readonly directory: string;

  /** `directory` is created on the first write. */
  constructor(directory: string) {
    this.directory = resolve(directory);
  }

  /** Writes `<id>.json` (to a temporary name first, so a killed process never leaves half a file). */
  async save(cp: Checkpoint): Promise<string> {
    const file = this.fileOf(cp.id);
    try {
      await mkdir(this.directory, { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(cp));
      await rename(temporary, file);
    } catch (error) {
      throw toStorageError(error, file);
    }
    return cp.id;
  }

  /** The checkpoint `id`, or undefined when no such file exists. */
  async load(id: string): Promise<Checkpoint | undefined> {
    if (!/^[\w.-]+$/.test(id)) return undefined;
    return readCheckpointFile(this.fileOf(id), true);
  }

  /** Headers of the matching checkpoints, oldest first. */
  async list(filter: CheckpointFilter = {}): Promise<CheckpointInfo[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw toStorageError(error, this.directory);
    }
    const found: CheckpointInfo[] = [];
    for (const name of names) {
      if (!name.endsWith(SUFFIX)) continue;
      const cp = await readCheckpointFile(join(this.directory, name), true);
      if (cp && matches(cp, filter)) found.push(headerOf(cp));
    }
    return found.sort(byAge);
  }

  /** Deletes the files of all but the newest `keep` checkpoints of `lineage`. */
  async prune(lineage: string, keep: number): Promise<void> {
    const all = await this.list({ lineage });
    const drop = all.slice(0, Math.max(0, all.length - Math.max(0, keep)));
    await Promise.all(drop.map((cp) => rm(this.fileOf(cp.id), { force: true })));
  }

  private fileOf(id: string): string {
    return join(this.directory, `${id}${SUFFIX}`);
  }
}

/** Reads a checkpoint file; undefined when it is missing (and `missingOk`). */
export async function readCheckpointFile(file: string, missingOk: boolean): Promise<Checkpoint | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (missingOk && (error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw toStorageError(error, file);
  }
  const fix = "Delete the file, or resume from another checkpoint.";
  return parseStoredJson(text, file, `Checkpoint file ${file}`, fix) as Checkpoint;
}

/** The header fields of a checkpoint. */
export function headerOf(cp: CheckpointInfo): CheckpointInfo {
  const { id, lineage, branch, parentId, createdAt, event, kind, name } = cp;
  return { id, lineage, branch, ...(parentId !== undefined ? { parentId } : {}), createdAt, event, kind, name };
}

/** Oldest first; ids are time-ordered, so they break ties within one millisecond. */
export function byAge(a: CheckpointInfo, b: CheckpointInfo): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
