import { guardrailPrompts } from "../agent/guardrails.js";

/**
 * Texts a task sends to a model (on top of the agent's prompts in src/agent/prompts.ts). The meaning is
 * CrewAI's; the sentences are ours.
 */
export const taskPrompts = {
  markdown:
    "\nFormat your final answer in Markdown:\n" +
    "- # and ## for headings\n" +
    "- **bold** and *italic* for emphasis\n" +
    "- - or * for bullet lists\n" +
    "- `backticks` for inline code and ```language fences for code blocks",

  validationError: guardrailPrompts.validationError,

  humanFeedbackRequest: (output: string): string =>
    `\n## Final Result:\n${output}\n\n` +
    "=====\n## HUMAN FEEDBACK: give feedback on the final result.\n" +
    " - If it is good, press Enter without typing anything.\n" +
    " - Otherwise, say what to improve.\n=====\n",

  humanFeedback: (feedback: string, previousOutput: string): string =>
    `### Your previous answer:\n${previousOutput}\n\n` +
    `### Feedback from a human on it:\n${feedback}\n\n` +
    "Answer again, taking this feedback into account.",
} as const;
