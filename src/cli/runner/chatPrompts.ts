/** The texts `crewts chat` sends to the model. */
export const chatPrompts = {
  system: (inputs: Record<string, unknown>, outputs: { description: string; raw: string; agent: string }[]): string =>
    "You answer questions about the work a crew of AI agents has just finished. Base every answer on the task " +
    "results below. When they do not contain the answer, say so plainly and suggest running the crew again with " +
    "other inputs. Be concise.\n\n" +
    `Inputs of the run: ${JSON.stringify(inputs)}\n\n` +
    outputs.map((output, i) => `Task ${i + 1} (${output.agent}): ${output.description.trim()}\nResult:\n${output.raw.trim()}`).join("\n\n"),
} as const;
