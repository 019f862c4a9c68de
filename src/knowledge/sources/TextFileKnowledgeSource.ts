import { BaseFileKnowledgeSource } from "./BaseFileKnowledgeSource.js";

/** Knowledge from plain text and Markdown files (read as UTF-8). */
export class TextFileKnowledgeSource extends BaseFileKnowledgeSource {
  protected override readonly fileKind = "text";

  protected override async parseFile(data: Buffer): Promise<string> {
    // fatal: a binary file given by mistake is an error, not mojibake in the index.
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  }
}
