import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Flow, listen, router, start } from "../../src/flow/index.js";

describe("flow.plot()", () => {
  it("writes an HTML drawing of the flow's graph and returns its path", async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-flow-plot-"));
    try {
      class Plotted extends Flow {
        @start() begin() {}
        @router("begin") decide() {
          return "done";
        }
        @listen("done") finishUp() {}
      }
      const path = await new Plotted().plot(join(dir, "plotted"));
      expect(path).toBe(join(dir, "plotted.html"));
      const html = await readFile(path, "utf8");
      for (const name of ["begin", "decide", "finishUp"]) expect(html).toContain(name);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
