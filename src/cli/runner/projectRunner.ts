import { dirname, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { CliError } from "../CliError.js";
import type { ProjectAction } from "../runInProject.js";

/** The project's entry module, as the runner sees it: whatever it exports. */
export type EntryModule = Record<string, unknown>;

type Fn = (...args: unknown[]) => unknown;

/**
 * The child-process side of `crewts run | flow kickoff | flow plot | replay | train | test | chat | serve | worker` and
 * `reset-memories --external`:
 * imports the project's entry file and calls the function it exports for the action (the CrewAI
 * layout: main.py's run, train, replay, test, kickoff and plot). Resolves with the exit code.
 */
export async function runProjectAction(action: ProjectAction, entry: string, args: string[]): Promise<number> {
  const mod = await importEntry(entry);
  const file = relative(process.cwd(), entry) || entry;
  switch (action) {
    case "run":
      await call(mod, file, ["run", "kickoff"], [], "run()");
      return 0;
    case "kickoff":
      await call(mod, file, ["kickoff", "run"], [], "kickoff()");
      return 0;
    case "plot": {
      const path = await call(mod, file, ["plot"], args[0] === undefined ? [] : [args[0]], "plot(filename?)");
      if (typeof path === "string") console.log(`Flow plot written to ${path}`);
      return 0;
    }
    case "replay":
      await call(mod, file, ["replay"], [args[0]], "replay(taskId)");
      return 0;
    case "train":
      await call(mod, file, ["train"], [Number(args[0]), args[1]], "train(iterations, filename)");
      return 0;
    case "test":
      await call(mod, file, ["test"], [Number(args[0]), args[1]], "test(iterations, evalModel)");
      return 0;
    case "reset-external": {
      const { resetExternalMemory } = await import("./projectCrew.js");
      return resetExternalMemory(mod, file, args[0] === "quiet");
    }
    case "mcp-serve": {
      const { mcpServe } = await import("./mcpServe.js");
      const [kind, transport, port, host, name] = args;
      return mcpServe(mod, file, { kind: kind === "flow" ? "flow" : "crew", transport: transport === "http" ? "http" : "stdio", port: Number(port), host: host ?? "127.0.0.1" }, name ?? "crewts");
    }
    case "serve":
    case "worker": {
      const { serveProject } = await import("./projectServe.js");
      return serveProject(action, mod, file, args);
    }
    case "chat": {
      const { chat } = await import("./chatSession.js");
      return chat(mod, file);
    }
    case "resume": {
      const { resumeInProject } = await import("./projectResume.js");
      return resumeInProject(mod, file, args);
    }
  }
}

async function importEntry(entry: string): Promise<EntryModule> {
  try {
    return (await import(pathToFileURL(entry).href)) as EntryModule;
  } catch (error) {
    const err = error as NodeJS.ErrnoException;
    const missing = err.code === "ERR_MODULE_NOT_FOUND" ? /Cannot find package '([^']+)'/.exec(err.message)?.[1] : undefined;
    if (missing) {
      throw new CliError(`Cannot find package '${missing}' imported by the project: run npm install in ${dirname(dirname(entry))} (add it with npm install ${missing} if it is not a dependency yet).`);
    }
    // A typo in the project's code (tsx's esbuild or Node could not parse it): the message has file, line and column.
    if (err.name === "SyntaxError" || /^Transform failed/.test(err.message ?? "")) {
      throw new CliError(`Could not load ${relative(process.cwd(), entry) || entry}: ${err.message.trim()}`);
    }
    throw error;
  }
}

/** Calls the first of `names` the module exports (a flow class counts for kickoff, run and plot). */
async function call(mod: EntryModule, file: string, names: string[], args: unknown[], signature: string): Promise<unknown> {
  for (const name of names) {
    const fn = mod[name];
    if (typeof fn === "function" && !isClass(fn)) return (fn as Fn)(...args);
  }
  if (names.includes("kickoff") || names.includes("plot")) {
    const flowClass = Object.values(mod).find((value) => isClass(value) && typeof (value as { prototype: { kickoff?: unknown } }).prototype.kickoff === "function" && "plot" in (value as { prototype: object }).prototype);
    if (flowClass) {
      const flow = new (flowClass as new () => { kickoff(): Promise<unknown>; plot(filename?: string): Promise<string> })();
      return names[0] === "plot" ? flow.plot(args[0] as string | undefined) : flow.kickoff();
    }
  }
  throw new CliError(
    `${file} does not export ${names.map((n) => `${n}()`).join(" or ")}. Add \`export async function ${signature} { ... }\` ` +
      "(a project made by crewts create crew or crewts create flow shows how).",
  );
}

/** Whether `value` is a class (a flow project exports its Flow class). */
export function isClass(value: unknown): boolean {
  return typeof value === "function" && /^class[\s{]/.test(Function.prototype.toString.call(value));
}
