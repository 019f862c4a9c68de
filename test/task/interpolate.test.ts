import { describe, expect, it } from "vitest";
import { InterpolationError, Task, TaskValidationError, interpolate } from "../../src/task/index.js";

describe("interpolate", () => {
  it("fills identifier-like placeholders and leaves JSON braces alone", () => {
    expect(interpolate("Write about {topic} for {audience_1}", { topic: "AI", audience_1: "kids" })).toBe("Write about AI for kids");
    expect(interpolate('Reply as {"a": 1} or { } about {topic}', { topic: "AI" })).toBe('Reply as {"a": 1} or { } about AI');
    expect(interpolate("{ topic } {1abc} {topic-name}", { "topic-name": "x" })).toBe("{ topic } {1abc} x");
    expect(interpolate("no placeholders", {})).toBe("no placeholders");
    expect(interpolate('{"only": "json"}', {})).toBe('{"only": "json"}');
    expect(interpolate("", { a: "b" })).toBe("");
  });

  it("renders numbers, booleans, arrays and objects", () => {
    expect(interpolate("{n} {b} {list} {obj}", { n: 3.5, b: true, list: [1, "two"], obj: { k: "v", nested: null } })).toBe(
      '3.5 true [1,"two"] {"k":"v","nested":null}',
    );
  });

  it("does not re-interpolate values that contain braces", () => {
    expect(interpolate("{a} {b}", { a: "{b}", b: "x" })).toBe("{b} x");
  });

  it("names a missing variable and the inputs given", () => {
    expect(() => interpolate("About {topic}", { subject: "AI" })).toThrow(InterpolationError);
    expect(() => interpolate("About {topic}", { subject: "AI" })).toThrow(/'topic' not found.*'subject'/);
    expect(() => interpolate("About {topic}", {})).toThrow(/Inputs given: none/);
  });

  it("rejects unsupported values with a clear error", () => {
    expect(() => interpolate("{a}", { a: null })).toThrow(/'a' is null/);
    expect(() => interpolate("{a}", { a: undefined })).toThrow(/'a' is undefined/);
    expect(() => interpolate("x", { a: () => 1 })).toThrow(/'a': unsupported type function/);
    expect(() => interpolate("x", { a: new Date() })).toThrow(/unsupported type Date/);
    expect(() => interpolate("x", { a: { deep: [Symbol("s")] } })).toThrow(/unsupported type symbol/);
    expect(() => interpolate("x", { a: Number.NaN })).toThrow(/NaN/);
    expect(interpolate("{a}", { a: "ok", unused: undefined })).toBe("ok");
  });
});

describe("Task.interpolateInputs", () => {
  it("fills description, expected output and output file from the original texts each time", () => {
    const task = new Task({ description: "Research {topic}", expectedOutput: "A {length} summary", outputFile: "out/{topic}.md" });
    task.interpolateInputs({ topic: "AI", length: "short" });
    expect(task.description).toBe("Research AI");
    expect(task.expectedOutput).toBe("A short summary");
    expect(task.outputFile).toBe("out/AI.md");
    expect(task.prompt()).toContain("Research AI");
    task.interpolateInputs({ topic: "ML", length: "long" });
    expect(task.description).toBe("Research ML");
    expect(task.expectedOutput).toBe("A long summary");
    expect(task.outputFile).toBe("out/ML.md");
    expect(task.options.description).toBe("Research {topic}");
  });

  it("leaves the texts alone when no inputs are given (as CrewAI)", () => {
    const task = new Task({ description: "Research {topic}", expectedOutput: "x" });
    task.interpolateInputs({});
    expect(task.description).toBe("Research {topic}");
  });

  it("names the field and the missing variable", () => {
    const task = new Task({ description: "Research {topic}", expectedOutput: "x", name: "research" });
    expect(() => task.interpolateInputs({ other: 1 })).toThrow(/description of task 'research'.*'topic' not found/);
  });

  it("checks the interpolated output file path again", () => {
    const task = new Task({ description: "d", expectedOutput: "x", outputFile: "reports/{name}.md" });
    expect(() => task.interpolateInputs({ name: "../../etc/passwd" })).toThrow(TaskValidationError);
    expect(() => task.interpolateInputs({ name: "a;rm -rf" })).toThrow(/shell special characters/);
  });
});
