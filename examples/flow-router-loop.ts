// A flow without any LLM: typed state, parallel starts joined with and(), a router loop through a
// conditional start, and persistence with resume by id. Run: npx tsx examples/flow-router-loop.ts
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { eventBus } from "../src/index.js";
import { and, Flow, listen, persist, router, start } from "../src/index.js";

process.env.CREWTS_STORAGE_DIR ??= mkdtempSync(join(tmpdir(), "crewts-flow-example-"));

const DraftState = z.object({
  topic: z.string().default("TypeScript flows"),
  outline: z.array(z.string()).default([]),
  draft: z.string().default(""),
  revisions: z.number().default(0),
});

/** Writes a draft, then revises it until it is long enough or three revisions were made. */
@persist()
class DraftFlow extends Flow<z.infer<typeof DraftState>> {
  override initialState = DraftState;

  @start() gatherFacts() {
    this.state.outline.push(`what ${this.state.topic} are`);
  }

  @start() async gatherExamples() {
    await new Promise((r) => setTimeout(r, 10));
    this.state.outline.push(`an example of ${this.state.topic}`);
  }

  @listen(and("gatherFacts", "gatherExamples")) writeDraft() {
    this.state.draft = `About ${this.state.topic}: ${this.state.outline.join("; ")}.`;
  }

  @start("revise") improve() {
    this.state.revisions += 1;
    this.state.draft += " More detail.";
  }

  @router("writeDraft") review() {
    return this.state.draft.length > 140 || this.state.revisions >= 3 ? "publish" : "revise";
  }

  @router("improve") reviewAgain() {
    return this.review();
  }

  @listen("publish") publishDraft() {
    return `${this.state.draft} (after ${this.state.revisions} revisions)`;
  }
}

eventBus.on("method_execution_finished", (e) => console.log(`  finished ${e.methodName}`));
const flow = new DraftFlow();
console.log(await flow.kickoff({ topic: "event-driven flows" }));

// A new instance with the same id continues from the saved state.
const again = new DraftFlow();
await again.kickoff({ id: flow.state.id });
console.log(`resumed ${again.state.id}: ${again.state.revisions} revisions in total`);
