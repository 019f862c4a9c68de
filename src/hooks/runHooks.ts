import { globalHooks, type Registration } from "./registry.js";
import type {
  AfterKickoffHookContext,
  BeforeKickoffHookContext,
  CrewHooks,
  LLMCallHookContext,
  StepHookContext,
  ToolCallHookContext,
} from "./types.js";

// Hooks may be async; awaiting only real promises keeps a chain of plain hooks off the microtask queue.
const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";

const applies = (entry: Registration<unknown>, agentRole: string, toolName?: string): boolean =>
  (entry.agents === undefined || entry.agents.has(agentRole)) && (entry.tools === undefined || toolName === undefined || entry.tools.has(toolName));

/** Whether any LLM call hook could run: the hot path's only cost when none is registered. */
export function hasLLMHooks(scoped: CrewHooks | undefined): boolean {
  return globalHooks.beforeLLMCall.length + globalHooks.afterLLMCall.length > 0 || (scoped !== undefined && (scoped.beforeLLMCall?.length ?? 0) + (scoped.afterLLMCall?.length ?? 0) > 0);
}

/** Whether any tool call hook could run. */
export function hasToolHooks(scoped: CrewHooks | undefined): boolean {
  return globalHooks.beforeToolCall.length + globalHooks.afterToolCall.length > 0 || (scoped !== undefined && (scoped.beforeToolCall?.length ?? 0) + (scoped.afterToolCall?.length ?? 0) > 0);
}

/** Runs the before-LLM-call hooks (global, then the crew's); false when one blocked the call. */
export async function runBeforeLLMCall(ctx: LLMCallHookContext, scoped: CrewHooks | undefined): Promise<boolean> {
  for (const entry of globalHooks.beforeLLMCall) {
    if (!applies(entry, ctx.agentRole)) continue;
    let verdict = entry.fn(ctx);
    if (isThenable(verdict)) verdict = await verdict;
    if (verdict === false) return false;
  }
  for (const fn of scoped?.beforeLLMCall ?? []) {
    let verdict = fn(ctx);
    if (isThenable(verdict)) verdict = await verdict;
    if (verdict === false) return false;
  }
  return true;
}

/** Runs the after-LLM-call hooks; each returned string replaces the response the next one sees. */
export async function runAfterLLMCall(ctx: LLMCallHookContext, scoped: CrewHooks | undefined): Promise<string> {
  for (const entry of globalHooks.afterLLMCall) {
    if (!applies(entry, ctx.agentRole)) continue;
    let value = entry.fn(ctx);
    if (isThenable(value)) value = await value;
    if (typeof value === "string") ctx.response = value;
  }
  for (const fn of scoped?.afterLLMCall ?? []) {
    let value = fn(ctx);
    if (isThenable(value)) value = await value;
    if (typeof value === "string") ctx.response = value;
  }
  return ctx.response;
}

/** Runs the before-tool-call hooks for the tool; false when one blocked the call. */
export async function runBeforeToolCall(ctx: ToolCallHookContext, scoped: CrewHooks | undefined): Promise<boolean> {
  for (const entry of globalHooks.beforeToolCall) {
    if (!applies(entry, ctx.agentRole, ctx.toolName)) continue;
    let verdict = entry.fn(ctx);
    if (isThenable(verdict)) verdict = await verdict;
    if (verdict === false) return false;
  }
  for (const fn of scoped?.beforeToolCall ?? []) {
    let verdict = fn(ctx);
    if (isThenable(verdict)) verdict = await verdict;
    if (verdict === false) return false;
  }
  return true;
}

/** Runs the after-tool-call hooks; each returned string replaces the result the next one sees. */
export async function runAfterToolCall(ctx: ToolCallHookContext, scoped: CrewHooks | undefined): Promise<string> {
  for (const entry of globalHooks.afterToolCall) {
    if (!applies(entry, ctx.agentRole, ctx.toolName)) continue;
    let value = entry.fn(ctx);
    if (isThenable(value)) value = await value;
    if (typeof value === "string") ctx.toolResult = value;
  }
  for (const fn of scoped?.afterToolCall ?? []) {
    let value = fn(ctx);
    if (isThenable(value)) value = await value;
    if (typeof value === "string") ctx.toolResult = value;
  }
  return ctx.toolResult;
}

/** The inputs after the global before-kickoff hooks (a returned object replaces them). */
export async function runGlobalBeforeKickoff(kind: "crew" | "flow", name: string, inputs: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (globalHooks.beforeKickoff.length === 0) return inputs;
  const ctx: BeforeKickoffHookContext = { kind, name, inputs };
  for (const entry of globalHooks.beforeKickoff) {
    const next = await entry.fn(ctx);
    if (next !== undefined && next !== null && typeof next === "object") ctx.inputs = next;
  }
  return ctx.inputs;
}

/** The output after the global after-kickoff hooks (a returned value replaces it). */
export async function runGlobalAfterKickoff<T>(kind: "crew" | "flow", name: string, output: T): Promise<T> {
  if (globalHooks.afterKickoff.length === 0) return output;
  const ctx: AfterKickoffHookContext = { kind, name, output };
  for (const entry of globalHooks.afterKickoff) {
    const next = await entry.fn(ctx);
    if (next !== undefined) ctx.output = next;
  }
  return ctx.output as T;
}

/** Runs the before- or after-step hooks that apply; resolves with the payload they leave (a returned value replaces it). */
export async function runStepHooks(when: "beforeStep" | "afterStep", ctx: StepHookContext): Promise<unknown> {
  for (const entry of globalHooks[when]) {
    // The agents filter applies to task steps; flow methods have no agent.
    if (entry.agents !== undefined && (ctx.agentRole === undefined || !entry.agents.has(ctx.agentRole))) continue;
    let value = entry.fn(ctx);
    if (isThenable(value)) value = await value;
    if (value !== undefined) ctx.payload = value;
  }
  return ctx.payload;
}
