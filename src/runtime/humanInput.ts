import { createInterface } from "node:readline/promises";
import { hostPausesForInput } from "./hostPauses.js";
import { HumanInputPending } from "./humanInputPending.js";
import { currentRun } from "./runContext.js";

/** What a human is asked about: a task's result to review, or a tool call to approve. */
export interface HumanInputContext {
  kind: "task_review" | "tool_approval";
  /** The question as it would be shown on the terminal. */
  prompt: string;
  agentRole?: string;
  taskName?: string;
  /** tool_approval: the tool and the input it would run with. */
  toolName?: string;
  toolInput?: Record<string, unknown>;
  /** task_review: the task's result under review. */
  output?: string;
}

/** Answers requests for human input (a UI, a chat, a test); `requestInput` resolves with the human's answer. */
export interface HumanInputProvider {
  requestInput(context: HumanInputContext): Promise<string>;
}

/** The short form: a function from the prompt to the answer. */
export type HumanInputFunction = (prompt: string) => Promise<string>;

/** Thrown when human input is needed and there is no terminal and no provider to ask. */
export class HumanInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HumanInputError";
  }
}

let provider: HumanInputProvider | undefined;

/** Sets who answers human input (task reviews, tool approvals): a provider or a function; `undefined` restores the terminal prompt. */
export function setHumanInputProvider(next: HumanInputProvider | HumanInputFunction | undefined): void {
  if (next === undefined) provider = undefined;
  else if (typeof next === "function") provider = { requestInput: (context) => next(context.prompt) };
  else if (typeof next === "object" && next !== null && typeof next.requestInput === "function") provider = next;
  else throw new TypeError("setHumanInputProvider takes { requestInput(context) => Promise<string> }, a function (prompt) => Promise<string>, or undefined.");
}

/** Whether a provider is set (only a provider can pause a run with HumanInputPending). */
export function hasHumanInputProvider(): boolean {
  return provider !== undefined;
}

/** Asks the provider, else the terminal; without either, fails with a HumanInputError saying how to answer. */
export async function requestHumanInput(context: HumanInputContext): Promise<string> {
  // A resumed run answers the question it paused on with the answer given to resume.
  const prepared = currentRun()?.humanAnswer?.take(context);
  if (prepared !== undefined) return prepared;
  if (provider) return String(await provider.requestInput(context));
  // A served run has no one to ask here: it pauses until POST /resume brings the answer.
  if (hostPausesForInput()) throw new HumanInputPending({ context });
  if (!process.stdin.isTTY) {
    const what = context.kind === "tool_approval" ? `Tool "${context.toolName ?? ""}" needs approval` : "This task has humanInput: true";
    throw new HumanInputError(
      `${what}, but stdin is not a terminal, so no one can be asked. ` +
        "Run it in a terminal, or call setHumanInputProvider({ requestInput: async (context) => answer }) to answer another way.",
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(context.prompt);
  } finally {
    rl.close();
  }
}
