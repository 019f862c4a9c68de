import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Embedder } from "../knowledge/embedders/Embedder.js";
import { EntityMemory } from "../memory/EntityMemory.js";
import { ExternalMemory } from "../memory/ExternalMemory.js";
import { LongTermMemory } from "../memory/LongTermMemory.js";
import type { Agent } from "../agent/Agent.js";
import { KickoffMemory, warnUnsavedMemory, type MemoryConfig, type MemorySet } from "../memory/MemorySet.js";
import type { Task, TaskOutput } from "../task/index.js";
import { ShortTermMemory } from "../memory/ShortTermMemory.js";
import type { Memory } from "../memory/types.js";

/** The memory options of a crew. */
export interface CrewMemoryOptions {
  /** Turns on short-term, long-term and entity memory (with the crew's embedder, or keyword search without one). */
  memory?: boolean;
  shortTermMemory?: Memory;
  longTermMemory?: LongTermMemory;
  entityMemory?: Memory;
  /** A memory kept by an outside service (new ExternalMemory({ provider })); used whenever given. */
  externalMemory?: Memory;
  /** Items per memory and the token budget of the memory section of a prompt. */
  memoryConfig?: MemoryConfig;
}

const isMemory = (v: unknown): v is Memory =>
  typeof v === "object" && v !== null && ["save", "search", "reset", "flush"].every((m) => typeof (v as Record<string, unknown>)[m] === "function");
const memoryOption = (example: string) => z.custom<Memory>(isMemory, `must be a memory with save, search, reset and flush, e.g. ${example}`);

/** Zod shapes of the memory options, merged into the crew's schema. */
export const crewMemoryOptionsShape = {
  memory: z.boolean().optional(),
  shortTermMemory: memoryOption("new ShortTermMemory()").optional(),
  longTermMemory: z.instanceof(LongTermMemory, { message: "longTermMemory must be created with new LongTermMemory({...})" }).optional(),
  entityMemory: memoryOption("new EntityMemory()").optional(),
  externalMemory: memoryOption("new ExternalMemory({ provider })").optional(),
  memoryConfig: z
    .object({
      limit: z.number().int().positive().optional(),
      tokenBudget: z.number().int().positive().optional(),
      provider: z.literal("mem0", { message: 'the only memory provider is "mem0"; for others pass externalMemory: new ExternalMemory({ provider })' }).optional(),
      config: z.record(z.string(), z.unknown()).optional(),
    })
    .strict()
    .refine((c) => c.config === undefined || c.provider !== undefined, 'memoryConfig.config needs provider: "mem0"')
    .optional(),
};

/** CrewAI's memoryConfig { provider: "mem0", config } as an ExternalMemory on Mem0. */
function mem0Memory(config: Record<string, unknown> | undefined): ExternalMemory {
  return new ExternalMemory({ embedderConfig: { provider: "mem0", ...(config ? { config } : {}) } });
}

/**
 * The memories a crew uses: those given, with `memory: true` the built-in ones for the kinds not given,
 * and an external memory on Mem0 for CrewAI's memoryConfig { provider: "mem0", config: { user_id } }.
 */
export function createMemorySet(options: CrewMemoryOptions, embedder: Embedder | undefined): MemorySet {
  const on = options.memory === true;
  const withEmbedder = embedder ? { embedder } : {};
  return {
    short: options.shortTermMemory ?? (on ? new ShortTermMemory(withEmbedder) : undefined),
    long: options.longTermMemory ?? (on ? new LongTermMemory() : undefined),
    entity: options.entityMemory ?? (on ? new EntityMemory(withEmbedder) : undefined),
    external: options.externalMemory ?? (options.memoryConfig?.provider === "mem0" ? mem0Memory(options.memoryConfig.config) : undefined),
  };
}

/** Options that hand a crew's memories to a copy of it: the same memories, so copies remember into (and recall from) the crew's. */
export function sharedMemoryOptions(memories: MemorySet): CrewMemoryOptions {
  return {
    ...(memories.short ? { shortTermMemory: memories.short } : {}),
    ...(memories.long ? { longTermMemory: memories.long } : {}),
    ...(memories.entity ? { entityMemory: memories.entity } : {}),
    ...(memories.external ? { externalMemory: memories.external } : {}),
  };
}

/** The memory of one kickoff (its own short-term run id), or undefined when the crew has no memory. */
export function startKickoffMemory(memories: MemorySet, config: MemoryConfig | undefined): KickoffMemory | undefined {
  // Checked field by field: every kickoff asks, and most crews have no memory.
  const any = memories.short !== undefined || memories.long !== undefined || memories.entity !== undefined || memories.external !== undefined;
  return any ? new KickoffMemory(memories, randomUUID(), config) : undefined;
}

/**
 * Waits for the kickoff's task records and every memory's deferred writes. A write that failed does not
 * fail the kickoff (its output is already made): it was reported as memory_save_failed, and is reported
 * again here as one warning line per memory and cause.
 */
export async function flushMemories(memory: KickoffMemory): Promise<void> {
  for (const { kind, error } of await memory.flush()) warnUnsavedMemory(kind, error);
}

/**
 * Starts recording a finished task in the crew's memories as the agent that did it (matched by the
 * output's role; its LLM evaluates the result) without waiting for it. Agents with memory: false are left out.
 */
export function rememberTask(memory: KickoffMemory, task: Task, output: TaskOutput, crew: { crewId: string; kickoffId?: string; agents: readonly Agent[] }): void {
  const agent = crew.agents.find((a) => a.role === output.agent) ?? task.agent;
  if (!agent || agent.options.memory === false) return;
  void memory.recordTask({
    taskDescription: task.description,
    expectedOutput: task.expectedOutput,
    output: output.raw,
    agentRole: agent.role,
    agentId: agent.id,
    taskId: task.id,
    llm: agent.llm,
    usage: agent.usageMetrics,
    source: { crewId: crew.crewId, ...(crew.kickoffId !== undefined ? { kickoffId: crew.kickoffId } : {}), agentId: agent.id, agentRole: agent.role, taskId: task.id, ...(task.name !== undefined ? { taskName: task.name } : {}) },
  });
}
