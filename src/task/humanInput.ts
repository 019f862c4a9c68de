import { createInterface } from "node:readline/promises";

/** Asks a human and resolves with their answer; an empty answer accepts the result. */
export type HumanInputProvider = (prompt: string) => Promise<string>;

/** Thrown when a task wants human input and there is no terminal and no provider to ask. */
export class HumanInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HumanInputError";
  }
}

let provider: HumanInputProvider | undefined;

/** Sets who answers `humanInput` tasks (tests, UIs); `undefined` restores the terminal prompt. */
export function setHumanInputProvider(fn: HumanInputProvider | undefined): void {
  provider = fn;
}

/** Asks for feedback through the provider, else on the terminal. */
export async function askHuman(prompt: string): Promise<string> {
  if (provider) return String(await provider(prompt));
  if (!process.stdin.isTTY) {
    throw new HumanInputError(
      "This task has humanInput: true, but stdin is not a terminal, so no one can be asked. " +
        "Run it in a terminal, or call setHumanInputProvider(async (prompt) => feedback) to answer another way.",
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(prompt);
  } finally {
    rl.close();
  }
}
