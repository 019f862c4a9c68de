import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, "../..");
const tsx = createRequire(import.meta.url).resolve("tsx");

// A resolve hook that fails the import of any optional peer of serve, worker and the Postgres stores.
const hooks = `export async function resolve(specifier, context, next) {
  if (/^(hono|@hono\\/node-server|bullmq|ioredis|pg)(\\/|$)/.test(specifier)) throw new Error("optional peer loaded: " + specifier);
  return next(specifier, context);
}`;
const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;

describe("optional peers of serve, worker and the Postgres stores", () => {
  it("are not loaded by import crewts, nor by making a crew and its default stores with CREWTS_DATABASE_URL set", async () => {
    const script = `
      const crewts = await import(${JSON.stringify(pathToFileURL(resolve(repo, "src/index.ts")).href)});
      const { FakeLLM } = await import(${JSON.stringify(pathToFileURL(resolve(repo, "src/testing/index.ts")).href)});
      const agent = new crewts.Agent({ role: "r", goal: "g", backstory: "b", llm: new FakeLLM(["x"]) });
      new crewts.Crew({ agents: [agent], tasks: [new crewts.Task({ description: "d", expectedOutput: "e", agent })] });
      console.log(typeof crewts.createServer, typeof crewts.startWorker, typeof crewts.PostgresFlowPersistence);`;
    const { stdout } = await run(process.execPath, ["--import", tsx, "--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", script], {
      cwd: repo,
      env: { ...process.env, CREWTS_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
    });
    expect(stdout.trim()).toBe("function function function");
  });

  it("fail with a MissingPeerDependencyError naming the npm command when absent", async () => {
    const { loadOptionalPeer, MissingPeerDependencyError } = await import("../../src/storage/optionalPeer.js");
    const name = "crewts-no-such-package";
    const missing = loadOptionalPeer(() => import(name), "crewts-no-such-package@^1", "Widgets");
    await expect(missing).rejects.toThrow(MissingPeerDependencyError);
    await expect(missing).rejects.toThrow("Widgets need the optional package crewts-no-such-package: run `npm install crewts-no-such-package@^1` in your project.");
  });
});
