import { withHostPauses } from "../runtime/hostPauses.js";
import { placeholdersOf } from "../task/interpolate.js";
import { crewPause, flowPause, KickoffPausedError } from "./pauses.js";
import type { RunEventSource } from "./runEvents.js";
import { withRunEvents } from "./runEvents.js";
import type { PausedKickoff, RunController, RunOptions } from "./types.js";

/** The kickoff options the server passes (crewts' KickoffOptions). */
export interface ServedKickoffOptions {
  signal?: AbortSignal;
  stream?: boolean;
  fromCheckpoint?: string;
}

/** A crew as the server sees it (duck-typed: the project may have its own copy of crewts). */
export interface ServableCrew {
  kickoff(inputs?: Record<string, unknown>, options?: ServedKickoffOptions): Promise<unknown>;
  tasks: { description: string; expectedOutput: string; outputFile?: string }[];
  agents: { role: string; goal: string; backstory: string }[];
  /** Continues a kickoff paused by HumanInputPending (crewts' `crew.resume`). */
  resume?(checkpointId: string, answer: string, options?: ServedKickoffOptions): Promise<unknown>;
}

/** A flow as the server sees it. */
export interface ServableFlow {
  kickoff(inputs?: Record<string, unknown>, options?: ServedKickoffOptions): Promise<unknown>;
  /** Answers the pending feedback of a flow from `fromPending` (crewts' `flow.resume`). */
  resume?(feedback: string, options?: ServedKickoffOptions): Promise<unknown>;
}

/** A flow class as the server sees it: `fromPending` rebuilds a paused flow. */
interface PausableFlowClass {
  fromPending?(flowId: string): Promise<ServableFlow>;
}

/** Makes a fresh crew for each kickoff: the crew, or `{ crew, close? }` as a project's createCrew() returns. */
export type CrewFactory = () => ServableCrew | { crew: ServableCrew; close?: () => Promise<void> } | Promise<ServableCrew | { crew: ServableCrew; close?: () => Promise<void> }>;

/** Makes a fresh flow for each kickoff. */
export type FlowFactory = () => ServableFlow | Promise<ServableFlow>;

/** The RunController of a crew: a new crew per kickoff (runs never share state), its events relayed. */
export function crewController(factory: CrewFactory, bus: RunEventSource): RunController {
  let names: Promise<string[]> | undefined;
  return {
    inputs: () =>
      (names ??= (async () => {
        const { crew, close } = unpack(await factory());
        try {
          return crewPlaceholders(crew);
        } finally {
          await close?.();
        }
      })().catch((error: unknown) => {
        // A factory that failed (a missing key, a database down) is asked again next time.
        names = undefined;
        throw error;
      })),
    async start(inputs: Record<string, unknown>, options: RunOptions): Promise<unknown> {
      options.signal.throwIfAborted();
      const { crew, close } = unpack(await factory());
      try {
        return toResult(await pausable(() => withRunEvents(bus, options.onEvent, () => streamed(crew.kickoff(inputs, kickoffOptions(options)), options.onEvent))));
      } finally {
        await close?.();
      }
    },
    async resume(paused: PausedKickoff, feedback: string, options: RunOptions): Promise<unknown> {
      options.signal.throwIfAborted();
      const { crew, close } = unpack(await factory());
      try {
        if (paused.kind !== "crew" || typeof crew.resume !== "function") throw new TypeError(`A ${paused.kind} pause cannot be resumed by this crew (it has no resume(checkpointId, answer)).`);
        // crew.resume runs without streaming: its events reach /stream, its text chunks do not.
        return toResult(await pausable(() => withRunEvents(bus, options.onEvent, () => crew.resume!(paused.ref, feedback, { signal: options.signal }))));
      } finally {
        await close?.();
      }
    },
  };
}

/** The RunController of a flow: a new flow per kickoff. A flow's inputs are its state's fields, so none are listed. */
export function flowController(factory: FlowFactory, bus: RunEventSource): RunController {
  return {
    inputs: async () => [],
    async start(inputs: Record<string, unknown>, options: RunOptions): Promise<unknown> {
      options.signal.throwIfAborted();
      const flow = await factory();
      return toResult(await pausable(() => withRunEvents(bus, options.onEvent, () => streamed(flow.kickoff(inputs, kickoffOptions(options)), options.onEvent))));
    },
    async resume(paused: PausedKickoff, feedback: string, options: RunOptions): Promise<unknown> {
      options.signal.throwIfAborted();
      const made = await factory();
      const flowClass = made.constructor as PausableFlowClass;
      if (paused.kind !== "flow" || typeof flowClass.fromPending !== "function") throw new TypeError(`A ${paused.kind} pause cannot be resumed by this flow (its class has no fromPending).`);
      const flow = await flowClass.fromPending(paused.ref);
      return toResult(await pausable(() => withRunEvents(bus, options.onEvent, () => streamed(flow.resume!(feedback, kickoffOptions(options)), options.onEvent))));
    },
  };
}

/**
 * Runs a kickoff so that a question no one can answer pauses it, and turns a pause (a flow resolving
 * with HumanFeedbackPending, a crew rejecting with HumanInputPending) into a KickoffPausedError.
 */
async function pausable(run: () => Promise<unknown>): Promise<unknown> {
  let result: unknown;
  try {
    result = await withHostPauses(run);
  } catch (error) {
    const paused = crewPause(error);
    throw paused ? new KickoffPausedError(paused) : error;
  }
  const paused = flowPause(result);
  if (paused) throw new KickoffPausedError(paused);
  return result;
}

function kickoffOptions({ signal, fromCheckpoint }: RunOptions): ServedKickoffOptions {
  return { signal, stream: true, ...(fromCheckpoint !== undefined ? { fromCheckpoint } : {}) };
}

/**
 * The result of a streaming kickoff, its chunks handed on as `chunk` events (text, task name and
 * index, agent role, flow method). A kickoff that did not stream (an older crewts) is its own result.
 */
async function streamed(kickoff: Promise<unknown>, onEvent: RunOptions["onEvent"]): Promise<unknown> {
  const output = await kickoff;
  if (!isStreaming(output)) return output;
  // The chunks end when the run does; a failed run rejects both, and `result` says why.
  try {
    for await (const chunk of output) onEvent({ ...(chunk as object), type: "chunk" });
  } catch {
    // The same error is `result`'s.
  }
  return output.result;
}

function isStreaming(value: unknown): value is AsyncIterable<unknown> & { result: Promise<unknown> } {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value && "result" in value;
}

function unpack(made: ServableCrew | { crew: ServableCrew; close?: () => Promise<void> }): { crew: ServableCrew; close?: () => Promise<void> } {
  return "crew" in made && typeof (made as { crew?: unknown }).crew === "object" ? (made) : { crew: made as ServableCrew };
}

/** Every `{placeholder}` of the crew's tasks and agents, in order of appearance. */
export function crewPlaceholders(crew: Pick<ServableCrew, "agents" | "tasks">): string[] {
  const texts = [
    ...crew.tasks.flatMap((task) => [task.description, task.expectedOutput, task.outputFile ?? ""]),
    ...crew.agents.flatMap((agent) => [agent.role, agent.goal, agent.backstory]),
  ];
  return [...new Set(texts.flatMap((value) => placeholdersOf(value ?? "")))];
}

/** A kickoff's result as JSON: a CrewOutput's toJSON(), anything else as JSON.stringify sees it. */
function toResult(value: unknown): unknown {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value) ?? "null") as unknown;
}
