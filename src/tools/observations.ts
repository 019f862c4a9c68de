// Every text the tools layer sends back to the model, in one place (CrewAI keeps its equivalents
// in translations/en.json). They are observations: the model reads them and decides what to do next,
// so each one says what happened and what the model should do instead.

/** The model named a tool that is not available. */
export function unknownToolObservation(requested: string, toolNames: string): string {
  if (requested === "") {
    return `You did not name a tool. Name exactly one of the available tools: ${toolNames || "(none)"}.`;
  }
  return `The tool "${requested}" does not exist. Use exactly one of the available tools, one at a time: ${toolNames || "(none)"}.`;
}

/** The model repeated its previous call with the same arguments. */
export function repeatedCallObservation(): string {
  return (
    "You already used this tool with exactly this input, and its result is above. " +
    "Do not call it again with the same input: try different input or another tool, or give your final answer."
  );
}

/** The tool's maxUsageCount is used up. */
export function usageLimitObservation(toolName: string, maxUsageCount: number): string {
  return (
    `The tool "${toolName}" has reached its usage limit of ${maxUsageCount} ` +
    `${maxUsageCount === 1 ? "use" : "uses"} and cannot be used again. Use another tool or give your final answer.`
  );
}

/** The arguments did not parse or did not match the schema. */
export function invalidArgumentsObservation(toolName: string, problems: string[], schemaJson: string): string {
  return (
    `The arguments for the tool "${toolName}" are invalid:\n${problems.map((p) => `- ${p}`).join("\n")}\n` +
    `Call "${toolName}" again with corrected arguments: a JSON object matching this schema: ${schemaJson}`
  );
}

/** The tool threw on every attempt. */
export function toolFailedObservation(toolName: string, error: string, schemaJson: string): string {
  return (
    `The tool "${toolName}" failed with this error: ${error}\n` +
    `It accepts these arguments: ${schemaJson}\n` +
    "You may call it again with different arguments, use another tool, or give your final answer."
  );
}

/** A before-tool-call hook blocked the call. */
export function blockedToolObservation(toolName: string): string {
  return `The call of the tool "${toolName}" was blocked by a hook and did not run. Do not retry it: use another tool or give your final answer.`;
}

/** The human asked to approve the call said no. */
export function deniedToolObservation(toolName: string, answer: string): string {
  const said = answer.trim() === "" ? "" : ` Their answer: ${JSON.stringify(answer.trim())}.`;
  return `The user did not approve running the tool "${toolName}", so it did not run.${said} Do not retry it with the same input: use another approach or give your final answer.`;
}

/** The question a human is asked before a tool that needs approval runs. */
export function approvalPrompt(toolName: string, input: Record<string, unknown>): string {
  return `The agent wants to run the tool "${toolName}" with input ${JSON.stringify(input)}. Approve? (y/n) `;
}
