// Streaming and hooks: how long a provider's chunk takes to reach the consumer of a streaming
// kickoff (against a bare async channel fed by the same model), and what 10 registered LLM call
// hooks cost per call (against the same kickoff with none). Runs last: a streaming kickoff turns
// on AsyncLocalStorage for the rest of the process.
import { performance } from "node:perf_hooks";
import { Agent, afterLLMCall, beforeLLMCall, LLM, type BaseLLM, type ChatMessage, type LLMCallOptions, type LLMResult } from "../../src/index.js";
import { callModel } from "../../src/agent/modelCall.js";
import { startMockOpenAIServer } from "../../src/testing/index.js";
import { sampling, type BenchConfig } from "../lib/config.js";
import { cell, pairRows, samplesTable, type ResultRow, type ScenarioReport } from "../lib/report.js";
import { compare } from "../lib/runner.js";
import { formatMs, formatRatio, median } from "../lib/stats.js";

const GROUP = "streaming";
const DELTAS = 200;

/** A model that streams DELTAS word deltas, each in its own macrotask as network chunks arrive, stamping when it hands each over. */
class StampingLLM implements BaseLLM {
  readonly model = "bench/stamping";
  stamps: number[] = [];
  supportsFunctionCalling(): boolean {
    return false;
  }
  contextWindowSize(): number {
    return 128_000;
  }
  async call(_messages: ChatMessage[], options: LLMCallOptions = {}): Promise<LLMResult> {
    let text = "";
    for (let i = 0; i < DELTAS; i++) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const delta = i === 0 ? "Final Answer: w0 " : `w${i} `;
      text += delta;
      this.stamps.push(performance.now());
      options.onToken?.(delta);
    }
    return { text, usage: { promptTokens: 1, completionTokens: DELTAS, totalTokens: DELTAS + 1 } };
  }
}

/** The least a stream can cost: the model's deltas pushed into a hand-rolled async iterator. */
async function bareChannelLatencies(llm: StampingLLM): Promise<number[]> {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const call = llm.call([], { stream: true, onToken: (d) => (queue.push(d), wake?.()) }).then(() => ((done = true), wake?.()));
  const latencies: number[] = [];
  let seen = 0;
  for (;;) {
    while (queue.length > 0) {
      queue.shift();
      latencies.push(performance.now() - llm.stamps[seen++]!);
    }
    if (done) break;
    await new Promise<void>((resolve) => (wake = resolve));
  }
  await call;
  return latencies;
}

async function crewtsLatencies(llm: StampingLLM): Promise<number[]> {
  const agent = new Agent({ role: "Streamer", goal: "Stream", backstory: "Streams.", llm });
  const streaming = await agent.kickoff("Stream please", { stream: true });
  const latencies: number[] = [];
  let seen = 0;
  for await (const _chunk of streaming) latencies.push(performance.now() - llm.stamps[seen++]!);
  await streaming.result;
  return latencies;
}

/** Time from the mock server writing an SSE event to the consumer of a streaming kickoff holding its chunk (AI SDK parsing and HTTP included). */
async function overHttpLatencies(): Promise<number[]> {
  const words = Array.from({ length: 50 }, (_, i) => `w${i}`).join(" ");
  const stamps = new Map<number, number>();
  const server = await startMockOpenAIServer({
    responses: () => words,
    streamDelayMs: 1,
    beforeStreamEvent: ({ index }) => void stamps.set(index, performance.now()),
  });
  try {
    const llm = new LLM({ model: "openai-compatible/m", baseURL: server.url, apiKey: "k" });
    const agent = new Agent({ role: "Streamer", goal: "Stream", backstory: "Streams.", llm });
    const latencies: number[] = [];
    for (let round = 0; round < 5; round++) {
      stamps.clear();
      const streaming = await agent.kickoff("Stream please", { stream: true });
      // Event 0 carries only the role; text delta k is event k + 1. The first event of a reply is not held, so it has no stamp.
      let k = 0;
      for await (const _chunk of streaming) {
        const stamp = stamps.get(++k);
        if (stamp !== undefined) latencies.push(performance.now() - stamp);
      }
      await streaming.result;
    }
    return latencies;
  } finally {
    await server.close();
  }
}


/** Runs the streaming scenarios. */
export async function streamingScenarios(config: BenchConfig): Promise<ScenarioReport> {
  const rows: ResultRow[] = [];
  const details: string[] = [];

  // Ten LLM call hooks (5 before, 5 after) against none, on the agent's LLM call path (callModel,
  // what the agent loop runs for every call) with a model that answers at once. Measured first:
  // the streaming kickoffs below turn on AsyncLocalStorage for the rest of the process.
  const calls = 1000;
  const instant: BaseLLM = {
    model: "bench/instant",
    call: () => Promise.resolve({ text: "Final Answer: 42", usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }),
    supportsFunctionCalling: () => false,
    contextWindowSize: () => 128_000,
  };
  const messages: ChatMessage[] = [{ role: "user", content: "What is 6 times 7?" }];
  const source = { agentRole: "Hooked", taskName: "multiply" };
  const callMany = async (): Promise<void> => {
    for (let i = 0; i < calls; i++) await callModel(instant, messages, {}, source, i);
  };
  const measured = await compare(
    [
      {
        name: "crewts, 10 hooks",
        run: async () => {
          const offs = [
            ...Array.from({ length: 5 }, () => beforeLLMCall((ctx) => void ctx.iterations)),
            ...Array.from({ length: 5 }, () => afterLLMCall((ctx) => void ctx.response.length)),
          ];
          try {
            await callMany();
          } finally {
            for (const off of offs) off();
          }
        },
      },
      { name: "no hooks", run: callMany },
    ],
    { ...sampling(config), divisor: calls },
  );
  const hooked = measured.find((m) => m.name === "crewts, 10 hooks");
  const plain = measured.find((m) => m.name === "no hooks");
  rows.push(...pairRows(GROUP, "an agent's LLM call with 10 LLM call hooks", "per LLM call", measured, undefined, { ours: "crewts, 10 hooks", peers: ["no hooks"] }));
  if (hooked?.summary && plain?.summary) {
    const extra = hooked.summary.median - plain.summary.median;
    rows.push({ group: GROUP, scenario: "cost of 10 registered hooks per LLM call", unit: "per LLM call", crewts: formatMs(Math.max(0, extra)), against: "limit", other: "20 µs", goal: "under 20 µs", met: extra < 0.02 });
    details.push(`**10 hooks per LLM call**: ${cell(hooked)} with hooks, ${cell(plain)} without; difference ${formatMs(extra)} per call.`);
  }
  details.push(samplesTable("an agent's LLM call with and without 10 hooks", measured, "per LLM call"));

  // Provider chunk to consumer, in process: crewts's streaming path against a bare channel.
  const rounds = config.full ? 40 : 15;
  const ours: number[] = [];
  const bare: number[] = [];
  for (let r = 0; r < rounds; r++) {
    ours.push(...(await crewtsLatencies(new StampingLLM())));
    bare.push(...(await bareChannelLatencies(new StampingLLM())));
  }
  const oursMedian = median(ours);
  const bareMedian = median(bare);
  rows.push({
    group: GROUP,
    scenario: "provider chunk → consumer of a streaming kickoff (median)",
    unit: "per chunk",
    crewts: formatMs(oursMedian),
    against: "bare async channel",
    other: formatMs(bareMedian),
    ratio: oursMedian / bareMedian,
    goal: "under 1 ms",
    met: oursMedian < 1,
  });
  const http = await overHttpLatencies();
  const httpMedian = median(http);
  rows.push({
    group: GROUP,
    scenario: "SSE event written by the mock server → consumer (HTTP + AI SDK, median)",
    unit: "per chunk",
    crewts: formatMs(httpMedian),
    against: "limit",
    other: "1 ms",
    goal: "under 1 ms",
    met: httpMedian < 1,
  });
  details.push(
    `**provider chunk → consumer**: ${ours.length} chunks through crewts (median ${formatMs(oursMedian)}, p90 ${formatMs(quantile90(ours))}), ` +
      `${bare.length} through a bare channel (median ${formatMs(bareMedian)}), ratio ${formatRatio(oursMedian / bareMedian)}; ` +
      `over HTTP ${http.length} chunks, median ${formatMs(httpMedian)}, p90 ${formatMs(quantile90(http))}.`,
  );

  return { group: GROUP, rows, details };
}

function quantile90(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]!;
}
