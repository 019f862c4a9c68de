import { requestHumanInput } from "../runtime/humanInput.js";

export { setHumanInputProvider, HumanInputError, type HumanInputProvider, type HumanInputFunction, type HumanInputContext } from "../runtime/humanInput.js";

/** Asks for feedback on a task's result through the provider, else on the terminal. */
export async function askHuman(prompt: string, context: { agentRole?: string; taskName?: string; output?: string } = {}): Promise<string> {
  return requestHumanInput({ kind: "task_review", prompt, ...context });
}
