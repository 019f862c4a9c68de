import { z } from "zod";
import { embedderSpecSchema, type EmbedderSpec } from "../knowledge/embedders/resolveEmbedder.js";
import { knowledgeSourcesSchema } from "../knowledge/Knowledge.js";
import type { BaseKnowledgeSource } from "../knowledge/sources/BaseKnowledgeSource.js";
import { Agent } from "../agent/Agent.js";
import type { AgentStep } from "../agent/AgentExecutor.js";
import { functionOption, llmOption } from "../agent/AgentOptions.js";
import type { BaseLLM } from "../llm/types.js";
import { Task, type TaskOutput } from "../task/index.js";
import type { CrewOutput } from "./CrewOutput.js";
import { crewMemoryOptionsShape, type CrewMemoryOptions } from "./crewMemory.js";
import { Process } from "./Process.js";
import type { TaskOutputStore } from "../storage/TaskOutputStore.js";
import type { CrewHooks } from "../hooks/types.js";
import type { KickoffOptions } from "../runtime/KickoffOptions.js";
import { checkpointOptionSchema } from "../runtime/checkpoint/checkpointOption.js";
import type { CheckpointConfig } from "../runtime/checkpoint/types.js";

/** The inputs of a kickoff: values for the `{placeholders}` of tasks and agents. */
export type KickoffInputs = Record<string, unknown>;

/** Runs before a kickoff with its inputs; may return new inputs (CrewAI's before_kickoff callbacks). */
export type BeforeKickoffHook = (inputs: KickoffInputs) => KickoffInputs | void | Promise<KickoffInputs | void>;

/** Runs after a kickoff with its output; may return a new output (CrewAI's after_kickoff callbacks). */
export type AfterKickoffHook = (output: CrewOutput) => CrewOutput | void | Promise<CrewOutput | void>;

/** Options of `new Crew(...)`. */
export interface CrewOptions extends CrewMemoryOptions {
  /** The agents of the crew: the coworkers delegation can reach, and where `{placeholders}` of roles, goals and backstories are filled. */
  agents: Agent[];
  /** The tasks, run in this order; each sees the earlier outputs (or its `context` tasks' ones). */
  tasks: Task[];
  /** Process.sequential (default) or Process.hierarchical. */
  process?: Process;
  /** The model of the manager a hierarchical crew builds (a BaseLLM or a model string). */
  managerLLM?: string | BaseLLM;
  /** Your own manager for a hierarchical crew; it must have no tools and not be in `agents`. */
  managerAgent?: Agent;
  /** Cache tool results for the length of one kickoff, shared by all agents (default true). */
  cache?: boolean;
  /** Most LLM requests per minute over all agents of the crew. */
  maxRpm?: number;
  /**
   * Most LLM requests per minute over every kickoff of crews of this name: in one process, and under
   * `crewts worker` across all workers (kept in Redis). maxRpm counts one crew's requests only.
   */
  llmRateLimit?: { requestsPerMinute: number };
  /** Plan every task before the crew starts. */
  planning?: boolean;
  /** The model that writes the plans (default: the planner's own default). */
  planningLLM?: string | BaseLLM;
  /** Print a live account of the run (agents, tasks, thoughts, tool uses, answers) to stdout; see VerbosePrinter. */
  verbose?: boolean;
  /** Called after every step of every agent that has no stepCallback of its own. */
  stepCallback?: (step: AgentStep) => void | Promise<void>;
  /** Called after every task that has no callback of its own. */
  taskCallback?: (output: TaskOutput) => void | Promise<void>;
  /** Run in order before each kickoff; each may return new inputs. */
  beforeKickoff?: BeforeKickoffHook[];
  /** Run in order after each kickoff; each may return a new output. */
  afterKickoff?: AfterKickoffHook[];
  /** Append JSON lines: one per finished task, and with `verbose` one per printed event. `true` writes ./logs.txt, a string names the file. */
  outputLogFile?: boolean | string;
  /** Embeds the crew's knowledge (and its agents' without their own): "openai/text-embedding-3-small", { provider, model, baseURL? } or an Embedder. None: keyword search. */
  embedder?: EmbedderSpec;
  /** Knowledge every agent of the crew searches before its tasks. */
  knowledgeSources?: BaseKnowledgeSource[];
  /** Shown in events (default "crew"). */
  name?: string;
  /** Where the outputs of the latest kickoff are kept for replay (default: SQLite in the storage directory). */
  taskOutputStore?: TaskOutputStore;
  /** Write checkpoints (default after each task) so a kickoff can resume with `{ fromCheckpoint }`; true for the defaults. */
  checkpoint?: boolean | CheckpointConfig;
  /** Trained agent data written by `crew.train` (default ./trained_agents_data.json, used when it exists). */
  trainedAgentsFile?: string;
  /** Every kickoff resolves to a StreamingOutput (as `kickoff(inputs, { stream: true })`). */
  stream?: boolean;
  /** The crew's own LLM and tool call hooks, run after the global ones. */
  hooks?: CrewHooks;
}

/** Options of kickoffForEach: the kickoff options and how many runs go at once. */
export interface ForEachOptions extends KickoffOptions {
  concurrency?: number;
}

const fn = functionOption;

/** Validates the shape of the options once at construction; unknown keys are rejected so typos never pass silently. */
export const crewOptionsSchema = z
  .object({
    agents: z.array(z.instanceof(Agent, { message: "each agent must be created with new Agent({...})" })),
    tasks: z.array(z.instanceof(Task, { message: "each task must be created with new Task({...}) or new ConditionalTask({...})" })),
    process: z.enum([Process.sequential, Process.hierarchical]).optional(),
    managerLLM: llmOption.optional(),
    managerAgent: z.instanceof(Agent, { message: "managerAgent must be created with new Agent({...})" }).optional(),
    ...crewMemoryOptionsShape,
    cache: z.boolean().optional(),
    maxRpm: z.number().int().positive().optional(),
    llmRateLimit: z.object({ requestsPerMinute: z.number().int().positive() }).strict().optional(),
    planning: z.boolean().optional(),
    planningLLM: llmOption.optional(),
    verbose: z.boolean().optional(),
    stepCallback: fn.optional(),
    taskCallback: fn.optional(),
    beforeKickoff: z.array(fn).optional(),
    afterKickoff: z.array(fn).optional(),
    outputLogFile: z.union([z.boolean(), z.string().min(1)]).optional(),
    embedder: embedderSpecSchema.optional(),
    knowledgeSources: knowledgeSourcesSchema.optional(),
    name: z.string().optional(),
    taskOutputStore: z
      .custom<TaskOutputStore>((v) => typeof v === "object" && v !== null && typeof (v as TaskOutputStore).loadAll === "function", "must implement TaskOutputStore")
      .optional(),
    trainedAgentsFile: z.string().min(1).optional(),
    stream: z.boolean().optional(),
    hooks: z
      .object({
        beforeLLMCall: z.array(fn).optional(),
        afterLLMCall: z.array(fn).optional(),
        beforeToolCall: z.array(fn).optional(),
        afterToolCall: z.array(fn).optional(),
      })
      .strict()
      .optional(),
    checkpoint: checkpointOptionSchema.optional(),
  })
  .strict();
