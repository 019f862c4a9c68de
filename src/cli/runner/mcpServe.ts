import { eventBus } from "../../events/EventBus.js";
import type { ProgressReporter, ServedTool } from "../../mcp/server/ServedTool.js";
import { serveHttp, serveStdio } from "../../mcp/server/serveTools.js";
import { sanitizeToolName } from "../../tools/sanitize.js";
import { CliError } from "../CliError.js";
import { crewPlaceholders } from "./chatSession.js";
import { projectCrew, type ProjectCrew } from "./projectCrew.js";
import type { EntryModule } from "./projectRunner.js";

/** What serving needs of a crew (duck-typed: the project may have its own copy of crewts). */
interface ServedCrew extends ProjectCrew {
  id: string;
  name?: string;
  agents: { role: string; goal: string; backstory: string }[];
  tasks: { description: string; expectedOutput: string; outputFile?: string }[];
  kickoff(inputs: Record<string, unknown>, options: { stream: false }): Promise<{ raw: string }>;
  copy?: () => ServedCrew;
}

/** The options `crewts mcp serve` passes to the project's process. */
export interface McpServeArgs {
  kind: "crew" | "flow";
  transport: "stdio" | "http";
  port: number;
  host: string;
}

/**
 * `crewts mcp serve` in the project's process: the project's crew (createCrew()) or flow (its flow
 * class or kickoff()) as an MCP tool, over stdio or streamable HTTP. Runs until stdin closes (stdio)
 * or the process is stopped (http).
 */
export async function mcpServe(mod: EntryModule, file: string, args: McpServeArgs, projectName: string): Promise<number> {
  const info = { name: projectName, version: "1" };
  const tools = args.kind === "crew" ? await crewTools(mod, file) : [flowTool(mod, file, projectName)];
  if (args.transport === "stdio") {
    await serveStdio(tools, info);
    return 0;
  }
  const token = process.env.CREWTS_SERVER_TOKEN || undefined;
  const server = await serveHttp(tools, info, { port: args.port, host: args.host, ...(token ? { token } : {}) });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : args.port;
  console.error(`MCP server for ${projectName} listening on http://${args.host}:${port}/mcp (tools: ${tools.map((t) => t.name).join(", ")})`);
  await new Promise<void>((resolve) => {
    const stop = (): void => void server.close(() => resolve());
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}

async function crewTools(mod: EntryModule, file: string): Promise<ServedTool[]> {
  const setup = await projectCrew<ServedCrew>(mod, file, "crewts mcp serve");
  const crew = setup.crew;
  const names = crewPlaceholders(crew);
  const defaults = (typeof mod.inputs === "object" && mod.inputs !== null ? mod.inputs : {}) as Record<string, unknown>;
  const properties = Object.fromEntries(
    names.map((name) => [name, { type: "string", description: `The {${name}} input of the crew's tasks and agents.`, ...(typeof defaults[name] === "string" ? { default: defaults[name] } : {}) }]),
  );
  const crewName = crew.name ?? "crew";
  return [
    {
      name: sanitizeToolName(`run_${crewName}`) || "run_crew",
      description: `Runs the crew "${crewName}" (${crew.tasks.length} task${crew.tasks.length === 1 ? "" : "s"}: ${crew.tasks.map((t) => firstLine(t.description)).join("; ")}) and returns its final output.`,
      inputSchema: { type: "object", properties, required: names.filter((name) => defaults[name] === undefined) },
      async run(input, progress) {
        const inputs: Record<string, unknown> = { ...defaults, ...input };
        // A copy per call: its own id, so this call's task events (and nothing else) become its progress.
        const run = typeof crew.copy === "function" ? crew.copy() : crew;
        const total = run.tasks.length;
        let done = 0;
        const off = eventBus.on("task_completed", (event) => {
          if (event.crewId === run.id) progress(++done, total, `Task ${done} of ${total} completed`);
        });
        try {
          return (await run.kickoff(inputs, { stream: false })).raw;
        } finally {
          off();
        }
      },
    },
  ];
}

function flowTool(mod: EntryModule, file: string, projectName: string): ServedTool {
  const flowClass = Object.values(mod).find(
    (value) => typeof value === "function" && /^class[\s{]/.test(Function.prototype.toString.call(value)) && typeof (value as { prototype: { kickoff?: unknown } }).prototype.kickoff === "function",
  ) as (new () => { kickoff(inputs?: Record<string, unknown>): Promise<unknown> }) | undefined;
  const kickoff = typeof mod.kickoff === "function" && !flowClass ? (mod.kickoff as (inputs?: Record<string, unknown>) => Promise<unknown>) : undefined;
  if (!flowClass && !kickoff) throw new CliError(`${file} exports no flow class and no kickoff(): crewts mcp serve --flow needs one of them.`);
  const name = flowClass?.name ?? projectName;
  return {
    name: sanitizeToolName(`run_${name}`) || "run_flow",
    description: `Runs the flow "${name}" with the given inputs (they fill its state) and returns its result.`,
    inputSchema: { type: "object", properties: {}, additionalProperties: true },
    async run(input, progress: ProgressReporter) {
      let steps = 0;
      const off = eventBus.on("method_execution_finished", (event) => progress(++steps, undefined, `Step ${event.methodName} finished`));
      try {
        const result = flowClass ? await new flowClass().kickoff(input) : await kickoff!(input);
        return typeof result === "string" ? result : (JSON.stringify(result) ?? "");
      } finally {
        off();
      }
    },
  };
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
