import { z } from "zod";
import { embedderSpecSchema, type EmbedderSpec } from "../knowledge/embedders/resolveEmbedder.js";
import { knowledgeConfigSchema, knowledgeSourcesSchema, type KnowledgeConfig } from "../knowledge/Knowledge.js";
import type { BaseKnowledgeSource } from "../knowledge/sources/BaseKnowledgeSource.js";
import type { BaseLLM } from "../llm/types.js";
import { mcpsOption, type MCPServerReference } from "../mcp/config.js";
import { BaseTool } from "../tools/BaseTool.js";
import type { AgentGuardrail } from "./agentGuardrail.js";
import type { AgentStep } from "./AgentExecutor.js";
import { checkpointOptionSchema } from "../runtime/checkpoint/checkpointOption.js";
import type { CheckpointConfig } from "../runtime/checkpoint/types.js";

/** Options of `new Agent(...)`. */
export interface AgentOptions {
  /** Who the agent is, e.g. "Senior Researcher"; tasks and delegation refer to agents by role. */
  role: string;
  /** What the agent is trying to achieve; goes into its system prompt. */
  goal: string;
  /** The agent's background and manner; goes into its system prompt. */
  backstory: string;
  /** A BaseLLM or a model string ("openai/gpt-4o"); default from CREWTS_MODEL / MODEL, else openai/gpt-4o-mini. */
  llm?: string | BaseLLM;
  /** The model that drives tool calls when the agent has tools (default: `llm`). */
  functionCallingLLM?: string | BaseLLM;
  /** Tools the agent may call (made with tool() or a BaseTool subclass). */
  tools?: BaseTool[];
  /** MCP servers whose tools the agent gets: URL strings (streamable HTTP; `#tool` keeps one tool) or config objects. */
  mcps?: MCPServerReference[];
  /** Most loop iterations before the agent must answer (default 25). */
  maxIter?: number;
  /** Most LLM requests per minute. */
  maxRpm?: number;
  /** Most seconds one task may take. */
  maxExecutionTime?: number;
  /** How often a failed execution is retried (default 2). */
  maxRetryLimit?: number;
  /** Give the agent the tools to delegate work to, and ask questions of, its crew's other agents (default false). */
  allowDelegation?: boolean;
  /** Print a live account of the agent's work (thoughts, tool calls, answers). */
  verbose?: boolean;
  /** Think through a plan before acting; the plan is added to the task. */
  reasoning?: boolean;
  /** Most reasoning attempts (default 1). */
  maxReasoningAttempts?: number;
  /** Called after every step of the agent's loop (a tool use, or the final answer). */
  stepCallback?: (step: AgentStep) => void | Promise<void>;
  /** Summarize the history when it outgrows the context window (default true); false stops with an error. */
  respectContextWindow?: boolean;
  /** Add the current date to each task. */
  injectDate?: boolean;
  /** strftime-like date format for injectDate: %Y, %m, %d, %H, %M (default "%Y-%m-%d"). */
  dateFormat?: string;
  /** Send a system message (default true); false folds it into the first user message. */
  useSystemPrompt?: boolean;
  /** Wraps the system text; `{{ .System }}` marks where it goes. */
  systemTemplate?: string;
  /** Wraps the task text; `{{ .Prompt }}` marks where it goes. */
  promptTemplate?: string;
  /** The text before `{{ .Response }}` is appended to the prompt; the text after it becomes a stop word. */
  responseTemplate?: string;
  /** Use native tool calls when the model supports them (default true); false forces the text protocol. */
  nativeToolCalling?: boolean;
  /** Stream LLM answers. */
  stream?: boolean;
  /** Cache tool results (default true). */
  cache?: boolean;
  /** false keeps the agent out of its crew's memory (nothing recalled into its prompts); default: the crew decides. */
  memory?: boolean;
  /** The agent's own knowledge, searched with each task; the snippets found go into its prompt. */
  knowledgeSources?: BaseKnowledgeSource[];
  /** How many knowledge snippets (resultsLimit, default 3), how relevant (scoreThreshold, default 0.35), and whether to rewrite the task into a query. */
  knowledgeConfig?: KnowledgeConfig;
  /** Embeds the agent's knowledge (default: the crew's embedder; none: keyword search). */
  embedder?: EmbedderSpec;
  /**
   * Checks the answer of `agent.kickoff` (CrewAI's agent guardrail): a function that gets the AgentOutput and
   * returns [ok, resultOrError] (or { success, result?, error? }), or a rule the agent's LLM judges. On failure
   * the agent is asked again with the error. Inside a crew only the task's own guardrails apply, as in CrewAI.
   */
  guardrail?: AgentGuardrail;
  /** Times the agent is asked again when its guardrail fails, before GuardrailError (default 3). */
  guardrailMaxRetries?: number;
  /** Standalone `kickoff`: write a checkpoint after each model reply and tool result (true: the defaults), resumable with `{ fromCheckpoint }`. */
  checkpoint?: boolean | CheckpointConfig;
}

/** A function-valued option. */
export const functionOption = z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", "must be a function");
const fn = functionOption;
/** An `llm` option: a model string or a BaseLLM. */
export const llmOption = z.union([
  z.string().min(1),
  z.custom<BaseLLM>((v) => typeof v === "object" && v !== null && typeof (v as BaseLLM).call === "function", "must be a model string or implement BaseLLM (call, supportsFunctionCalling, contextWindowSize)"),
]);
const positiveInt = z.number().int().positive();

/** Validates options once at construction; unknown keys are rejected so typos never pass silently. */
export const agentOptionsSchema = z
  .object({
    role: z.string().min(1, "role is required: say who the agent is, e.g. 'Senior Researcher'"),
    goal: z.string().min(1, "goal is required: say what the agent is trying to achieve"),
    backstory: z.string().min(1, "backstory is required: give the agent its background"),
    llm: llmOption.optional(),
    functionCallingLLM: llmOption.optional(),
    tools: z.array(z.instanceof(BaseTool, { message: "each tool must be made with tool({...}) or extend BaseTool" })).optional(),
    mcps: mcpsOption.optional(),
    maxIter: positiveInt.optional(),
    maxRpm: positiveInt.optional(),
    maxExecutionTime: z.number().positive().optional(),
    maxRetryLimit: z.number().int().min(0).optional(),
    allowDelegation: z.boolean().optional(),
    verbose: z.boolean().optional(),
    reasoning: z.boolean().optional(),
    maxReasoningAttempts: positiveInt.optional(),
    stepCallback: fn.optional(),
    respectContextWindow: z.boolean().optional(),
    injectDate: z.boolean().optional(),
    dateFormat: z.string().optional(),
    useSystemPrompt: z.boolean().optional(),
    systemTemplate: z.string().optional(),
    promptTemplate: z.string().optional(),
    responseTemplate: z.string().optional(),
    nativeToolCalling: z.boolean().optional(),
    stream: z.boolean().optional(),
    cache: z.boolean().optional(),
    memory: z.boolean().optional(),
    knowledgeSources: knowledgeSourcesSchema.optional(),
    knowledgeConfig: knowledgeConfigSchema.optional(),
    embedder: embedderSpecSchema.optional(),
    guardrail: z.union([fn, z.string().trim().min(1, "a string guardrail must describe the rule")], { error: "must be a function (output) => [ok, result] or a string describing a rule" }).optional(),
    guardrailMaxRetries: z.number().int().min(0, "guardrailMaxRetries must be 0 or more").optional(),
    checkpoint: checkpointOptionSchema.optional(),
  })
  .strict();

/** Formats a date with a small strftime subset (%Y %m %d %H %M %S %B %b %A). */
export function formatDate(date: Date, format: string): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  const month = date.toLocaleString("en-US", { month: "long" });
  const day = date.toLocaleString("en-US", { weekday: "long" });
  return format.replace(/%([YmdHMSBbA%])/g, (_, c: string) => {
    switch (c) {
      case "Y": return String(date.getFullYear());
      case "m": return pad(date.getMonth() + 1);
      case "d": return pad(date.getDate());
      case "H": return pad(date.getHours());
      case "M": return pad(date.getMinutes());
      case "S": return pad(date.getSeconds());
      case "B": return month;
      case "b": return month.slice(0, 3);
      case "A": return day;
      default: return "%";
    }
  });
}
