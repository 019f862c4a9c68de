import type { Agent } from "../agent/Agent.js";
import { sharedRequestLimiter, type RequestLimiter } from "../agent/requestLimiters.js";
import { RpmLimiter } from "../agent/RpmLimiter.js";
import { matchCrew, VerbosePrinter } from "../events/VerbosePrinter.js";
import type { Knowledge } from "../knowledge/Knowledge.js";
import { enabledMemories, type MemorySet } from "../memory/MemorySet.js";
import type { TaskOutputStore } from "../storage/TaskOutputStore.js";
import type { CrewOptions } from "./CrewOptions.js";
import type { TaskLogFile } from "./TaskLogFile.js";

/** The crew's request limiter: llmRateLimit is held across every crew of this name (across workers too, under crewts worker); maxRpm per crew. */
export function crewRequestLimiter(name: string, options: Pick<CrewOptions, "llmRateLimit" | "maxRpm">): RequestLimiter | undefined {
  if (options.llmRateLimit) return sharedRequestLimiter(name, options.llmRateLimit.requestsPerMinute);
  return options.maxRpm !== undefined ? new RpmLimiter(options.maxRpm) : undefined;
}

/** Shows a verbose crew's kickoff live (and writes it to the output log file when there is one); returns the release. */
export function showKickoff(crewId: string, agents: () => Agent[], logFile: TaskLogFile | undefined): (() => Promise<void>) | undefined {
  return VerbosePrinter.acquire({ key: crewId, match: matchCrew(crewId, agents), ...(logFile ? { onRecord: (r) => logFile.appendRecord(r) } : {}) });
}

/** What a crew holds open. */
export interface CrewStores {
  taskOutputStore: TaskOutputStore;
  memories: MemorySet;
  knowledge: Knowledge | undefined;
  agents: readonly Agent[];
}

/** Closes a crew's task output store, memories and knowledge (its agents' too), all of them even if some fail. */
export async function closeCrewStores(crewName: string, stores: CrewStores): Promise<void> {
  const closing: Promise<unknown>[] = [stores.taskOutputStore.close()];
  for (const { memory } of enabledMemories(stores.memories)) closing.push(memory.close());
  if (stores.knowledge) closing.push(stores.knowledge.close());
  for (const agent of stores.agents) {
    const knowledge = agent.knowledgeBase();
    if (knowledge) closing.push(knowledge.close());
  }
  const failures = (await Promise.allSettled(closing)).flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
  if (failures.length > 0) throw new AggregateError(failures, `Crew '${crewName}' could not close ${failures.length} of its stores.`);
}
