import { callLLM } from "../llm/callLLM.js";
import type { BaseLLM, CallSource } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { BaseTool } from "../tools/BaseTool.js";

const READY = "READY: I am ready to execute the task.";

/**
 * CrewAI's agent reasoning: before acting, the agent writes a plan and refines it until it says it
 * is ready (or the attempts run out). The plan is then added to the task.
 */
export async function planBeforeActing(
  llm: BaseLLM,
  agent: { role: string; goal: string; backstory: string },
  taskPrompt: string,
  tools: readonly BaseTool[],
  source: CallSource,
  maxAttempts: number,
): Promise<{ plan: string; usage: UsageMetrics }> {
  const usage = emptyUsageMetrics();
  const system = `You are ${agent.role}. ${agent.backstory}\nYour goal is: ${agent.goal}\nYou plan your work carefully before you start it.`;
  const toolList = tools.length ? tools.map((t) => `- ${t.name}: ${t.description}`).join("\n") : "(no tools)";
  let plan = "";
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const ask = attempt === 0
      ? `Write a short step-by-step plan for this task before doing it. Tools you can use:\n${toolList}\n\nTask:\n${taskPrompt}\n\n` +
        `End with the line "${READY}" if the plan is complete, otherwise with "NOT READY: <what is missing>".`
      : `Here is your plan so far:\n${plan}\n\nImprove it where it is weak, and end with "${READY}" when it is complete.`;
    const result = await callLLM(llm, [{ role: "system", content: system }, { role: "user", content: ask }], { source });
    addToUsageMetrics(usage, result.usage);
    const ready = result.text.includes(READY);
    plan = result.text.replace(READY, "").replace(/NOT READY:.*$/s, "").trim();
    if (ready) break;
  }
  return { plan, usage };
}
