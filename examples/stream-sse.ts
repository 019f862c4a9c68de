// A crew's work shown in a browser as it happens: a small node:http server (no framework) runs a
// crew with `stream: true` and forwards every chunk to the page as a server-sent event. Runs offline:
// the agent talks over real HTTP to the built-in mock OpenAI-compatible server, which streams its
// reply word by word with a delay. Run: npx tsx examples/stream-sse.ts, then open the printed URL.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { Agent, Crew, LLM, Task } from "../src/index.js";
import { startMockOpenAIServer, type MockServerOptions } from "../src/testing/index.js";

const PAGE = `<!doctype html>
<html>
<head><meta charset="utf-8"><title>crewts streaming</title></head>
<body>
  <h1>Crew output</h1>
  <p>Status: <span id="status">running</span></p>
  <pre id="output"></pre>
  <script>
    const output = document.getElementById("output");
    const status = document.getElementById("status");
    const events = new EventSource("/stream" + location.search);
    events.onmessage = (event) => {
      const chunk = JSON.parse(event.data);
      if (chunk.chunkType === "text") output.textContent += chunk.content;
    };
    events.addEventListener("done", (event) => {
      status.textContent = "done: " + JSON.parse(event.data).raw;
      events.close();
    });
    events.addEventListener("failed", (event) => {
      status.textContent = "failed: " + JSON.parse(event.data).error;
      events.close();
    });
  </script>
</body>
</html>`;

/** A running demo: the page's address and how to stop it. */
export interface StreamDemo {
  url: string;
  close(): Promise<void>;
}

/** Starts the mock model and the page server on free ports; `mock` tunes the mock's streaming (delays, holds). */
export async function startStreamDemo(mock: Pick<MockServerOptions, "streamDelayMs" | "beforeStreamEvent"> = {}): Promise<StreamDemo> {
  const model = await startMockOpenAIServer({
    ...mock,
    responses: ({ body }) => {
      const prompt = JSON.stringify(body);
      const topic = /about ([\w ]+?)\./.exec(prompt)?.[1] ?? "streams";
      return `Server-sent events about ${topic} arrive one word at a time, so readers see progress at once.`;
    },
  });
  const llm = new LLM({ model: "openai-compatible/mock", baseURL: model.url, apiKey: "offline" });
  const writer = new Agent({ role: "Writer", goal: "Explain things briefly", backstory: "You write one clear sentence.", llm });

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
      return;
    }
    if (url.pathname !== "/stream") {
      res.writeHead(404).end();
      return;
    }
    const topic = url.searchParams.get("topic") ?? "streaming";
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const crew = new Crew({ agents: [writer], tasks: [new Task({ description: `Write one sentence about ${topic}.`, expectedOutput: "One sentence.", agent: writer })] });
    void (async () => {
      const streaming = await crew.kickoff({}, { stream: true });
      // A reader who closes the page stops the crew: its LLM request is aborted.
      res.once("close", () => streaming.cancel("the browser went away"));
      try {
        for await (const chunk of streaming) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        const output = await streaming.result;
        res.end(`event: done\ndata: ${JSON.stringify({ raw: output.raw })}\n\n`);
      } catch (error) {
        res.end(`event: failed\ndata: ${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n\n`);
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await model.close();
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const demo = await startStreamDemo({ streamDelayMs: 150 });
  console.log(`Open ${demo.url}?topic=rivers (Ctrl+C to stop)`);
  process.once("SIGINT", () => void demo.close());
}
