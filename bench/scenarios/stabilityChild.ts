// Run by stability.ts in its own process (node --expose-gc --import tsx): kicks off a small flow
// 10,000 times, a new instance each time, and prints RSS and heap after a GC every 1,000 kickoffs.
import { and, Flow, listen, router, start } from "../../src/index.js";

class SmallFlow extends Flow<{ topic: string; notes: string[]; approved: boolean }> {
  override initialState = { topic: "", notes: [] as string[], approved: false };

  @start()
  begin() {
    return this.state.topic;
  }

  @listen("begin")
  async research(topic: string) {
    await Promise.resolve();
    this.state.notes.push(`notes on ${topic}`);
    return this.state.notes.length;
  }

  @listen("begin")
  outline() {
    return ["intro", "body", "end"];
  }

  @router(and("research", "outline"))
  review() {
    this.state.approved = this.state.notes.length > 0;
    return this.state.approved ? "approved" : "rejected";
  }

  @listen("approved")
  publish() {
    return `${this.state.topic}: ${this.state.notes.join("; ")}`;
  }
}

const total = Number(process.argv[2] ?? 10_000);
const every = Number(process.argv[3] ?? 1_000);
const gc = (globalThis as { gc?: () => void }).gc;
const samples: { kickoffs: number; rssMB: number; heapUsedMB: number }[] = [];
const mb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;
const t0 = performance.now();
for (let i = 1; i <= total; i++) {
  const out = await new SmallFlow().kickoff({ topic: `topic ${i}` });
  if (out !== `topic ${i}: notes on topic ${i}`) throw new Error(`unexpected output at kickoff ${i}: ${String(out)}`);
  if (i % every === 0) {
    gc?.();
    const m = process.memoryUsage();
    samples.push({ kickoffs: i, rssMB: mb(m.rss), heapUsedMB: mb(m.heapUsed) });
  }
}
const peakRssMB = mb(process.resourceUsage().maxRSS * 1024);
process.stdout.write(JSON.stringify({ samples, peakRssMB, gc: gc !== undefined, ms: performance.now() - t0 }));
