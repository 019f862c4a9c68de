import { describe, expect, it } from "vitest";
import { KnowledgeSourceError } from "../../../src/knowledge/sources/errors.js";
import { loadOptionalParser } from "../../../src/knowledge/sources/optionalParser.js";

describe("optional file parsers", () => {
  it("say which package to install when it is missing", async () => {
    const missing = "crewts-parser-that-does-not-exist";
    const load = loadOptionalParser(() => import(/* @vite-ignore */ missing) as Promise<unknown>, "unpdf@~1.7.0", "PDF files");
    await expect(load).rejects.toBeInstanceOf(KnowledgeSourceError);
    await expect(load).rejects.toThrow("Reading PDF files needs the optional package unpdf: run `npm install unpdf@~1.7.0` in your project.");
  });

  it("pass other loading errors through unchanged", async () => {
    const broken = new Error("the parser crashed while loading");
    await expect(loadOptionalParser(() => Promise.reject(broken), "csv-parse@^7", "CSV files")).rejects.toBe(broken);
  });

  it("return the module when it is installed", async () => {
    const mod = await loadOptionalParser(() => import("csv-parse/sync"), "csv-parse@^7", "CSV files");
    expect(typeof mod.parse).toBe("function");
  });
});
