import type { ChatMessage } from "../llm/types.js";
import type { BaseTool } from "../tools/BaseTool.js";
import { prompts } from "./prompts.js";

/** What an agent needs to know of a task; Task implements it, and so can anything else. */
export interface AgentTask {
  id?: string;
  name?: string;
  description: string;
  expectedOutput: string;
  /** The full task text; when absent, description and expected output are used. */
  prompt?(): string;
}

/** The parts of an agent the prompts are built from. */
export interface PromptAgent {
  role: string;
  goal: string;
  backstory: string;
  trainedInstructions?: string;
  options: {
    useSystemPrompt?: boolean;
    systemTemplate?: string;
    promptTemplate?: string;
    responseTemplate?: string;
  };
}

const OBSERVATION_STOP = "\nObservation:";
// The stop words of a run without any: shared by all of them (a run with some gets a list of its own).
const NO_STOP: string[] = Object.freeze([]) as unknown as string[];

/** The task text an agent works on: the task's prompt plus the context from earlier tasks. */
export function buildTaskPrompt(task: AgentTask, context?: string): string {
  let text = task.prompt ? task.prompt() : task.description + (task.expectedOutput ? prompts.expectedOutput(task.expectedOutput) : "");
  if (context?.trim()) text = prompts.taskWithContext(text, context);
  return text;
}

/** The opening messages of an execution and its stop words. */
export function buildMessages(agent: PromptAgent, taskPrompt: string, tools: readonly BaseTool[], nativeTools: boolean): { messages: ChatMessage[]; stop: string[] } {
  let system = prompts.rolePlaying(agent.role, agent.goal, agent.backstory);
  if (agent.trainedInstructions) system += `\n\n${agent.trainedInstructions}`;
  if (tools.length === 0) system += prompts.noToolsFormat;
  else if (nativeTools) system += prompts.nativeToolsNote;
  else system += prompts.toolsFormat(tools.map((t) => t.describe()).join("\n"), tools.map((t) => t.sanitizedName).join(", "));
  // The ReAct protocol (and its stop word) only where the model may use tools through text.
  const react = tools.length > 0 && !nativeTools;
  let user = react ? prompts.task(taskPrompt) : prompts.nativeTask(taskPrompt);
  let stop = react ? [OBSERVATION_STOP] : NO_STOP;

  const { systemTemplate, promptTemplate, responseTemplate, useSystemPrompt } = agent.options;
  if (systemTemplate) system = systemTemplate.replaceAll("{{ .System }}", system);
  if (promptTemplate) user = promptTemplate.replaceAll("{{ .Prompt }}", user);
  if (responseTemplate) {
    const [before = "", after = ""] = responseTemplate.split("{{ .Response }}");
    user += before;
    if (after.trim()) stop = [...stop, after.trim()];
  }
  const messages: ChatMessage[] =
    useSystemPrompt === false
      ? [{ role: "user", content: `${system}\n\n${user}` }]
      : [
          { role: "system", content: system },
          { role: "user", content: user },
        ];
  return { messages, stop };
}
