import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Crew } from "../../../src/crew/index.js";
import { Flow, start } from "../../../src/flow/index.js";
import { listCheckpointInfos } from "../../../src/runtime/checkpoint/checkpointStores.js";
import { withHostCheckpoints } from "../../../src/runtime/checkpoint/hostCheckpoints.js";
import { InMemoryTaskOutputStore } from "../../../src/storage/index.js";
import { FakeLLM } from "../../../src/testing/index.js";
import { fakeAgent, task } from "../../crew/helpers.js";
import { threeTaskCrew } from "../../serve/crewFixtures.js";

// What crewts serve and crewts worker ask of the kickoff they run: checkpoints in a lineage named by the kickoff id.
const location = mkdtempSync(join(tmpdir(), "crewts-host-checkpoints-"));
afterAll(() => rmSync(location, { recursive: true, force: true }));
const echo = () => new FakeLLM((messages) => `Final Answer: ${/(Outline|Draft|Polish) \S+/.exec(messages.map((m) => m.content).join("\n"))?.[0] ?? "?"} done`);

describe("withHostCheckpoints", () => {
  it("makes a crew without a checkpoint option write one per task into the host's lineage", async () => {
    await withHostCheckpoints({ lineage: "kickoff-1", config: { location } }, () => threeTaskCrew(echo()).kickoff({ topic: "t" }));
    const infos = await listCheckpointInfos(location, { lineage: "kickoff-1" });
    expect(infos.map((i) => [i.kind, i.event, i.branch])).toEqual([
      ["crew", "task_completed", "main"],
      ["crew", "task_completed", "main"],
      ["crew", "task_completed", "main"],
    ]);
  });

  it("gives the lineage to the outermost kickoff only: a crew inside a flow method writes none of its own", async () => {
    const { agent } = fakeAgent("Poet", ["Final Answer: roses"]);
    const inner = new Crew({ agents: [agent], tasks: [task("Write", agent)], taskOutputStore: new InMemoryTaskOutputStore() });
    class PoemFlow extends Flow {
      @start()
      async compose() {
        return (await inner.kickoff()).raw;
      }
    }
    const before = (await listCheckpointInfos(location)).length;
    const result = await withHostCheckpoints({ lineage: "kickoff-2", config: { location } }, () => new PoemFlow().kickoff());
    expect(result).toBe("roses");
    const mine = await listCheckpointInfos(location, { lineage: "kickoff-2" });
    expect(mine.map((i) => [i.kind, i.name, i.event])).toEqual([["flow", "PoemFlow", "method_execution_finished"]]);
    expect((await listCheckpointInfos(location)).length).toBe(before + 1);
  });

  it("leaves kickoffs outside it as they are: no checkpoint option, no checkpoints", async () => {
    const before = (await listCheckpointInfos(location)).length;
    await threeTaskCrew(echo()).kickoff({ topic: "u" });
    expect((await listCheckpointInfos(location)).length).toBe(before);
  });

  it("keeps a crew's own checkpoint option (its store, its events) and gives it the host's lineage", async () => {
    const own = mkdtempSync(join(tmpdir(), "crewts-own-checkpoints-"));
    try {
      await withHostCheckpoints({ lineage: "kickoff-3", config: { location } }, () => threeTaskCrew(echo(), { checkpoint: { location: own, maxCheckpoints: 1 } }).kickoff({ topic: "v" }));
      expect(await listCheckpointInfos(location, { lineage: "kickoff-3" })).toEqual([]);
      expect((await listCheckpointInfos(own, { lineage: "kickoff-3" })).map((i) => i.event)).toEqual(["task_completed"]);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
