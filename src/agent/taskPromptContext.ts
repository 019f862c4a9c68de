import type { CallSource } from "../llm/types.js";
import { emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { BaseTool } from "../tools/BaseTool.js";
import type { Agent } from "./Agent.js";
import { formatDate } from "./AgentOptions.js";
import { retrieveKnowledge } from "./knowledgeRetrieval.js";
import type { AgentTask } from "./promptBuilder.js";
import { prompts } from "./prompts.js";
import { planBeforeActing } from "./reasoning.js";

/** Whether the agent adds anything to its task prompts (checked first, so a plain agent skips addTaskContext). */
export function hasTaskContext(agent: Agent): boolean {
  const options = agent.options;
  return options.injectDate === true || options.reasoning === true || agent.knowledgeBase() !== undefined || agent.crewKnowledge !== undefined || (options.memory !== false && agent.crewMemory !== undefined);
}

/**
 * What an agent adds to a task prompt before its loop starts: the date (injectDate), knowledge found
 * for the task, what its crew's memory recalls, and a reasoning plan. `count` receives the tokens spent.
 */
export async function addTaskContext(
  agent: Agent,
  task: AgentTask,
  taskPrompt: string,
  tools: readonly BaseTool[],
  source: CallSource,
  count: (spent: UsageMetrics) => void,
): Promise<string> {
  const options = agent.options;
  if (options.injectDate) taskPrompt += prompts.currentDate(formatDate(new Date(), options.dateFormat ?? "%Y-%m-%d"));
  const knowledge = agent.knowledgeBase();
  if (knowledge || agent.crewKnowledge) {
    const spent = emptyUsageMetrics();
    taskPrompt += await retrieveKnowledge(`${task.description}\n${task.expectedOutput}`.trim(), {
      agentKnowledge: knowledge,
      crewKnowledge: agent.crewKnowledge,
      config: options.knowledgeConfig ?? {},
      llm: agent.llm,
      usage: spent,
      source,
    });
    count(spent);
  }
  const memory = options.memory === false ? undefined : agent.crewMemory;
  if (memory) {
    const remembered = await memory.contextFor(task.description, source);
    if (remembered) taskPrompt += prompts.memoryContext(remembered);
  }
  if (options.reasoning) {
    const plan = await planBeforeActing(agent.llm, agent, taskPrompt, tools, source, options.maxReasoningAttempts ?? 1);
    count(plan.usage);
    if (plan.plan) taskPrompt += `\n\nReasoning Plan:\n${plan.plan}`;
  }
  return taskPrompt;
}
