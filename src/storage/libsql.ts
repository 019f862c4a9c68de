import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createClient, type Client } from "@libsql/client";

/** The path that opens a private, unnamed in-memory SQLite database. */
export const IN_MEMORY_DB = ":memory:";

/**
 * Opens an embedded SQLite database with libsql: a file path (its folder is created) or ":memory:".
 * The caller closes the client.
 */
export async function openSQLite(path: string): Promise<Client> {
  if (path === IN_MEMORY_DB) return createClient({ url: IN_MEMORY_DB });
  const absolute = resolve(path);
  await mkdir(dirname(absolute), { recursive: true });
  // A file URL, so that spaces, '#' or '?' in the path are not read as URL syntax.
  return createClient({ url: pathToFileURL(absolute).href });
}

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
