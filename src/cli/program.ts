import { Command, CommanderError, InvalidArgumentError } from "commander";
import type { CliContext } from "./CliContext.js";
import { ExitCode, reportError } from "./CliError.js";

// Only commander is loaded at start-up so `crewts --help` stays fast: every action imports its
// command module (and what that needs) when it runs.

type Action<A extends unknown[]> = (...args: A) => Promise<number | void> | number | void;

/** Output hooks, so tests can capture what commander prints. */
export interface ProgramOutput {
  writeOut?: (text: string) => void;
  writeErr?: (text: string) => void;
}

/** The crewts command line: every command of CrewAI's CLI, the Node way. */
export function createProgram(ctx: CliContext, output: ProgramOutput = {}): { program: Command; exitCode: () => number } {
  let exitCode: number = ExitCode.ok;
  const lazy =
    <A extends unknown[]>(load: () => Promise<Action<A>>) =>
    async (...args: A): Promise<void> => {
      const code = await (await load())(...args);
      if (typeof code === "number") exitCode = code;
    };

  const program = new Command()
    .name("crewts")
    .description("crewts: CrewAI for TypeScript. Create, run, train and test crews of AI agents and event-driven flows.")
    .version(ctx.pkg.version, "-v, --version", "print the crewts version")
    .helpOption("-h, --help", "show help for a command")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .configureOutput({ ...(output.writeOut ? { writeOut: output.writeOut } : {}), ...(output.writeErr ? { writeErr: output.writeErr } : {}) })
    .addHelpText("after", "\nStart with: crewts create crew my_crew, then cd my_crew, npm install and crewts run.\nSee crewts <command> --help for each command.");

  const create = program.command("create").description("create a new crew or flow project in a new folder");
  for (const kind of ["crew", "flow"] as const) {
    create
      .command(kind)
      .description(kind === "crew" ? "create a crew project: agents and tasks in YAML, a crew class, run/train/replay/test entry points" : "create a flow project: a flow whose steps run a crew")
      .argument("<name>", "project name, e.g. latest_ai_development (also the folder and package name, in lower case)")
      .option("-d, --dir <folder>", "create the project folder inside this folder", ".")
      .option("--crewts <spec>", "the project's crewts dependency, e.g. ^0.2.0 (default: this crewts's version when it came from a registry, else a tarball of it packed into the project; env CREWTS_DEPENDENCY)")
      .action(lazy(async () => {
        const { create: run } = await import("./commands/create.js");
        return async (name: string, options: { dir: string; crewts?: string }) => void (await run(ctx, kind, name, options));
      }));
  }

  program
    .command("install")
    .description("install the project's dependencies (npm install in the project folder)")
    .action(lazy(async () => (await import("./commands/install.js")).install));

  program
    .command("run")
    .description("run the crew (or flow) of the project in this folder: calls run() in src/main.ts")
    .addHelpText("after", "\nRuns in the project folder with the project's own crewts and tsx; loads .env when there is one.")
    .action(lazy(async () => (await import("./commands/run.js")).run.bind(null, ctx)));

  const flow = program.command("flow").description("run or draw the flow of a flow project");
  flow
    .command("kickoff")
    .description("run the flow: calls kickoff() in src/main.ts")
    .action(lazy(async () => (await import("./commands/flowKickoff.js")).flowKickoff.bind(null, ctx)));
  flow
    .command("plot")
    .description("write an interactive HTML drawing of the flow: calls plot() in src/main.ts")
    .option("-o, --output <file>", "the HTML file to write (default: crewts_flow.html in the project folder)")
    .action(lazy(async () => (await import("./commands/flowPlot.js")).flowPlot.bind(null, ctx)));

  program
    .command("replay")
    .description("rerun the latest kickoff from a task, keeping the outputs of the tasks before it")
    .requiredOption("-t, --task-id <id>", "the task to start from (find ids with crewts log-tasks-outputs)")
    .showHelpAfterError("(find task ids with: crewts log-tasks-outputs)")
    .action(lazy(async () => (await import("./commands/replay.js")).replay.bind(null, ctx)));

  program
    .command("log-tasks-outputs")
    .description("show the task ids, descriptions and outputs of the latest kickoff")
    .option("--full", "show whole outputs instead of the first 300 characters")
    .option("--json", "print the records as JSON")
    .action(lazy(async () => {
      const { logTasksOutputs } = await import("./commands/logTasksOutputs.js");
      return (options: { full?: boolean; json?: boolean }) => logTasksOutputs(options);
    }));

  program
    .command("train")
    .description("run the crew several times, ask for your feedback on each result, and save what the agents learned")
    .option("-n, --n-iterations <n>", "how many runs", positiveInteger, 5)
    .option("-f, --filename <file>", "where to save the trained data (.json)", jsonFile, "trained_agents_data.json")
    .action(lazy(async () => (await import("./commands/train.js")).train.bind(null, ctx)));

  program
    .command("test")
    .description("run the crew several times and have a model score every task from 1 to 10")
    .option("-n, --n-iterations <n>", "how many runs", positiveInteger, 3)
    .option("-m, --model <model>", "the model that scores (provider/model)", "openai/gpt-4o-mini")
    .option("--record", "send the provider calls through a cassette and record them (needs a provider key)")
    .option("--replay", "answer the provider calls from the recorded cassette: no key, no network")
    .option("--cassette <file>", "the cassette file, relative to the project (default test/cassettes/crewts-test.json)")
    .action(lazy(async () => (await import("./commands/testCrew.js")).testCrew.bind(null, ctx)));

  const reset = program
    .command("reset-memories")
    .description("forget what the project stored: memories, knowledge, task outputs of the latest kickoff")
    .option("-a, --all", "reset everything below")
    .option("-s, --short", "short-term memory")
    .option("-l, --long", "long-term memory")
    .option("-e, --entities", "entity memory")
    .option("--external", "external memory (through the project's createCrew())")
    .option("--knowledge", "crew knowledge")
    .option("--agent-knowledge", "agents' knowledge")
    .option("-k, --kickoff-outputs", "task outputs of the latest kickoff (what replay uses)")
    .action(lazy(async () => {
      const { resetMemories } = await import("./commands/resetMemories.js");
      const { runInProject } = await import("./runInProject.js");
      return (options: Parameters<typeof resetMemories>[0]) =>
        resetMemories(options, console.log, (quiet) => runInProject(ctx.cliEntry, "reset-external", quiet ? ["quiet"] : []));
    }));
  // CrewAI spells these -kn and -akn; commander's short options are one letter, so argv is rewritten (see runCli).
  reset.configureHelp({
    optionTerm: (option) => (option.long === "--knowledge" ? "-kn, --knowledge" : option.long === "--agent-knowledge" ? "-akn, --agent-knowledge" : option.flags),
  });

  program
    .command("chat")
    .description("asks for the crew's inputs, runs it, then answers your questions about the result (type exit to quit)")
    .action(lazy(async () => (await import("./commands/chat.js")).chat.bind(null, ctx)));

  const checkpoint = program
    .command("checkpoint")
    .description("browse checkpoints on a terminal; or list, inspect, resume and fork them")
    .option("--location <path>", "checkpoint directory or .db file (default ./.checkpoints)")
    .action(lazy(async () => {
      const { checkpointBrowser } = await import("./commands/checkpoint.js");
      return (options: { location?: string }) => checkpointBrowser(ctx, options);
    }));
  const location = ["--location <path>", "checkpoint directory or .db file (default ./.checkpoints)"] as const;
  checkpoint
    .command("list")
    .description("list checkpoints, oldest first")
    .option(...location)
    .action(lazy(async () => (await import("./commands/checkpoint.js")).checkpointList));
  checkpoint
    .command("info")
    .argument("<id>", "checkpoint id or JSON checkpoint file")
    .description("show a checkpoint: inputs, finished tasks or methods, state")
    .option(...location)
    .action(lazy(async () => {
      const { checkpointInfo } = await import("./commands/checkpoint.js");
      return (id: string, options: { location?: string }) => checkpointInfo(id, options);
    }));
  checkpoint
    .command("resume")
    .argument("<id>", "checkpoint id or JSON checkpoint file")
    .description("resume the project's crew or flow from a checkpoint")
    .option(...location)
    .action(lazy(async () => {
      const { checkpointResume } = await import("./commands/checkpoint.js");
      return (id: string, options: { location?: string }) => checkpointResume(ctx, id, options);
    }));
  checkpoint
    .command("fork")
    .argument("<id>", "checkpoint id or JSON checkpoint file")
    .description("copy a checkpoint into a new branch and resume it there")
    .option(...location)
    .option("--branch <name>", "the new branch's name")
    .option("--inputs <json>", "inputs for the resumed run, as a JSON object")
    .action(lazy(async () => {
      const { checkpointFork } = await import("./commands/checkpoint.js");
      return (id: string, options: { location?: string; branch?: string; inputs?: string }) => checkpointFork(ctx, id, options);
    }));

  program
    .command("version")
    .description("print the crewts version")
    .action(() => void (output.writeOut ?? ((text: string) => process.stdout.write(text)))(`crewts ${ctx.pkg.version}\n`));

  const mcp = program.command("mcp").description("Model Context Protocol: serve the project's crew or flow as MCP tools");
  mcp
    .command("serve")
    .description("serve the project's crew (createCrew() in src/main.ts; its inputs are the tool's arguments) or flow as an MCP tool")
    .option("--crew", "serve the crew (default for crew projects)")
    .option("--flow", "serve the flow (default for flow projects)")
    .option("--transport <transport>", "stdio, or http (streamable HTTP at /mcp)", "stdio")
    .option("--port <port>", "port for --transport http (0: any free port)", "8000")
    .option("--host <host>", "address for --transport http; other than loopback needs a token", "127.0.0.1")
    .option("--token <token>", "bearer token HTTP clients must send (default: CREWTS_SERVER_TOKEN)")
    .action(lazy(async () => (await import("./commands/mcpServe.js")).mcpServe.bind(null, ctx)));

  program
    .command("serve")
    .description("serve the project's crew or flow over HTTP: /inputs, /kickoff, /status/{id}, /stream/{id}, /cancel/{id}")
    .option("-p, --port <port>", "the port to listen on", port, 8000)
    .option("--host <host>", "the address to listen on (anything but loopback needs a token)", "127.0.0.1")
    .option("--token <token>", "the bearer token every route but /health needs (default: CREWTS_SERVER_TOKEN)")
    .option("--queue <name>", "with CREWTS_REDIS_URL: the queue kickoffs go to", "crewts")
    .addHelpText("after", "\nWith CREWTS_REDIS_URL set, kickoffs go to a Redis queue that crewts worker processes run; otherwise they run in this process.")
    .action(lazy(async () => (await import("./commands/serve.js")).serve.bind(null, ctx)));

  program
    .command("worker")
    .description("run kickoffs of the project's crew or flow from the Redis queue (CREWTS_REDIS_URL) that crewts serve fills")
    .option("--queue <name>", "the queue to take kickoffs from", "crewts")
    .option("--concurrency <n>", "kickoffs run at once", positiveInteger, 10)
    .action(lazy(async () => (await import("./commands/serve.js")).worker.bind(null, ctx)));

  // The project's process: `node --import tsx <this cli> __project <action> <entry> [args...]` (see runInProject).
  program
    .command("__project", { hidden: true })
    .argument("<action>")
    .argument("<entry>")
    .argument("[args...]")
    .action(lazy(async () => {
      const { runProjectAction } = await import("./runner/projectRunner.js");
      const { explainProjectError } = await import("./runner/projectErrors.js");
      return async (action: string, entry: string, args: string[]) => {
        let code: number;
        try {
          code = await runProjectAction(action as Parameters<typeof runProjectAction>[0], entry, args);
        } catch (error) {
          code = reportError(explainProjectError(error, process.cwd()), output.writeErr);
        }
        // The action is over: a server or timer the project left open must not keep the command hanging.
        process.exit(code);
      };
    }));

  return { program, exitCode: () => exitCode };
}

/** Parses argv (without node and the script), runs the command, and resolves with the exit code. Never throws. */
export async function runCli(ctx: CliContext, argv: string[], output: ProgramOutput = {}): Promise<number> {
  const { program, exitCode } = createProgram(ctx, output);
  try {
    await program.parseAsync(rewriteShortFlags(argv), { from: "user" });
    return exitCode();
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; a call without a command shows help and is a usage error, as is any parse error.
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return ExitCode.ok;
      return ExitCode.usage;
    }
    return reportError(error, output.writeErr);
  }
}

/** CrewAI's multi-letter short flags of reset-memories, as commander long options. */
function rewriteShortFlags(argv: string[]): string[] {
  if (!argv.includes("reset-memories")) return argv;
  return argv.map((arg) => (arg === "-kn" ? "--knowledge" : arg === "-akn" ? "--agent-knowledge" : arg));
}

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65535) throw new InvalidArgumentError("give a port number from 0 to 65535, e.g. --port 8000.");
  return n;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 1) throw new InvalidArgumentError("give a whole number above 0, e.g. -n 3.");
  return n;
}

function jsonFile(value: string): string {
  if (!value.toLowerCase().endsWith(".json")) throw new InvalidArgumentError(`the trained data is saved as JSON: give a file ending in .json, e.g. -f ${value.replace(/\.[^./]*$/, "")}.json.`);
  return value;
}
