import type { BaseLLM, ChatMessage } from "../llm/types.js";

/** What a hook may return: a value, nothing, or a promise of either. */
type MaybePromise<T> = T | Promise<T>;

/** Where a hooked call comes from. */
export interface HookSource {
  agentRole: string;
  agentId?: string;
  taskName?: string;
  taskId?: string;
  crewId?: string;
}

/** Given to LLM call hooks. Before the call, `messages` is the list that will be sent: change it in place. */
export interface LLMCallHookContext extends HookSource {
  messages: ChatMessage[];
  llm: BaseLLM;
  /** Calls the agent made before this one in the current task. */
  iterations: number;
  /** After the call: the model's reply text. */
  response: string;
}

/** Given to tool call hooks. `toolInput` is the object the tool will receive: change it in place. */
export interface ToolCallHookContext extends HookSource {
  toolName: string;
  toolInput: Record<string, unknown>;
  /** After the call: the observation the model will read. */
  toolResult: string;
}

/** Given to before-kickoff hooks: `inputs` may be changed in place or replaced by returning an object. */
export interface BeforeKickoffHookContext {
  kind: "crew" | "flow";
  name: string;
  inputs: Record<string, unknown>;
}

/** Given to after-kickoff hooks: returning anything but undefined replaces the output. */
export interface AfterKickoffHookContext {
  kind: "crew" | "flow";
  name: string;
  /** The CrewOutput of a crew, the result of a flow. */
  output: unknown;
}

/** Runs before an LLM call; false blocks it (the agent step fails with HookBlockedError). */
export type BeforeLLMCallHook = (ctx: LLMCallHookContext) => MaybePromise<boolean | void>;
/** Runs after an LLM call; a returned string replaces the response. */
export type AfterLLMCallHook = (ctx: LLMCallHookContext) => MaybePromise<string | void>;
/** Runs before a tool call; false blocks it (the model is told the call was blocked). */
export type BeforeToolCallHook = (ctx: ToolCallHookContext) => MaybePromise<boolean | void>;
/** Runs after a tool call; a returned string replaces the result. */
export type AfterToolCallHook = (ctx: ToolCallHookContext) => MaybePromise<string | void>;
/** Runs before a crew or flow starts; a returned object replaces the inputs. */
export type GlobalBeforeKickoffHook = (ctx: BeforeKickoffHookContext) => MaybePromise<Record<string, unknown> | void>;
/** Runs after a crew or flow finished; a returned value replaces the output. */
export type GlobalAfterKickoffHook = (ctx: AfterKickoffHookContext) => unknown;

/**
 * Given to step hooks, around every crew task and flow method. Before a task, `payload` is the
 * context the agent will get; after it, the TaskOutput (change it in place). Before a flow method,
 * `payload` is the argument it receives; after it, its result.
 */
export interface StepHookContext {
  kind: "task" | "flow_method";
  /** The task's name (else its description), or the method's name. */
  stepName: string;
  payload: unknown;
  /** Task steps: the role of the agent doing it. */
  agentRole?: string;
}

/** Runs before a task or flow method; a returned value (not undefined) replaces the payload. */
export type BeforeStepHook = (ctx: StepHookContext) => unknown;
/** Runs after a task or flow method; a returned value (not undefined) replaces the output. */
export type AfterStepHook = (ctx: StepHookContext) => unknown;

/** Limits a global hook to some agents (by role) and, for tool hooks, some tools (by name). */
export interface HookFilter {
  agents?: string[];
  tools?: string[];
}

/** A crew's own hooks: `new Crew({ hooks: { beforeLLMCall: [...], ... } })`. They run after the global ones. */
export interface CrewHooks {
  beforeLLMCall?: BeforeLLMCallHook[];
  afterLLMCall?: AfterLLMCallHook[];
  beforeToolCall?: BeforeToolCallHook[];
  afterToolCall?: AfterToolCallHook[];
}
