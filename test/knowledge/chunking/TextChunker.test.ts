import { describe, expect, it } from "vitest";
import { ChunkingOptionsError, chunkText, resolveChunkOptions } from "../../../src/knowledge/chunking/TextChunker.js";

function expectOffsetsExact(text: string, chunks: ReturnType<typeof chunkText>): void {
  chunks.forEach((c, i) => {
    expect(c.metadata.chunkIndex).toBe(i);
    expect(text.slice(c.metadata.start, c.metadata.end)).toBe(c.content);
  });
}

describe("chunkText", () => {
  it("uses CrewAI's defaults (4000 characters, 200 overlap)", () => {
    expect(resolveChunkOptions()).toEqual({ size: 4000, overlap: 200, source: "text" });
  });

  it("returns one chunk for short text and none for blank text", () => {
    expect(chunkText("  hello world \n", { source: "s" })).toEqual([
      { content: "hello world", metadata: { source: "s", chunkIndex: 0, start: 2, end: 13 } },
    ]);
    expect(chunkText("")).toEqual([]);
    expect(chunkText(" \n\n  ")).toEqual([]);
  });

  it("breaks at paragraph boundaries first", () => {
    const p1 = "First paragraph. It has two sentences.";
    const p2 = "Second paragraph is here. Also two.";
    const p3 = "Third one.";
    const text = `${p1}\n\n${p2}\n\n${p3}`;
    const chunks = chunkText(text, { size: 80, overlap: 0 });
    expect(chunks.map((c) => c.content)).toEqual([`${p1}\n\n${p2}`, p3]);
    expectOffsetsExact(text, chunks);
  });

  it("falls back to sentence boundaries, then whitespace, then characters", () => {
    const sentences = "One two three. Four five six! Seven eight nine? Ten eleven twelve.";
    const bySentence = chunkText(sentences, { size: 35, overlap: 0 });
    expect(bySentence.every((c) => /[.!?]$/.test(c.content))).toBe(true);
    expectOffsetsExact(sentences, bySentence);

    const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
    const byWord = chunkText(words, { size: 20, overlap: 0 });
    expect(byWord.map((c) => c.content).join(" ")).toBe(words);
    expect(byWord.every((c) => c.content.length <= 20)).toBe(true);

    const solid = "x".repeat(25);
    const byChar = chunkText(solid, { size: 10, overlap: 0 });
    expect(byChar.map((c) => c.content.length)).toEqual([10, 10, 5]);
  });

  it("overlaps consecutive chunks and never exceeds the size", () => {
    const text = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} says something.`).join(" ");
    const chunks = chunkText(text, { size: 300, overlap: 60, source: "doc" });
    expect(chunks.length).toBeGreaterThan(5);
    expectOffsetsExact(text, chunks);
    for (let i = 1; i < chunks.length; i++) {
      const prev = chunks[i - 1]!.metadata;
      const cur = chunks[i]!.metadata;
      expect(cur.start).toBeLessThan(prev.end);
      expect(cur.start).toBeGreaterThan(prev.start);
      expect(prev.end - cur.start).toBeLessThanOrEqual(60);
    }
    expect(chunks.every((c) => c.content.length <= 300 && c.metadata.source === "doc")).toBe(true);
    expect(chunks.at(-1)!.metadata.end).toBe(text.length);
  });

  it("covers the whole text without overlap", () => {
    const text = "word ".repeat(1000);
    const chunks = chunkText(text, { size: 97, overlap: 0 });
    expect(chunks.map((c) => c.content).join(" ")).toBe(text.trim());
  });

  it("makes progress when the overlap is close to the size", () => {
    const text = "a b c d e f g h i j k l m n o p q r s t u v w x y z ".repeat(20);
    const chunks = chunkText(text, { size: 10, overlap: 9 });
    expectOffsetsExact(text, chunks);
    expect(chunks.at(-1)!.metadata.end).toBe(text.trimEnd().length);
  });

  it("rejects invalid options with a clear error", () => {
    expect(() => chunkText("x", { size: 0 })).toThrow(ChunkingOptionsError);
    expect(() => chunkText("x", { size: 100, overlap: 100 })).toThrow(/overlap must be smaller than size/);
    expect(() => chunkText("x", { size: 1.5 })).toThrow(/size/);
  });
});
