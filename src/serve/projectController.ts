import { placeholdersOf } from "../task/interpolate.js";
import type { RunEventSource } from "./runEvents.js";
import { withRunEvents } from "./runEvents.js";
import type { RunController, RunOptions } from "./types.js";

/** A crew as the server sees it (duck-typed: the project may have its own copy of crewts). */
export interface ServableCrew {
  kickoff(inputs?: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
  tasks: { description: string; expectedOutput: string; outputFile?: string }[];
  agents: { role: string; goal: string; backstory: string }[];
}

/** A flow as the server sees it. */
export interface ServableFlow {
  kickoff(inputs?: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<unknown>;
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
    async start(inputs: Record<string, unknown>, { signal, onEvent }: RunOptions): Promise<unknown> {
      signal.throwIfAborted();
      const { crew, close } = unpack(await factory());
      try {
        return toResult(await withRunEvents(bus, onEvent, () => crew.kickoff(inputs, { signal })));
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
    async start(inputs: Record<string, unknown>, { signal, onEvent }: RunOptions): Promise<unknown> {
      signal.throwIfAborted();
      const flow = await factory();
      return toResult(await withRunEvents(bus, onEvent, () => flow.kickoff(inputs, { signal })));
    },
  };
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
