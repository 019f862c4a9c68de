import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BaseTool, ToolError, tool } from "../../src/tools/index.js";

const multiplySchema = z.object({
  first_number: z.number().describe("The first factor"),
  second_number: z.number().describe("The second factor"),
});

const multiplier = tool({
  name: "multiplier",
  description: "Multiplies two numbers",
  schema: multiplySchema,
  execute: ({ first_number, second_number }) => first_number * second_number,
});

const searchSchema = z.object({ query: z.string(), limit: z.number().int().default(5) });

class SearchTool extends BaseTool<typeof searchSchema> {
  name = "Web Search";
  description = "Searches the web";
  schema = searchSchema;
  async run({ query, limit }: z.infer<typeof searchSchema>): Promise<string> {
    return `${limit} results for ${query}`;
  }
}

describe("tool()", () => {
  it("builds a working tool with CrewAI's defaults", async () => {
    expect(multiplier).toBeInstanceOf(BaseTool);
    expect(multiplier.sanitizedName).toBe("multiplier");
    expect(multiplier.resultAsAnswer).toBe(false);
    expect(multiplier.maxUsageCount).toBeUndefined();
    expect(multiplier.currentUsageCount).toBe(0);
    expect(await multiplier.run({ first_number: 2, second_number: 3 })).toBe(6);
  });

  it("keeps the options it is given", () => {
    const t = tool({
      name: "answer",
      description: "Gives the answer",
      schema: z.object({}),
      execute: () => 42,
      resultAsAnswer: true,
      maxUsageCount: 2,
      cacheFunction: () => false,
    });
    expect(t.resultAsAnswer).toBe(true);
    expect(t.maxUsageCount).toBe(2);
    expect(t.cacheFunction?.({}, 42)).toBe(false);
  });

  const one = (): number => 1;
  it.each<[unknown, RegExp]>([
    [{ name: "", description: "d", schema: z.object({}), execute: one }, /no name.*name = "web_search"/],
    [{ name: "日本", description: "d", schema: z.object({}), execute: one }, /no ASCII letters or digits/],
    [{ name: "t", description: " ", schema: z.object({}), execute: one }, /Tool "t" has no description/],
    [{ name: "t", description: "d", schema: z.string(), execute: one }, /Tool "t": `schema` must describe an object.*type "string"/],
    [{ name: "t", description: "d", schema: { shape: {} }, execute: one }, /Tool "t": `schema` must be a zod/],
    [{ name: "t", description: "d", schema: z.object({}), execute: "nope" }, /Tool "t": `execute` must be the function/],
    [{ name: "t", description: "d", schema: z.object({}), execute: one, maxUsageCount: 0 }, /maxUsageCount must be a positive integer/],
    [{ name: "t", description: "d", schema: z.object({}), execute: one, resultAsAnswer: "yes" }, /resultAsAnswer/],
  ])("rejects a broken definition at once (%#)", (def, message) => {
    expect(() => tool(def as never)).toThrow(ToolError);
    expect(() => tool(def as never)).toThrow(message);
  });
});

describe("BaseTool subclass", () => {
  it("works like a tool() tool, validated lazily on first use", async () => {
    const search = new SearchTool();
    expect(search.sanitizedName).toBe("web_search");
    expect(await search.run({ query: "crewai", limit: 2 })).toBe("2 results for crewai");
  });

  it("fits in a BaseTool[] whatever its schema, with or without a cacheFunction (checked by tsc)", () => {
    class CachedSearch extends SearchTool {
      override cacheFunction = (args: z.infer<typeof searchSchema>): boolean => args.query !== "";
    }
    const tools: BaseTool[] = [new SearchTool(), new CachedSearch(), multiplier];
    expect(tools.map((t) => t.sanitizedName)).toEqual(["web_search", "web_search", "multiplier"]);
  });

  it("rejects a resultAsAnswer that is not a boolean on first use", () => {
    class Sloppy extends SearchTool {
      override resultAsAnswer = "yes" as unknown as boolean;
    }
    expect(() => new Sloppy().validate()).toThrow(/Tool "Web Search": resultAsAnswer must be true or false/);
  });

  it("explains a missing name or description on first use, naming the class", () => {
    class Nameless extends BaseTool<typeof searchSchema> {
      name = "";
      description = "d";
      schema = searchSchema;
      run(): string {
        return "";
      }
    }
    const t = new Nameless();
    expect(() => t.describe()).toThrow(/A tool of class Nameless has no name/);
  });
});

describe("JSON schema and describe()", () => {
  it("gives an object schema without $schema, suitable for function parameters", () => {
    const spec = multiplier.toToolSpec();
    expect(spec).toEqual({
      name: "multiplier",
      description: "Multiplies two numbers",
      parameters: {
        type: "object",
        properties: {
          first_number: { type: "number", description: "The first factor" },
          second_number: { type: "number", description: "The second factor" },
        },
        required: ["first_number", "second_number"],
      },
    });
  });

  it("leaves fields with defaults optional, and gives argument-less tools empty properties", () => {
    const params = new SearchTool().toToolSpec().parameters;
    expect(params.required).toEqual(["query"]);
    const none = tool({ name: "now", description: "Current time", schema: z.object({}), execute: () => "noon" });
    expect(none.toToolSpec().parameters).toMatchObject({ type: "object", properties: {} });
  });

  it("returns a copy, so callers cannot change the tool", () => {
    const spec = multiplier.toToolSpec();
    (spec.parameters.properties as Record<string, unknown>).extra = {};
    expect(multiplier.toToolSpec().parameters.properties).not.toHaveProperty("extra");
  });

  it("describes the tool in CrewAI's text format", () => {
    const text = new SearchTool().describe();
    expect(text.startsWith("Tool Name: web_search\nTool Arguments: {\n")).toBe(true);
    expect(text.endsWith("\nTool Description: Searches the web")).toBe(true);
    expect(text).toContain('"query": {\n      "type": "string"\n    }');
    const json = text.slice(text.indexOf("{"), text.lastIndexOf("\nTool Description:"));
    expect(JSON.parse(json)).toEqual(new SearchTool().toToolSpec().parameters);
  });
});

describe("parseArgs", () => {
  it("accepts valid objects and applies defaults", () => {
    expect(new SearchTool().parseArgs({ query: "x" })).toEqual({ ok: true, value: { query: "x", limit: 5 } });
  });

  it("reads JSON text, repairing what models get wrong", () => {
    expect(multiplier.parseArgs('{"first_number": 2, "second_number": 3}')).toEqual({
      ok: true,
      value: { first_number: 2, second_number: 3 },
    });
    expect(multiplier.parseArgs("{'first_number': 2, 'second_number': 3,}")).toMatchObject({ ok: true });
    expect(multiplier.parseArgs('```json\n{"first_number": 2, "second_number": 3}\n```')).toMatchObject({ ok: true });
  });

  it("names each bad field with the expected type and asks for a corrected call", () => {
    const result = multiplier.parseArgs({ first_number: "two" });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain('The arguments for the tool "multiplier" are invalid');
    expect(result.error).toContain('- first_number: expected number, got a string ("two")');
    expect(result.error).toContain("- second_number: missing, expected number");
    expect(result.error).toContain('Call "multiplier" again with corrected arguments');
    expect(result.error).toContain('"required":["first_number","second_number"]');
  });

  it("reports nested paths and non-type issues", () => {
    const t = tool({
      name: "orders",
      description: "Places orders",
      schema: z.object({ items: z.array(z.object({ qty: z.number().min(1) })), mode: z.enum(["fast", "slow"]) }),
      execute: () => "ok",
    });
    const result = t.parseArgs({ items: [{ qty: 0 }, { qty: "x" }], mode: "medium" });
    if (result.ok) throw new Error("expected failure");
    expect(result.error).toMatch(/- items\[0\]\.qty: Too small: expected number to be >=1/);
    expect(result.error).toContain('- items[1].qty: expected number, got a string ("x")');
    expect(result.error).toMatch(/- mode: Invalid option: expected one of "fast"\|"slow"/);
  });

  it("refuses text that is not an object", () => {
    const result = multiplier.parseArgs("[1, 2]");
    if (result.ok) throw new Error("expected failure");
    expect(result.error).toContain("must be a JSON object of named values, but got an array");
  });
});

describe("usage counters", () => {
  it("resetUsage() sets the count back to zero", () => {
    const t = tool({ name: "t", description: "d", schema: z.object({}), execute: () => 1 });
    t.currentUsageCount = 3;
    t.resetUsage();
    expect(t.currentUsageCount).toBe(0);
  });
});
