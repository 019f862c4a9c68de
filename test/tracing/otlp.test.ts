import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { Crew } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { InMemoryTaskOutputStore } from "../../src/storage/index.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { enableTracingFromEnv, TracingConfigError } from "../../src/tracing/index.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

/** An OTLP/HTTP JSON span as the collector receives it. */
interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  service: string | undefined;
  spans: OtlpSpan[];
}

/** A local OTLP/HTTP receiver that decodes the JSON export requests it gets. */
async function startReceiver(): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        resourceSpans: { resource: { attributes: OtlpSpan["attributes"] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      for (const rs of body.resourceSpans) {
        const service = rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue as string | undefined;
        received.push({ path: req.url ?? "", headers: req.headers, service, spans: rs.scopeSpans.flatMap((s) => s.spans) });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const attr = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;
const OTEL_VARS = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_SERVICE_NAME", "CREWTS_TRACING"];

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let saved: Record<string, string | undefined>;
beforeEach(async () => {
  receiver = await startReceiver();
  saved = Object.fromEntries(OTEL_VARS.map((k) => [k, process.env[k]]));
});
afterEach(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  eventBus.clear();
  await receiver.close();
});

/** The environment of a child process: no provider keys, only the given tracing variables. */
function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of [...OTEL_VARS, "OPENAI_API_KEY", "ANTHROPIC_API_KEY"]) delete env[key];
  return { ...env, ...vars };
}

describe("CREWTS_TRACING=otel: OTLP/HTTP export configured by OTEL_* variables", () => {
  it("exports the spans of a kickoff to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces, with OTEL_SERVICE_NAME and OTEL_EXPORTER_OTLP_HEADERS", async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = "x-team=agents,x-token=abc";
    process.env.OTEL_SERVICE_NAME = "research-service";
    const disable = await enableTracingFromEnv({ CREWTS_TRACING: "otel" });
    const llm = new FakeLLM([{ text: "Thought: done\nFinal Answer: ok", usage: { promptTokens: 3, completionTokens: 2 } }], { model: "openai/gpt-x" });
    const agent = new Agent({ role: "Writer", goal: "Write", backstory: "You write.", llm });
    await new Crew({ agents: [agent], tasks: [new Task({ description: "Write", expectedOutput: "Text", agent })], taskOutputStore: new InMemoryTaskOutputStore() }).kickoff();
    // Switching off flushes the batch and shuts the exporter down: everything has been posted.
    await disable!();
    expect(receiver.received.length).toBeGreaterThan(0);
    expect(receiver.received[0]!.path).toBe("/v1/traces");
    expect(receiver.received[0]!.headers["x-team"]).toBe("agents");
    expect(receiver.received[0]!.headers["content-type"]).toContain("application/json");
    expect(receiver.received[0]!.service).toBe("research-service");
    const spans = receiver.received.flatMap((r) => r.spans);
    expect(spans.map((s) => s.name).sort()).toEqual(["agent", "crew.kickoff", "llm.call", "task"]);
    const byName = (name: string) => spans.find((s) => s.name === name)!;
    expect(byName("llm.call").parentSpanId).toBe(byName("agent").spanId);
    expect(byName("agent").parentSpanId).toBe(byName("task").spanId);
    expect(byName("task").parentSpanId).toBe(byName("crew.kickoff").spanId);
    expect(attr(byName("llm.call"), "gen_ai.request.model")).toEqual({ stringValue: "gpt-x" });
    expect(attr(byName("llm.call"), "gen_ai.usage.input_tokens")).toEqual({ intValue: 3 });
    expect(attr(byName("llm.call"), "gen_ai.system")).toEqual({ stringValue: "openai" });
  });

  it("traces a program with no tracing code when CREWTS_TRACING=otel (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT used as is), flushing before exit", async () => {
    const env = childEnv({ CREWTS_TRACING: "otel", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/custom/traces`, OTEL_SERVICE_NAME: "child-service" });
    const { stdout } = await run(process.execPath, ["--import", "tsx", "test/fixtures/tracing/kickoffChild.ts"], { cwd: root, env, timeout: 60_000 });
    expect(stdout.trim()).toBe("ok");
    expect(receiver.received.map((r) => r.path)).toContain("/custom/traces");
    expect(receiver.received[0]!.service).toBe("child-service");
    expect(receiver.received.flatMap((r) => r.spans).map((s) => s.name).sort()).toEqual(["agent", "crew.kickoff", "llm.call", "task"]);
  });

  it("sends nothing anywhere without CREWTS_TRACING, even with OTEL_* variables set", async () => {
    const env = childEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: "quiet" });
    const { stdout } = await run(process.execPath, ["--import", "tsx", "test/fixtures/tracing/kickoffChild.ts"], { cwd: root, env, timeout: 60_000 });
    expect(stdout.trim()).toBe("ok");
    // The child has exited: anything it would have sent has arrived.
    expect(receiver.received).toEqual([]);
  });

  it("names an unknown CREWTS_TRACING value and the fix", async () => {
    await expect(enableTracingFromEnv({ CREWTS_TRACING: "jaeger" })).rejects.toThrow(TracingConfigError);
    await expect(enableTracingFromEnv({ CREWTS_TRACING: "jaeger" })).rejects.toThrow(/Set it to "otel"/);
    expect(await enableTracingFromEnv({})).toBeUndefined();
  });
});

describe("import cost", () => {
  it('loads no @opentelemetry module on import "crewts", and loads @opentelemetry/api once enableTracing() is called', async () => {
    const dir = await mkdtemp(join(tmpdir(), "crewts-otel-load-"));
    try {
      // A module loader hook that logs every @opentelemetry module loaded.
      await writeFile(
        join(dir, "hook.mjs"),
        `import { appendFileSync } from "node:fs";
export async function load(url, context, nextLoad) {
  if (url.includes("@opentelemetry")) appendFileSync(process.env.OTEL_LOAD_LOG, url + "\\n");
  return nextLoad(url, context);
}
`,
      );
      await writeFile(join(dir, "register.mjs"), `import { register } from "node:module";\nregister("./hook.mjs", import.meta.url);\n`);
      const env = childEnv({ OTEL_LOAD_LOG: join(dir, "loaded.log") });
      const { stdout } = await run(process.execPath, ["--import", "tsx", "--import", pathToFileURL(join(dir, "register.mjs")).href, "test/fixtures/tracing/importChild.ts"], {
        cwd: root,
        env,
        timeout: 60_000,
      });
      const counts = JSON.parse(stdout.trim().split("\n").pop()!) as { afterImport: number; afterEnable: number };
      expect(counts.afterImport).toBe(0);
      // The hook sees OpenTelemetry when it is loaded: the zero above is not a blind hook.
      expect(counts.afterEnable).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
