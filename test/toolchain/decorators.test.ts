import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { runDecorated } from "../fixtures/decorated.js";

const run = promisify(execFile);
const fixture = join(import.meta.dirname, "../fixtures/decorated.ts");
const expected = "start:begin,initialized|ran";

// Flow's @start/@listen/@router are TC39 standard decorators; users run them under all three tools.
describe("TC39 standard decorators", () => {
  it("work under vitest", () => {
    expect(runDecorated()).toBe(expected);
  });

  it("work under tsx", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", fixture]);
    expect(stdout.trim()).toBe(expected);
  });

  it("work when compiled by tsc (no experimentalDecorators)", async () => {
    const out = await mkdtemp(join(tmpdir(), "crewts-tsc-"));
    try {
      const tsc = join(import.meta.dirname, "../../node_modules/typescript/bin/tsc");
      await run(process.execPath, [tsc, fixture, "--outDir", out, "--target", "ES2022", "--module", "NodeNext", "--moduleResolution", "NodeNext", "--types", "node", "--strict", "--skipLibCheck", "--ignoreConfig"]);
      const { stdout } = await run(process.execPath, [join(out, "decorated.js")]);
      expect(stdout.trim()).toBe(expected);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
