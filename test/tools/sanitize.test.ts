import { describe, expect, it } from "vitest";
import { sanitizeToolName } from "../../src/tools/index.js";
import { similarityRatio } from "../../src/tools/similarityRatio.js";

describe("sanitizeToolName (CrewAI's sanitize_tool_name)", () => {
  // Expected values computed with CrewAI's Python implementation.
  it.each([
    ["Random Number Generator", "random_number_generator"],
    ["getUserData", "get_user_data"],
    ["XMLParser", "xml_parser"],
    ["getHTTPResponse", "get_http_response"],
    ["MyTool123Name", "my_tool123name"],
    ["aB", "a_b"],
    ["ABC", "abc"],
    ["my-tool.v2", "my_tool_v2"],
    ["  __Search   the  Web__  ", "search_the_web"],
    ["Hello, World!", "hello_world"],
    ["Café Lookup", "cafe_lookup"],
    ["ﬁle reader", "file_reader"],
    ["tool😀name", "toolname"],
    [`It's "quoted"`, "its_quoted"],
    ["Delegate work to coworker", "delegate_work_to_coworker"],
    ["Ask question to coworker", "ask_question_to_coworker"],
    ["snake_case_already", "snake_case_already"],
    ["日本語", ""],
  ])("%j -> %j", (input, expected) => {
    expect(sanitizeToolName(input)).toBe(expected);
  });

  it("truncates to 64 characters without leaving a trailing underscore", () => {
    expect(sanitizeToolName("a".repeat(70))).toBe("a".repeat(64));
    expect(sanitizeToolName("ab_".repeat(30))).toBe(`${"ab_".repeat(21)}a`);
    const cut = sanitizeToolName("abc_".repeat(20));
    expect(cut).toBe("abc_".repeat(16).slice(0, 63));
    expect(sanitizeToolName("hello world", 6)).toBe("hello");
  });
});

describe("similarityRatio (difflib.SequenceMatcher.ratio)", () => {
  // Expected values computed with Python's difflib.
  it.each([
    ["multiplier", "multiplyer", 0.9],
    ["get_weather", "get_wether", 0.9523809523809523],
    ["search_web", "web_search", 0.6],
    ["calculator", "calculate", 0.8421052631578947],
    ["abcd", "bcda", 0.75],
    ["random_number_generator", "random_number_generater", 0.9565217391304348],
    ["", "", 1],
    ["abc", "", 0],
  ])("%j vs %j = %d", (a, b, expected) => {
    expect(similarityRatio(a, b)).toBeCloseTo(expected, 12);
  });
});
