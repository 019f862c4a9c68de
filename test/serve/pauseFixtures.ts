import { z } from "zod";
import { Crew } from "../../src/crew/index.js";
import { Flow, humanFeedback, listen, start, type HumanFeedbackResult } from "../../src/index.js";
import { tool } from "../../src/tools/index.js";
import { fakeAgent, final, task } from "../crew/helpers.js";
import { parseStream, type SentEvent } from "./servedRuns.js";

/** A flow whose draft waits for a human's word (no provider: a served run pauses there). */
export class ReviewFlow extends Flow<{ topic: string; log: string[] }> {
  override initialState = { topic: "", log: [] as string[] };
  @start() draft() {
    this.state.log.push("drafted");
    return `draft on ${this.state.topic}`;
  }
  @listen("draft")
  @humanFeedback({ message: "Publish this draft?" })
  review(draft: string) {
    return `${draft} (reviewed)`;
  }
  @listen("review") publish(result: HumanFeedbackResult) {
    this.state.log.push(`published: ${result.feedback}`);
    return { published: result.output, feedback: result.feedback, log: this.state.log };
  }
}

/**
 * A crew factory whose one agent calls a tool that needs approval, then finishes: each crew made has
 * its own scripted model (a resumed run asks again from the paused task's start). `ran` lists the
 * tables actually dropped, `made` counts crews built.
 */
export function approvalCrews(): { factory: () => Crew; ran: string[]; made: () => number } {
  const ran: string[] = [];
  let made = 0;
  const dropTable = tool({
    name: "drop_table",
    description: "Drops a table",
    schema: z.object({ table: z.string() }),
    needsApproval: true,
    execute: ({ table }) => {
      ran.push(table);
      return `dropped ${table}`;
    },
  });
  const factory = (): Crew => {
    made++;
    const admin = fakeAgent("Admin", [{ toolCalls: [{ name: "drop_table", arguments: { table: "logs" } }] }, final("cleaned up")], { functionCalling: true }, { tools: [dropTable] });
    return new Crew({ name: "admins", agents: [admin.agent], tasks: [task("Clean up the logs", admin.agent)] });
  };
  return { factory, ran, made: () => made };
}

/** A /stream response read as it comes: wait for an event of a type, or for the whole stream. */
export function readStream(response: Response): { until(type: string): Promise<SentEvent>; all: Promise<SentEvent[]> } {
  const events: SentEvent[] = [];
  const waiters: { type: string; resolve: (event: SentEvent) => void }[] = [];
  const all = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(bytes, { stream: true });
      const cut = buffer.lastIndexOf("\n\n");
      if (cut < 0) continue;
      for (const event of parseStream(buffer.slice(0, cut + 2))) {
        events.push(event);
        for (const waiter of waiters.filter((w) => w.type === event.type)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
      buffer = buffer.slice(cut + 2);
    }
    return events;
  })();
  return {
    until: (type) => {
      const seen = events.find((e) => e.type === type);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ type, resolve }));
    },
    all,
  };
}
