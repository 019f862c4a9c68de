import { createHash } from "node:crypto";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CSVKnowledgeSource,
  ExcelKnowledgeSource,
  JSONKnowledgeSource,
  KnowledgeSourceError,
  PDFKnowledgeSource,
  StringKnowledgeSource,
  TextFileKnowledgeSource,
  jsonToText,
  resolveKnowledgePath,
} from "../../../src/knowledge/sources/index.js";
import { minimalPdf } from "./pdfFixture.js";

let dir: string;
const file = (name: string): string => path.join(dir, name);
const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "crewts-knowledge-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("StringKnowledgeSource", () => {
  it("chunks its content with CrewAI's defaults and hashes it", async () => {
    const source = new StringKnowledgeSource({ content: "Users name is John. He is 30 years old." });
    expect(source.chunkSize).toBe(4000);
    expect(source.chunkOverlap).toBe(200);
    const chunks = await source.load();
    expect(chunks).toEqual([
      {
        content: "Users name is John. He is 30 years old.",
        metadata: { source: "string", chunkIndex: 0, start: 0, end: 39 },
        contentHash: sha256("Users name is John. He is 30 years old."),
      },
    ]);
  });

  it("honours chunk options and copies user metadata onto every chunk", async () => {
    const content = "Paragraph one is here.\n\nParagraph two is here.\n\nParagraph three is here.";
    const chunks = await new StringKnowledgeSource({
      content,
      chunkSize: 30,
      chunkOverlap: 0,
      metadata: { topic: "test" },
      source: "notes",
    }).load();
    expect(chunks.map((c) => c.content)).toEqual(["Paragraph one is here.", "Paragraph two is here.", "Paragraph three is here."]);
    expect(chunks.every((c) => c.metadata.topic === "test" && c.metadata.source === "notes")).toBe(true);
    expect(new Set(chunks.map((c) => c.contentHash)).size).toBe(1);
  });

  it("rejects invalid options with clear errors", () => {
    expect(() => new StringKnowledgeSource({ content: 42 as unknown as string })).toThrow(
      /Invalid StringKnowledgeSource options: content: content must be a string/,
    );
    expect(() => new StringKnowledgeSource({ content: "x", chunkSize: 100, chunkOverlap: 100 })).toThrow(
      /chunkOverlap \(100\) must be smaller than chunkSize \(100\)/,
    );
    expect(() => new StringKnowledgeSource({ content: "x", chunkSize: -1 })).toThrow(KnowledgeSourceError);
  });
});

describe("file paths", () => {
  it("resolves relative paths under ./knowledge and keeps absolute paths", () => {
    expect(resolveKnowledgePath("a.txt")).toBe(path.resolve("knowledge", "a.txt"));
    expect(resolveKnowledgePath("/data/a.txt")).toBe(path.normalize("/data/a.txt"));
    const source = new TextFileKnowledgeSource({ filePaths: ["a.txt", "/abs/b.md"] });
    expect(source.filePaths).toEqual([path.resolve("knowledge", "a.txt"), "/abs/b.md"]);
    expect(new TextFileKnowledgeSource({ filePaths: "c.txt", knowledgeDirectory: dir }).filePaths).toEqual([file("c.txt")]);
  });

  it("requires at least one path", () => {
    expect(() => new TextFileKnowledgeSource({ filePaths: [] })).toThrow(/Invalid TextFileKnowledgeSource options: filePaths/);
    expect(() => new PDFKnowledgeSource({} as never)).toThrow(/Invalid PDFKnowledgeSource options: filePaths/);
  });

  it("names a missing file and says where files go", async () => {
    const source = new TextFileKnowledgeSource({ filePaths: "missing.txt", knowledgeDirectory: dir });
    const error = await source.load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KnowledgeSourceError);
    expect((error as KnowledgeSourceError).filePath).toBe(file("missing.txt"));
    expect((error as Error).message).toContain(`File not found: ${file("missing.txt")}`);
    expect((error as Error).message).toContain(`knowledge directory (${dir})`);
  });

  it("rejects a directory", async () => {
    await mkdir(file("subdir"), { recursive: true });
    await expect(new TextFileKnowledgeSource({ filePaths: file("subdir") }).load()).rejects.toThrow(/is not a file/);
  });
});

describe("TextFileKnowledgeSource", () => {
  it("reads text and Markdown files, one document per file", async () => {
    await writeFile(file("a.txt"), "Plain text knowledge.");
    await writeFile(file("b.md"), "# Title\n\nSome *markdown* knowledge.");
    const chunks = await new TextFileKnowledgeSource({ filePaths: ["a.txt", "b.md"], knowledgeDirectory: dir }).load();
    expect(chunks.map((c) => [c.content, c.metadata.source])).toEqual([
      ["Plain text knowledge.", file("a.txt")],
      ["# Title\n\nSome *markdown* knowledge.", file("b.md")],
    ]);
    expect(chunks[0]!.contentHash).toBe(sha256("Plain text knowledge."));
    expect(chunks[1]!.contentHash).not.toBe(chunks[0]!.contentHash);
  });

  it("reports a binary file as a broken text file", async () => {
    await writeFile(file("binary.txt"), Buffer.from([0xff, 0xfe, 0xfd, 0x00, 0xc3]));
    await expect(new TextFileKnowledgeSource({ filePaths: file("binary.txt") }).load()).rejects.toThrow(
      `Could not parse text file ${file("binary.txt")}`,
    );
  });
});

describe("PDFKnowledgeSource", () => {
  it("extracts the text of every page", async () => {
    await writeFile(file("doc.pdf"), minimalPdf(["Hello from page one.", "Page two says goodbye."]));
    const chunks = await new PDFKnowledgeSource({ filePaths: file("doc.pdf") }).load();
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.content).toBe("Hello from page one.\n\nPage two says goodbye.");
    expect(chunks[0]!.metadata.source).toBe(file("doc.pdf"));
  });

  it("names a broken PDF", async () => {
    await writeFile(file("broken.pdf"), "this is not a pdf at all");
    const error = await new PDFKnowledgeSource({ filePaths: file("broken.pdf") }).load().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KnowledgeSourceError);
    expect((error as Error).message).toMatch(new RegExp(`^Could not parse PDF file ${file("broken.pdf")}`));
  });
});

describe("CSVKnowledgeSource", () => {
  it("joins the cells of each row with spaces, as CrewAI", async () => {
    await writeFile(file("people.csv"), '\uFEFFname,age,city\nJohn,30,"New York, NY"\n\nJane,25,Paris\n');
    const chunks = await new CSVKnowledgeSource({ filePaths: file("people.csv") }).load();
    expect(chunks.map((c) => c.content)).toEqual(["name age city\nJohn 30 New York, NY\nJane 25 Paris"]);
  });

  it("names a broken CSV", async () => {
    await writeFile(file("broken.csv"), 'a,b\n"unterminated,quote\n');
    await expect(new CSVKnowledgeSource({ filePaths: file("broken.csv") }).load()).rejects.toThrow(
      `Could not parse CSV file ${file("broken.csv")}`,
    );
  });
});

describe("JSONKnowledgeSource", () => {
  it("flattens JSON like CrewAI's _json_to_text", async () => {
    await writeFile(file("data.json"), JSON.stringify({ name: "John", tags: ["a", "b"], address: { city: "Paris" } }));
    const chunks = await new JSONKnowledgeSource({ filePaths: file("data.json") }).load();
    expect(chunks[0]!.content).toBe("name: John\ntags:   - a\n  - b\n\naddress:   city: Paris");
    expect(jsonToText([1, null, true])).toBe("- 1\n- null\n- true\n");
  });

  it("names a broken JSON file", async () => {
    await writeFile(file("broken.json"), "{ not json");
    await expect(new JSONKnowledgeSource({ filePaths: file("broken.json") }).load()).rejects.toThrow(
      `Could not parse JSON file ${file("broken.json")}`,
    );
  });
});

describe("ExcelKnowledgeSource", () => {
  it("reads every sheet as CSV", async () => {
    // Two sheets (People: name, age, note / John, 30, 'says "hi", often'; Cities: city / Paris), written by ExcelJS.
    await copyFile(fileURLToPath(new URL("../../fixtures/knowledge/book.xlsx", import.meta.url)), file("book.xlsx"));

    const chunks = await new ExcelKnowledgeSource({ filePaths: file("book.xlsx") }).load();
    expect(chunks.map((c) => c.content)).toEqual([
      'Sheet: People\nname,age,note\nJohn,30,"says ""hi"", often"\n\nSheet: Cities\ncity\nParis',
    ]);
  });

  it("names a broken workbook", async () => {
    await writeFile(file("broken.xlsx"), "not a zip file");
    await expect(new ExcelKnowledgeSource({ filePaths: file("broken.xlsx") }).load()).rejects.toThrow(
      `Could not parse Excel (.xlsx) file ${file("broken.xlsx")}`,
    );
  });
});
