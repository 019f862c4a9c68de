import { describe, expect, it } from "vitest";
import {
  FINAL_ANSWER_ACTION,
  FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE,
  FINAL_ANSWER_FORMAT_INSTRUCTIONS,
  FORMAT_WITHOUT_TOOLS_INSTRUCTIONS,
  MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE,
  MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE,
  OutputParserError,
  parseReAct,
  parseToolInput,
} from "../../src/agent/parser.js";
import type { AgentAction, AgentFinish } from "../../src/agent/parser.js";

function action(text: string): AgentAction {
  const result = parseReAct(text);
  if (result.type !== "action") throw new Error(`expected an action, got ${JSON.stringify(result)}`);
  return result;
}

function finish(text: string): AgentFinish {
  const result = parseReAct(text);
  if (result.type !== "finish") throw new Error(`expected a finish, got ${JSON.stringify(result)}`);
  return result;
}

function parseError(text: string): OutputParserError {
  try {
    parseReAct(text);
  } catch (error) {
    if (error instanceof OutputParserError) return error;
    throw error;
  }
  throw new Error("expected an OutputParserError");
}

/** Wraps an action input in a minimal valid reply. */
function inputOf(rawInput: string): string {
  return action(`Thought: I should look this up\nAction: lookup\nAction Input: ${rawInput}`).toolInput;
}

describe("parseReAct: actions", () => {
  it("parses a plain tool call", () => {
    const text = "Thought: Let's find the temperature\nAction: search\nAction Input: what's the temperature in SF?";
    expect(parseReAct(text)).toEqual({
      type: "action",
      thought: "Thought: Let's find the temperature",
      tool: "search",
      toolInput: "what's the temperature in SF?",
      text,
    });
  });

  it("accepts numbered keywords", () => {
    const result = action("Thought: step one\nAction 1: search\nAction 1 Input 1: {\"q\": \"weather\"}");
    expect(result.tool).toBe("search");
    expect(result.toolInput).toBe('{"q": "weather"}');
  });

  it("tolerates blanks around the keywords and the values", () => {
    const result = action(" Thought: Let's find the temperature \n Action: search \n Action Input: what is the temperature in SF? ");
    expect(result.tool).toBe("search");
    expect(result.toolInput).toBe("what is the temperature in SF?");
  });

  it.each([
    ["**search**", "search"],
    ["** Ask question to senior researcher", "Ask question to senior researcher"],
    ["Ask question to senior researcher **", "Ask question to senior researcher"],
    ["**** Ask question to senior researcher ****", "Ask question to senior researcher"],
    ["  **  Ask question to senior researcher  **  ", "Ask question to senior researcher"],
    ["Ask question to senior researcher", "Ask question to senior researcher"],
    ["****", ""],
  ])("cleans the action name %j", (name, expected) => {
    expect(action(`Thought: go\nAction: ${name}\nAction Input: {"a": 1}`).tool).toBe(expected);
  });

  it("keeps a multi-line action input", () => {
    expect(inputOf("what is\nthe temperature in SF?")).toBe("what is\nthe temperature in SF?");
  });

  it("extracts the thought before the first Action line, dropping code fences", () => {
    const result = action("```\nThought: I need the weather\nand the time\nAction: search\nAction Input: {}\n```");
    expect(result.thought).toBe("Thought: I need the weather\nand the time");
  });

  it("cuts the thought at the first line starting with Action, as CrewAI does", () => {
    // With Action on the first line, the next "\nAction" is the Action Input line.
    expect(action("Action: search\nAction Input: SF").thought).toBe("Action: search");
  });
});

describe("parseReAct: action input cleanup and JSON repair", () => {
  it.each([
    ["plain text", "what is the temperature in SF? @$%^&*", "what is the temperature in SF? @$%^&*"],
    ["surrounding double quotes", '"temperature in SF"', "temperature in SF"],
    ["nested single quotes", "\"what's the temperature in 'SF'?\"", "what's the temperature in 'SF'?"],
    ["an unbalanced leading quote", '"what is the temperature in SF?', "what is the temperature in SF?"],
    ["a literal backslash-n", "what is the temperature in SF? \\n", "what is the temperature in SF? \\n"],
    ["angle brackets", "<temperature in SF>", "<temperature in SF>"],
    ["parentheses", "(temperature in SF)", "(temperature in SF)"],
    ["braces without key/value", "{temperature in SF}", "{temperature in SF}"],
    ["an unrepairable object", "{invalid_json", "{invalid_json"],
    ["a bracketed text", "[temperature in {SF}]", "[temperature in {SF}]"],
    ["a quoted bracketed text", '"[what is the temperature in SF?]"', "[what is the temperature in SF?]"],
    ["a JSON array", '["a", "b",]', '["a", "b",]'],
  ])("keeps %s as is", (_label, raw, expected) => {
    expect(inputOf(raw)).toBe(expected);
  });

  it.each([
    ['{"query": "temperature in SF"}'],
    ['{"task":"x","n":2}'],
    ['{\n  "nested": {"list": [1, 2, 3]},\n  "flag": true\n}'],
  ])("leaves valid JSON %j unchanged", (raw) => {
    expect(inputOf(raw)).toBe(raw);
  });

  const expected = '{"task": "Research XAI", "context": "Explainable AI", "coworker": "Senior Researcher"}';
  it.each([
    ["an unquoted value", '{"task": "Research XAI", "context": "Explainable AI", "coworker": Senior Researcher'],
    ["unquoted keys", '{task: "Research XAI", context: "Explainable AI", coworker: Senior Researcher}'],
    ["a missing closing brace", '{"task": "Research XAI", "context": "Explainable AI", "coworker": "Senior Researcher"'],
    ["a trailing comma", '{"task": "Research XAI", "context": "Explainable AI", "coworker": "Senior Researcher",}'],
    ["single quotes", "{'task': 'Research XAI', 'context': 'Explainable AI', 'coworker': 'Senior Researcher'}"],
    ["mixed quotes", "{'task': \"Research XAI\", 'context': \"Explainable AI\", 'coworker': 'Senior Researcher'}"],
    ["a missing colon", '{"task" "Research XAI", "context": "Explainable AI", "coworker": "Senior Researcher"}'],
    ["a missing comma", '{"task": "Research XAI" "context": "Explainable AI", "coworker": "Senior Researcher"}'],
    ["trailing prose", '{"task": "Research XAI", "context": "Explainable AI", "coworker": "Senior Researcher"} random text'],
    ["leading asterisks", '** {"task": "Research XAI", "context": "Explainable AI", "coworker": "Senior Researcher"}'],
    ["triple quotes", '{"task": """Research XAI""", "context": "Explainable AI", "coworker": "Senior Researcher"}'],
  ])("repairs %s", (_label, raw) => {
    expect(inputOf(raw)).toBe(expected);
  });

  it("keeps special characters in keys", () => {
    const raw = '{"task!@#": "Research XAI", "context$%^": "Explainable AI", "coworker&*()": "Senior Researcher"}';
    expect(inputOf(raw)).toBe(raw);
  });

  it("keeps apostrophes inside double-quoted values", () => {
    const raw = `** {"task": "What are the barriers?", "context": "As we've discussed, it's hard", "coworker": "Senior Researcher"}\n    `;
    expect(inputOf(raw)).toBe('{"task": "What are the barriers?", "context": "As we\'ve discussed, it\'s hard", "coworker": "Senior Researcher"}');
  });

  it("drops a fabricated observation after the JSON input", () => {
    expect(inputOf('{"q": "weather"}\nObservation: it is sunny\nThought: done')).toBe('{"q": "weather"}');
  });
});

describe("parseReAct: final answers", () => {
  it("parses a final answer", () => {
    const text = "Thought: I found the information\nFinal Answer: The temperature is 100 degrees";
    expect(parseReAct(text)).toEqual({
      type: "finish",
      thought: "Thought: I found the information",
      output: "The temperature is 100 degrees",
      text,
    });
  });

  it("keeps a multi-line answer whole", () => {
    const result = finish("Thought: done\nFinal Answer: Line one\n\n- item 1\n- item 2\n");
    expect(result.output).toBe("Line one\n\n- item 1\n- item 2");
  });

  it("accepts a final answer without a thought", () => {
    expect(finish("Final Answer: 42")).toMatchObject({ thought: "", output: "42" });
  });

  it("takes the text after the last Final Answer: marker", () => {
    expect(finish("Thought: x\nFinal Answer: draft\nFinal Answer: final").output).toBe("final");
  });

  it("strips an unmatched trailing code fence", () => {
    expect(finish("```\nThought: done\nFinal Answer: The answer is 42\n```").output).toBe("The answer is 42");
  });

  it("keeps a closing fence that belongs to a code block in the answer", () => {
    const output = "Here is the code:\n```python\nprint(42)\n```";
    expect(finish(`Thought: done\nFinal Answer: ${output}`).output).toBe(output);
  });

  it("lets Final Answer win when the reply also holds an action", () => {
    const text =
      'Thought: I need to search\nAction: search\nAction Input: {"query": "AI trends"}\n' +
      "Observation: LLMs and multimodal AI.\nFinal Answer: The top AI trends are LLMs and multimodal AI.";
    expect(finish(text)).toMatchObject({
      thought: "Thought: I need to search",
      output: "The top AI trends are LLMs and multimodal AI.",
      text,
    });
  });

  it("is case sensitive about the keyword", () => {
    expect(() => parseReAct("Thought: done\nfinal answer: 42")).toThrow(OutputParserError);
  });
});

describe("parseReAct: errors", () => {
  it("reports a missing Action after Thought with the final answer format", () => {
    const text = "Thought: Let's find the temperature\nAction Input: what is the temperature in SF?";
    const error = parseError(text);
    expect(error.message).toBe(`${MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE}\n${FINAL_ANSWER_FORMAT_INSTRUCTIONS}`);
    expect(error.message).toContain("Invalid Format: I missed the 'Action:' after 'Thought:'.");
    expect(error.llmOutput).toBe(text);
    expect(error.name).toBe("OutputParserError");
    expect(error).toBeInstanceOf(Error);
  });

  it("reports a missing Action Input after Action", () => {
    const error = parseError("Thought: Let's find the temperature\nAction: search");
    expect(error.message).toBe(MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE);
    expect(error.message).toContain("I missed the 'Action Input:' after 'Action:'.");
  });

  it("treats plain text without keywords as a missing Action", () => {
    const text = "The weather in SF is sunny, no keywords here.";
    const error = parseError(text);
    expect(error.message.startsWith(MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE)).toBe(true);
    expect(error.llmOutput).toBe(text);
  });

  it("treats a thought alone as a missing Action", () => {
    expect(parseError("Thought: I am still thinking").message).toContain("I missed the 'Action:' after 'Thought:'");
  });

  it("sends the whole protocol back when both keywords are there in the wrong order", () => {
    const error = parseError("Thought: hmm\nAction Input: {\"q\": 1}\nAction: search");
    expect(error.message).toBe(FORMAT_WITHOUT_TOOLS_INSTRUCTIONS);
    for (const keyword of ["Thought:", "Action:", "Action Input:", "Observation:", FINAL_ANSWER_ACTION]) {
      expect(error.message).toContain(keyword);
    }
  });

  it("parses each block of a mixed transcript on its own", () => {
    const blocks = [
      "Thought: Let's find the temperature\nAction: search\nAction Input: what is the temperature in SF?",
      "Thought: I found the information\nFinal Answer: The temperature is 100 degrees",
      "Thought: Missing action\nAction Input: invalid",
      "Thought: Missing action input\nAction: invalid",
    ];
    const kinds = blocks.map((block) => {
      try {
        return parseReAct(block).type;
      } catch (error) {
        return error instanceof OutputParserError ? "error" : "unexpected";
      }
    });
    expect(kinds).toEqual(["action", "finish", "error", "error"]);
  });

  it("keeps CrewAI's protocol texts verbatim", () => {
    expect(MISSING_ACTION_AFTER_THOUGHT_ERROR_MESSAGE).toBe(
      "I did it wrong. Invalid Format: I missed the 'Action:' after 'Thought:'. I will do right next, and don't use a tool I have already used.\n",
    );
    expect(MISSING_ACTION_INPUT_AFTER_ACTION_ERROR_MESSAGE).toBe(
      "I did it wrong. Invalid Format: I missed the 'Action Input:' after 'Action:'. I will do right next, and don't use a tool I have already used.\n",
    );
    expect(FINAL_ANSWER_AND_PARSABLE_ACTION_ERROR_MESSAGE).toBe(
      "I did it wrong. Tried to both perform Action and give a Final Answer at the same time, I must do one or the other",
    );
    expect(FINAL_ANSWER_ACTION).toBe("Final Answer:");
  });
});

describe("parseToolInput", () => {
  it("returns the object of a JSON input", () => {
    expect(parseToolInput('{"first_number": 2, "second_number": 3}')).toEqual({
      ok: true,
      value: { first_number: 2, second_number: 3 },
    });
  });

  it("repairs Python-style dictionaries", () => {
    expect(parseToolInput("{'query': 'AI', 'exact': True, 'limit': None}")).toEqual({
      ok: true,
      value: { query: "AI", exact: true, limit: null },
    });
  });

  it("accepts the output of parseReAct directly", () => {
    const { toolInput } = action("Thought: x\nAction: multiplier\nAction Input: {first_number: 2, second_number: 3,}");
    expect(parseToolInput(toolInput)).toEqual({ ok: true, value: { first_number: 2, second_number: 3 } });
  });

  it("treats an empty input as no arguments", () => {
    expect(parseToolInput("  ")).toEqual({ ok: true, value: {} });
  });

  it.each([["what is the temperature in SF?"], ['["a", "b"]'], ["42"], ["null"], ["{invalid_json"], ["{temperature in SF}"]])(
    "rejects %j with a message asking for a JSON object",
    (input) => {
      const result = parseToolInput(input);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toContain("JSON object");
        expect(result.error).toContain(input);
      }
    },
  );
});
