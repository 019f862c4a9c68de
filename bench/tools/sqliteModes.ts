// What one autocommit INSERT costs through @libsql/client (crewts's SQLite driver) on a file, in
// SQLite's default rollback-journal mode, in WAL mode, and in WAL with synchronous=NORMAL; and per
// row when batched in one transaction. Backs the SQLite findings in bench/RESULTS.md.
//   npx tsx bench/tools/sqliteModes.ts [rows=300]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";

const rows = Number(process.argv[2] ?? 300);
const dir = mkdtempSync(join(tmpdir(), "crewts-sqlite-modes-"));
const insert = "INSERT INTO flow_states (flow_uuid, method_name, timestamp, state_json) VALUES (?, ?, ?, ?)";
try {
  for (const mode of ["rollback journal, synchronous=FULL (default)", "WAL, synchronous=FULL", "WAL, synchronous=NORMAL"]) {
    const client = createClient({ url: `file:${join(dir, `${mode.length}.db`)}` });
    await client.execute("CREATE TABLE flow_states (id INTEGER PRIMARY KEY AUTOINCREMENT, flow_uuid TEXT, method_name TEXT, timestamp TEXT, state_json TEXT)");
    await client.execute("CREATE INDEX idx ON flow_states (flow_uuid)");
    if (mode.startsWith("WAL")) await client.execute("PRAGMA journal_mode=WAL");
    if (mode.endsWith("NORMAL")) await client.execute("PRAGMA synchronous=NORMAL");
    const args = (i: number) => ["flow-id", `m${i}`, new Date().toISOString(), JSON.stringify({ id: "flow-id", n: i })];
    const t0 = performance.now();
    for (let i = 0; i < rows; i++) await client.execute({ sql: insert, args: args(i) });
    const single = (performance.now() - t0) / rows;
    const t1 = performance.now();
    await client.batch(Array.from({ length: rows }, (_, i) => ({ sql: insert, args: args(i) })), "write");
    const batched = (performance.now() - t1) / rows;
    console.log(`${mode.padEnd(46)} ${(single * 1000).toFixed(0).padStart(6)} µs per autocommit insert; ${(batched * 1000).toFixed(1).padStart(6)} µs per row batched`);
    client.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
