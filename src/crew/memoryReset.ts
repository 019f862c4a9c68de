import type { Knowledge } from "../knowledge/Knowledge.js";
import type { TaskOutputStore } from "../storage/TaskOutputStore.js";
import { CrewMemoryError } from "./errors.js";

/** What `crew.resetMemories` can clear: CrewAI's kinds ("memory" and "agent_knowledge" are its newest names). */
export type MemoryKind = "short" | "long" | "entity" | "external" | "memory" | "knowledge" | "agent_knowledge" | "kickoff_outputs" | "all";

const MEMORY_KINDS: Record<MemoryKind, string> = {
  short: "Short-term memory",
  long: "Long-term memory",
  entity: "Entity memory",
  external: "External memory",
  memory: "Memory",
  knowledge: "Crew knowledge",
  agent_knowledge: "Agent knowledge",
  kickoff_outputs: "Task output",
  all: "All memory",
};

/** Anything a crew keeps that resetMemories can clear. */
export interface Resettable {
  reset(): Promise<void>;
}

/** What a crew has to reset, each kind present only when the crew uses it. */
export interface CrewMemoryTargets {
  crewName: string;
  taskOutputs: TaskOutputStore;
  short?: Resettable | undefined;
  long?: Resettable | undefined;
  entity?: Resettable | undefined;
  external?: Resettable | undefined;
  knowledge?: Knowledge | undefined;
  agentKnowledge: readonly Knowledge[];
}

/**
 * Clears one kind of what a crew remembers. "all" clears everything the crew has (task outputs included),
 * "memory" every enabled memory; asking for a kind the crew does not use is an error, as in CrewAI.
 */
export async function resetCrewMemories(kind: MemoryKind, targets: CrewMemoryTargets): Promise<void> {
  if (!Object.hasOwn(MEMORY_KINDS, kind)) {
    throw new CrewMemoryError(`Invalid memory kind '${String(kind)}'. Use one of: ${Object.keys(MEMORY_KINDS).join(", ")}.`);
  }
  const memories = [targets.short, targets.long, targets.entity, targets.external];
  const chosen: readonly (Resettable | undefined)[] =
    kind === "all"
      ? [...memories, targets.knowledge, ...targets.agentKnowledge]
      : kind === "memory"
        ? memories
        : kind === "knowledge"
          ? [targets.knowledge]
          : kind === "agent_knowledge"
            ? targets.agentKnowledge
            : kind === "kickoff_outputs"
              ? []
              : [targets[kind]];
  const present = chosen.filter((target): target is Resettable => target !== undefined);
  if (kind === "kickoff_outputs" || kind === "all") {
    try {
      await targets.taskOutputs.reset();
    } finally {
      await targets.taskOutputs.close();
    }
  } else if (present.length === 0) {
    throw new CrewMemoryError(
      `${MEMORY_KINDS[kind]} is not enabled on crew '${targets.crewName}', so there is nothing to reset. ` +
        "Reset only the kinds the crew uses, or 'all' to reset whatever it has.",
    );
  }
  for (const target of present) await target.reset();
}
