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

  validationError: (error: string, previousOutput: string): string =>
    `### Your previous answer did not pass validation: ${error}\n\n` +
    `### Your previous answer:\n${previousOutput}\n\n` +
    "Answer again, and this time fix the problem named above.",

  humanFeedbackRequest: (output: string): string =>
    `\n## Final Result:\n${output}\n\n` +
    "=====\n## HUMAN FEEDBACK: give feedback on the final result.\n" +
    " - If it is good, press Enter without typing anything.\n" +
    " - Otherwise, say what to improve.\n=====\n",

  humanFeedback: (feedback: string, previousOutput: string): string =>
    `### Your previous answer:\n${previousOutput}\n\n` +
    `### Feedback from a human on it:\n${feedback}\n\n` +
    "Answer again, taking this feedback into account.",

  guardrailSystem:
    "You are an expert at checking whether the output of a task complies with a rule (a guardrail). " +
    "You judge only; you never rewrite the output.",

  guardrailCheck: (output: string, guardrail: string): string =>
    "Check whether the task result below complies with the guardrail.\n\n" +
    `Task result:\n${output}\n\n` +
    `Guardrail:\n${guardrail}\n\n` +
    "What to do:\n" +
    "- Decide whether the task result complies with the guardrail.\n" +
    "- If it does not, say clearly what is wrong (for example by how much it breaks the rule, or which part fails).\n" +
    "- Point out problems only; do not propose corrections.\n" +
    "- If it complies, say that it is valid.\n\n" +
    'Reply with one JSON object only: {"valid": true or false, "feedback": "your explanation"}',
} as const;
