import { BaseFileKnowledgeSource } from "./BaseFileKnowledgeSource.js";
import { loadOptionalParser } from "./optionalParser.js";

/** Knowledge from PDF files: the text of every page, pages separated by a blank line. */
export class PDFKnowledgeSource extends BaseFileKnowledgeSource {
  protected override readonly fileKind = "PDF";

  protected override async parseFile(data: Buffer): Promise<string> {
    // Loaded on first use: pdf.js is large and most crews never read a PDF.
    const { extractText, getDocumentProxy } = await loadOptionalParser(() => import("unpdf"), "unpdf@~1.7.0", "PDF files");
    const pdf = await getDocumentProxy(new Uint8Array(data));
    try {
      const { text } = await extractText(pdf, { mergePages: false });
      return text.map((page) => page.trim()).join("\n\n");
    } finally {
      await pdf.destroy();
    }
  }
}
