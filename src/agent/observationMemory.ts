import type { CallSource } from "../llm/types.js";
import type { KickoffMemory } from "../memory/MemorySet.js";
import type { AgentStep } from "./AgentExecutor.js";

/** The step callback, plus saving each tool result to short-term memory when the crew has one. */
export function withObservationMemory(
  callback: ((step: AgentStep) => void | Promise<void>) | undefined,
  memory: KickoffMemory | undefined,
  source: CallSource,
): ((step: AgentStep) => void | Promise<void>) | undefined {
  if (!memory?.memories.short) return callback;
  const metadata: Record<string, string> = {};
  for (const key of ["agentId", "agentRole", "taskId", "taskName"] as const) if (source[key] !== undefined) metadata[key] = source[key];
  return async (step) => {
    if (step.type === "action" && step.tool !== undefined && step.result !== undefined) {
      const input = typeof step.toolInput === "string" ? step.toolInput : JSON.stringify(step.toolInput ?? {});
      await memory.rememberObservation(`${step.tool}(${input}) returned: ${step.result}`, metadata);
    }
    await callback?.(step);
  };
}
