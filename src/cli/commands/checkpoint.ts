import { forkCheckpoint } from "../../runtime/checkpoint/forkCheckpoint.js";
import { listCheckpointInfos, loadCheckpoint } from "../../runtime/checkpoint/checkpointStores.js";
import { isCrewProgress, isFlowProgress, type Checkpoint, type CheckpointInfo } from "../../runtime/checkpoint/types.js";
import type { CliContext } from "../CliContext.js";
import { CliError } from "../CliError.js";
import { runInProject } from "../runInProject.js";

/** Options shared by the checkpoint commands. */
export interface CheckpointCommandOptions {
  location?: string;
}

type Print = (line: string) => void;

/** `crewts checkpoint list`: one line per checkpoint, oldest first. */
export async function checkpointList(options: CheckpointCommandOptions, print: Print = console.log): Promise<number> {
  const all = await listCheckpointInfos(options.location);
  if (all.length === 0) {
    print(`No checkpoints in ${options.location ?? "./.checkpoints"}. Give a crew or flow \`checkpoint: true\` to write them.`);
    return 0;
  }
  for (const cp of all) print(line(cp));
  return 0;
}

function line(cp: CheckpointInfo): string {
  return `${cp.id}  ${cp.createdAt}  ${cp.kind.padEnd(5)} ${cp.name}  branch=${cp.branch}  event=${cp.event}`;
}

/** `crewts checkpoint info <id>`: the header, inputs and progress of one checkpoint. */
export async function checkpointInfo(ref: string, options: CheckpointCommandOptions, print: Print = console.log): Promise<number> {
  const cp = await loadCheckpoint(ref, options);
  print(describe(cp));
  return 0;
}

/** A readable account of a checkpoint. */
export function describe(cp: Checkpoint): string {
  const lines = [
    `id:        ${cp.id}`,
    `kind:      ${cp.kind} (${cp.name})`,
    `lineage:   ${cp.lineage}  branch: ${cp.branch}${cp.parentId ? `  parent: ${cp.parentId}` : ""}`,
    `written:   ${cp.createdAt} on ${cp.event}`,
    `inputs:    ${JSON.stringify(cp.inputs)}`,
    `usage:     ${cp.usage.totalTokens} tokens in ${cp.usage.successfulRequests} requests`,
  ];
  if (isCrewProgress(cp.progress)) {
    lines.push(`tasks done: ${cp.progress.tasks.length}`);
    for (const t of cp.progress.tasks) lines.push(`  ${t.index + 1}. ${t.skipped ? "(skipped) " : ""}${(typeof t.output.raw === "string" ? t.output.raw : "").slice(0, 120).replace(/\s+/g, " ")}`);
  } else if (isFlowProgress(cp.progress)) {
    lines.push(`methods done: ${cp.progress.journal.length} (${[...new Set(cp.progress.journal.map((e) => e.method))].join(", ")})`);
    if (cp.progress.inFlight.length > 0) lines.push(`running then: ${cp.progress.inFlight.join(", ")}`);
    for (const w of cp.progress.waiting) lines.push(`waiting:     ${w.method} has seen ${w.seen.join(", ")}`);
    lines.push(`state:       ${JSON.stringify(cp.progress.state).slice(0, 400)}`);
  }
  return lines.join("\n");
}

/** `crewts checkpoint resume <id>`: resumes the run in the project's process (its crew or flow). */
export async function checkpointResume(ctx: CliContext, ref: string, options: CheckpointCommandOptions & { inputs?: string }): Promise<number> {
  const cp = await loadCheckpoint(ref, options);
  return runInProject(ctx.cliEntry, "resume", [cp.id, cp.kind, options.location ?? "", options.inputs ?? ""]);
}

/** `crewts checkpoint fork <id>`: copies the checkpoint into a new branch, then resumes that branch. */
export async function checkpointFork(ctx: CliContext, ref: string, options: CheckpointCommandOptions & { branch?: string; inputs?: string }, print: Print = console.log): Promise<number> {
  if (options.inputs !== undefined) parseInputs(options.inputs);
  const fork = await forkCheckpoint(ref, (await loadCheckpoint(ref, options)).kind, { ...(options.branch ? { branch: options.branch } : {}), ...(options.location ? { location: options.location } : {}) });
  print(`Forked ${ref} into branch "${fork.branch}" as ${fork.id}.`);
  return checkpointResume(ctx, fork.id, options);
}

/** The --inputs JSON object. */
export function parseInputs(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(`--inputs is not valid JSON: give an object, e.g. --inputs '{"topic":"AI"}'.`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new CliError(`--inputs must be a JSON object, e.g. '{"topic":"AI"}'.`);
  return value as Record<string, unknown>;
}

/** `crewts checkpoint` on a terminal: pick a checkpoint, then see it, resume it or fork it (clack prompts). */
export async function checkpointBrowser(ctx: CliContext, options: CheckpointCommandOptions): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new CliError("crewts checkpoint without a subcommand is interactive and needs a terminal: use crewts checkpoint list | info <id> | resume <id> | fork <id>.");
  }
  const prompts = await import("@clack/prompts");
  const all = await listCheckpointInfos(options.location);
  if (all.length === 0) return checkpointList(options);
  prompts.intro("crewts checkpoints");
  const picked = await prompts.select({
    message: "Checkpoint",
    options: all.reverse().map((cp) => ({ value: cp.id, label: `${cp.kind} ${cp.name} · ${cp.branch} · ${cp.event}`, hint: `${cp.createdAt} ${cp.id}` })),
  });
  if (prompts.isCancel(picked)) return 130;
  const cp = await loadCheckpoint(picked, options);
  prompts.note(describe(cp), cp.id);
  const action = await prompts.select({
    message: "What now?",
    options: [
      { value: "resume", label: "Resume", hint: "continue this run" },
      { value: "fork", label: "Fork", hint: "continue on a new branch" },
      { value: "quit", label: "Quit" },
    ],
  });
  if (prompts.isCancel(action) || action === "quit") return 0;
  if (action === "resume") return checkpointResume(ctx, cp.id, options);
  const branch = await prompts.text({ message: "Branch name", placeholder: "experiment-a" });
  if (prompts.isCancel(branch)) return 130;
  return checkpointFork(ctx, cp.id, { ...options, ...(branch ? { branch } : {}) });
}
