import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseJsonReply } from "../../src/llm/jsonReply.js";

const evaluation = z.object({ quality: z.number(), suggestions: z.array(z.string()) });

describe("parseJsonReply", () => {
  it("reads the whole reply, a fenced block, or JSON inside prose, repairing small breaks", () => {
    expect(parseJsonReply('{"quality": 8, "suggestions": []}', evaluation)).toEqual({ ok: true, value: { quality: 8, suggestions: [] } });
    expect(parseJsonReply('Here:\n```json\n{"quality": 7, "suggestions": ["a"]}\n```', evaluation)).toEqual({ ok: true, value: { quality: 7, suggestions: ["a"] } });
    expect(parseJsonReply("Sure! {quality: 6, suggestions: ['b'],} Hope it helps.", evaluation)).toEqual({ ok: true, value: { quality: 6, suggestions: ["b"] } });
  });

  it("finds the object after a bracket in the prose, and an array after a brace", () => {
    expect(parseJsonReply('Quality [1-10]: {"quality": 8, "suggestions": ["Cite sources"]}', evaluation)).toEqual({
      ok: true,
      value: { quality: 8, suggestions: ["Cite sources"] },
    });
    expect(parseJsonReply('Format {list}: ["a", "b"]', z.array(z.string()))).toEqual({ ok: true, value: ["a", "b"] });
  });

  it("says why nothing fits: no JSON at all, or the schema's complaint", () => {
    expect(parseJsonReply("   ", evaluation)).toEqual({ ok: false, error: "the text contains no JSON" });
    // Plain prose is repaired into a JSON string, which the schema then rejects.
    expect(parseJsonReply("no json here", evaluation)).toEqual({ ok: false, error: "(root): Invalid input: expected object, received string" });
    const wrong = parseJsonReply('{"quality": "high"}', evaluation);
    expect(wrong.ok).toBe(false);
    expect(!wrong.ok && wrong.error).toMatch(/quality: .*number/);
  });
});
