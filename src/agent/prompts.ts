/**
 * Every text crewts sends to a model on an agent's behalf. The protocol keywords (Thought, Action,
 * Action Input, Observation, Final Answer) are CrewAI's, because models are trained and prompted on
 * them; the sentences around them are ours.
 */
export const prompts = {
  rolePlaying: (role: string, goal: string, backstory: string): string =>
    `You are ${role}. ${backstory}\nYour personal goal is: ${goal}`,

  toolsFormat: (toolDescriptions: string, toolNames: string): string =>
    `\nYou can use only the tools listed below. Never invent a tool that is not on this list.\n\n${toolDescriptions}\n\n` +
    "Answer in this exact format when you use a tool:\n\n```\n" +
    "Thought: what you are thinking and what you will do next\n" +
    `Action: the tool to use, exactly one name from [${toolNames}], written exactly as listed\n` +
    'Action Input: the arguments of the tool as one JSON object in curly braces, keys and string values in double quotes\n' +
    "Observation: the result of the tool\n```\n\n" +
    "When you have everything you need, answer in this format instead:\n\n```\n" +
    "Thought: I now know the final answer\nFinal Answer: your complete final answer\n```",

  // Without tools there is no protocol to follow: the model answers directly, and its reply is the answer.
  noToolsFormat: "\nReply with your complete and best final answer itself, covering everything the task asks for.",

  nativeToolsNote:
    "\nYou may call the tools you are given whenever they help. When you have everything you need, reply with your complete final answer as plain text.",

  task: (input: string): string =>
    `\nCurrent Task: ${input}\n\nBegin! Use the tools you have when they help, and give your best Final Answer.\n\nThought:`,

  /** The task message when the reply is the answer itself (native tool calls, or no tools at all). */
  nativeTask: (input: string): string => `\nCurrent Task: ${input}\n\nBegin! Give your best, complete answer.`,

  expectedOutput: (expected: string): string =>
    `\nThis is the expected criteria for your final answer: ${expected}\n` +
    "Your final answer must be the complete content itself, not a summary of it.",

  taskWithContext: (task: string, context: string): string => `${task}\n\nThis is the context you're working with:\n${context}`,

  memoryContext: (memory: string): string => `\n\n# Useful context from memory\n${memory}`,

  currentDate: (date: string): string => `\n\nCurrent Date: ${date}`,

  observation: "\nObservation:",

  forceFinalAnswer:
    "You have reached the limit of steps for this task. Stop using tools now and give your best, complete " +
    "answer from what you already know, in the format:\nThought: I now know the final answer\nFinal Answer: ...",

  timedOut: (seconds: number): string =>
    `Agent execution exceeded maxExecutionTime of ${seconds} s. Give the agent more time (maxExecutionTime) or split the task.`,

  summarizerSystem:
    "You summarize conversations. Keep every fact, figure, name, tool result and decision that matters for finishing the task; drop repetition.",

  summarizeChunk: (chunk: string): string => `Summarize the following part of a conversation:\n\n${chunk}`,

  summary: (summary: string): string => `Here is a summary of the conversation so far:\n${summary}`,

  /**
   * What an agent's answer to a task with an output schema must be. It names the final answer, not the
   * whole reply, so it agrees with the "Final Answer:" format of agents with tools; a reply that is the
   * JSON alone is taken as the final answer too.
   */
  answerAsJson: (schema: string): string =>
    `\nYour final answer must be one JSON object that matches this JSON schema, and nothing else: no other text and no Markdown fences in the final answer.\n${schema}`,

  /** For direct model calls (planning, evaluation, training) whose whole reply is parsed as JSON. */
  jsonOutput: (schema: string): string =>
    `\nYour final answer must be a single JSON object that matches this JSON schema, with no text before or after it:\n${schema}`,

  convertToJson: (schema: string, text: string, error: string): string =>
    `Convert the text below into one JSON object that matches this JSON schema. Reply with the JSON object only.\n\n` +
    `JSON schema:\n${schema}\n\nText:\n${text}\n\nThe previous attempt failed because: ${error}`,
} as const;
