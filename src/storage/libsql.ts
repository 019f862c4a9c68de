import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Client } from "@libsql/client";

/** The path that opens a private, unnamed in-memory SQLite database. */
export const IN_MEMORY_DB = ":memory:";

/**
 * Opens an embedded SQLite database with libsql: a file path (its folder is created) or ":memory:".
 * The caller closes the client.
 */
export async function openSQLite(path: string): Promise<Client> {
  // Loaded on first use: the native client costs ~100 ms to import, and most runs never open a database.
  const { createClient } = await import("@libsql/client");
  if (path === IN_MEMORY_DB) return createClient({ url: IN_MEMORY_DB });
  const absolute = resolve(path);
  await mkdir(dirname(absolute), { recursive: true });
  // A file URL, so that spaces, '#' or '?' in the path are not read as URL syntax.
  const client = createClient({ url: pathToFileURL(absolute).href });
  try {
    for (const pragma of FILE_PRAGMAS) await client.execute(pragma);
  } catch (error) {
    client.close();
    throw error;
  }
  return client;
}

// Every write of ours is its own commit (a task output, a flow step). In WAL mode with
// synchronous=NORMAL a commit is an append without fsync, still safe when the process is killed
// (only an OS crash may lose the newest rows), where the default rollback journal syncs the disk
// several times per commit (1-5 ms each). busy_timeout lets two processes share a file.
const FILE_PRAGMAS = ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA busy_timeout = 5000"];

/**
 * A libsql client opened on first use and created once even when first used by concurrent calls.
 * `close()` releases it; the next `get()` opens it again.
 */
export class LazySQLite {
  private opening?: Promise<Client>;

  constructor(
    private readonly path: () => string,
    private readonly setup: (client: Client) => Promise<void>,
  ) {}

  /** The open client, opened and set up when needed. */
  get(): Promise<Client> {
    this.opening ??= this.open().catch((error: unknown) => {
      // A failed open must not stick: the next call tries again (e.g. once the folder is writable).
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  /** Closes the client if it was opened. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = undefined;
    if (!opening) return;
    const client = await opening.catch(() => undefined);
    client?.close();
  }

  private async open(): Promise<Client> {
    const client = await openSQLite(this.path());
    try {
      await this.setup(client);
    } catch (error) {
      client.close();
      throw error;
    }
    return client;
  }
}
