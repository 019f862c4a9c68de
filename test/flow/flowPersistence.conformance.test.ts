import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { InMemoryFlowPersistence, SQLiteFlowPersistence } from "../../src/flow/index.js";
import { describeFlowPersistence } from "./flowPersistenceConformance.js";

let dir = "";
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "crewts-flow-conf-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeFlowPersistence("InMemoryFlowPersistence", () => new InMemoryFlowPersistence());
describeFlowPersistence("SQLiteFlowPersistence (file)", () => new SQLiteFlowPersistence(join(dir, `states-${++n}.db`)));
describeFlowPersistence("SQLiteFlowPersistence (:memory:)", () => new SQLiteFlowPersistence(":memory:"));
