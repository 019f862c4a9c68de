/**
 * Parser for the text ReAct protocol (`Thought:` / `Action:` / `Action Input:` / `Final Answer:`)
 * that agents speak when the model has no native tool calling. Behaviour mirrors CrewAI's
 * `crewai/agents/parser.py`, so prompts and retry observations stay interchangeable.
 */
import { jsonrepair } from "jsonrepair";

/** The model asked to run a tool. */
export interface AgentAction {
  type: "action";
  /** Everything before the first `\nAction`, without code fences (the `Thought:` label is kept, as in CrewAI). */
  thought: string;
  tool: string;
  /** Action input after cleanup and JSON repair; plain text when it is not JSON-like. */
  toolInput: string;
  text: string;
}

/** The model gave its final answer. */
export interface AgentFinish {
  type: "finish";
  thought: string;
  output: string;
  text: string;
}

/** Keyword that marks the final answer; its presence always ends the loop. */
export const FINAL_ANSWER_ACTION = "Final Answer:";

/** Observation sent back when the answer has no `Action:` (CrewAI's protocol text, verbatim). */
export const MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE =
  "I did it wrong. Invalid Format: I missed the 'Action:' after 'Thought:'. I will do right next, and don't use a tool I have already used.\n";

/** Observation sent back when `Action:` has no `Action Input:` (CrewAI's protocol text, verbatim). */
export const MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE =
  "I did it wrong. Invalid Format: I missed the 'Action Input:' after 'Action:'. I will do right next, and don't use a tool I have already used.\n";

/** CrewAI's text for an answer holding both an action and a final answer; kept for executors, the parser lets Final Answer win. */
export const FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE =
  "I did it wrong. Tried to both perform Action and give a Final Answer at the same time, I must do one or the other";

/** Reminder of the final-answer format, appended after a missing `Action:` (CrewAI slice `final_answer_format`). */
export const FINAL_ANSWER_FORMAT_INSTRUCTIONS =
  "When no further tool is needed, reply with your complete final answer, making sure it meets the expected criteria, in EXACTLY this format:\n\n" +
  "```\nThought: I now can give a great answer\nFinal Answer: my complete final answer to the task.\n\n```";

/** Full protocol reminder for answers that are neither a tool call nor a final answer (CrewAI slice `format_without_tools`). */
export const FORMAT_WITHOUT_TOOLS_INSTRUCTIONS =
  "\nMy reply did not follow the expected format. I MUST either use one of the available tools, OR give my final answer.\n" +
  "To use a tool I reply with:\n\n" +
  "```\nThought: what I should do next and why\nAction: the name of one available tool, exactly as written\n" +
  "Action Input: the tool's arguments as a JSON object\nObservation: the result of the tool\n```\n" +
  "This Thought/Action/Action Input/Observation cycle can repeat as many times as needed. Once I know the final answer, I reply with:\n\n" +
  "```\nThought: I now can give a great answer\nFinal Answer: my complete final answer to the task.\n\n```";

/** A reply that follows neither branch of the protocol; `message` is the observation to feed back to the model. */
export class OutputParserError extends Error {
  override readonly name = "OutputParserError";
  readonly llmOutput: string;

  constructor(message: string, llmOutput: string) {
    super(message);
    this.llmOutput = llmOutput;
  }
}

// CrewAI's patterns, DOTALL (`s`) so the action input may span lines; the optional digits
// accept numbered variants such as `Action 1:` / `Action 1 Input 1:`.
const ACTION_INPUT_REGEX = /Action\s*\d*\s*:\s*(.*?)\s*Action\s*\d*\s*Input\s*\d*\s*:\s*(.*)/s;
const ACTION_REGEX = /Action\s*\d*\s*:\s*(.*?)/s;
const ACTION_INPUT_ONLY_REGEX = /\s*Action\s*\d*\s*Input\s*\d*\s*:\s*(.*)/s;

// Results json_repair gives up with in CrewAI; the original text is kept instead.
const UNABLE_TO_REPAIR_JSON_RESULTS = new Set(['""', "{}"]);

const FENCE = "```";

/** Parses one model reply into a tool call or a final answer; throws OutputParserError otherwise. */
export function parseReAct(text: string): AgentAction | AgentFinish {
  const thought = extractThought(text);

  // Final Answer wins over an action in the same reply (newest CrewAI): the model often
  // narrates a whole run, and by then the answer is what it means to deliver.
  if (text.includes(FINAL_ANSWER_ACTION)) {
    let output = (text.split(FINAL_ANSWER_ACTION).at(-1) ?? "").trim();
    // An odd number of fences means the last one closes a block the answer never opened.
    if (output.endsWith(FENCE) && countOccurrences(output, FENCE) % 2 !== 0) {
      output = output.slice(0, -FENCE.length).trimEnd();
    }
    return { type: "finish", thought, output, text };
  }

  const match = ACTION_INPUT_REGEX.exec(text);
  if (match) {
    const tool = cleanAction(match[1] ?? "");
    const rawInput = stripChars((match[2] ?? "").trim(), " ");
    const toolInput = safeRepairJson(stripChars(rawInput, '"'));
    return { type: "action", thought, tool, toolInput, text };
  }

  if (!ACTION_REGEX.test(text)) {
    throw new OutputParserError(`${MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE}\n${FINAL_ANSWER_FORMAT_INSTRUCTIONS}`, text);
  }
  if (!ACTION_INPUT_ONLY_REGEX.test(text)) {
    throw new OutputParserError(MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE, text);
  }
  // Both keywords are present but not in the order the protocol requires.
  throw new OutputParserError(FORMAT_WITHOUT_TOOLS_INSTRUCTIONS, text);
}

// An `Action:` keyword at the start of a line (after any Markdown bold or list marker): a reply that has one
// meant to use a tool, so a broken one is sent back for correction. Prose that merely contains the word
// ("a call to Action: ...") is not an action.
const ACTION_LINE_REGEX = /^[\s>*_#-]*Action\s*\d*\s*(?:Input\s*\d*\s*)?:/m;
const LEADING_THOUGHT_REGEX = /^\s*\**Thought\**\s*:[^\n]*(?:\n|$)/;

/**
 * Reads a reply of the text protocol the way current CrewAI does: a tool action or a `Final Answer:` as
 * parseReAct reads them, and any other reply as the final answer itself (a model asked a plain question
 * often answers in plain text, and one asked for JSON sends bare JSON). Only a reply that tried to use a
 * tool and got the format wrong (an `Action:` line without a usable `Action Input:`) throws
 * OutputParserError, whose message is the correction to send back.
 */
export function readReply(text: string): AgentAction | AgentFinish {
  try {
    return parseReAct(text);
  } catch (error) {
    if (!(error instanceof OutputParserError) || ACTION_LINE_REGEX.test(text)) throw error;
    return { type: "finish", thought: leadingThought(text), output: plainAnswer(text), text };
  }
}

/** A reply without the `Final Answer:` keyword as an answer: the whole text, without a leading `Thought:` line. */
export function plainAnswer(text: string): string {
  const thought = LEADING_THOUGHT_REGEX.exec(text);
  if (!thought) return text.trim();
  const rest = text.slice(thought[0].length).trim();
  // A reply that is nothing but a thought: its words are the answer.
  return rest !== "" ? rest : thought[0].replace(/^\s*\**Thought\**\s*:/, "").trim();
}

function leadingThought(text: string): string {
  return LEADING_THOUGHT_REGEX.exec(text)?.[0].trim() ?? "";
}

/** Turns an action input into tool arguments; anything but a JSON object is rejected with a message for the model. */
export function parseToolInput(
  toolInput: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  // A tool without parameters is commonly called with an empty input.
  if (toolInput.trim() === "") return { ok: true, value: {} };
  const value = parseJsonLenient(toolInput) ?? parseJsonLenient(safeRepairJson(toolInput));
  if (isPlainObject(value)) return { ok: true, value };
  return {
    ok: false,
    error:
      `Error: the Action Input is not a valid JSON object of arguments: ${toolInput}\n` +
      'Send the tool\'s arguments as one JSON object with double-quoted keys and values, e.g. Action Input: {"argument_name": "value"}.',
  };
}

function extractThought(text: string): string {
  let index = text.indexOf("\nAction");
  if (index === -1) index = text.indexOf("\nFinal Answer");
  if (index === -1) return "";
  return text.slice(0, index).trim().replaceAll(FENCE, "").trim();
}

// Models often bold the tool name (`**search**`).
function cleanAction(action: string): string {
  return stripChars(action.trim(), "*").trim();
}

function safeRepairJson(input: string): string {
  // Arrays pass untouched: CrewAI found repair mangles them more often than it helps.
  if (input.startsWith("[") && input.endsWith("]")) return input;

  const toolInput = input.replaceAll('"""', '"');
  if (parseJsonLenient(toolInput) !== undefined) return toolInput;

  // Like Python's json_repair, look for JSON only from the first bracket on: leading
  // chatter (`** {...}`) is dropped, and text without any bracket is not JSON at all.
  const start = toolInput.search(/[{[]/);
  if (start === -1) return toolInput;
  const candidate = firstJsonValue(toolInput.slice(start));
  // An object without a single `key: value` pair (`{invalid_json`, `{temperature in SF}`)
  // repairs to nothing useful in CrewAI; keep the model's own words.
  if (candidate.startsWith("{") && !candidate.includes(":")) return toolInput;

  const repaired = tryRepair(candidate).trim();
  if (repaired === "" || UNABLE_TO_REPAIR_JSON_RESULTS.has(repaired)) return toolInput;
  // An array that the input never asked for means the repair wrapped loose pieces together.
  if (repaired.startsWith("[") && !toolInput.trimStart().startsWith("[")) return toolInput;
  return repaired;
}

// Cuts after the bracket that closes the first one, so trailing prose or a fabricated
// `Observation:` is ignored; an unclosed value is returned whole for the repair to close.
function firstJsonValue(text: string): string {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote !== undefined) {
      if (char === "\\") i++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === "{" || char === "[") {
      depth++;
    } else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) return text.slice(0, i + 1);
    }
  }
  return text;
}

function tryRepair(text: string): string {
  try {
    return jsonrepair(text);
  } catch {
    // Hopeless input: the caller keeps the original text.
    return "";
  }
}

function parseJsonLenient(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Python's str.strip(chars) for a single character: removes every leading and trailing copy.
function stripChars(text: string, char: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === char) start++;
  while (end > start && text[end - 1] === char) end--;
  return text.slice(start, end);
}

function countOccurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
