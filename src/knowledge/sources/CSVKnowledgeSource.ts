import { BaseFileKnowledgeSource } from "./BaseFileKnowledgeSource.js";
import { loadOptionalParser } from "./optionalParser.js";

/** Knowledge from CSV files: one line per row, cells joined by spaces (as CrewAI). */
export class CSVKnowledgeSource extends BaseFileKnowledgeSource {
  protected override readonly fileKind = "CSV";

  protected override async parseFile(data: Buffer): Promise<string> {
    const { parse } = await loadOptionalParser(() => import("csv-parse/sync"), "csv-parse@^7", "CSV files");
    const rows: string[][] = parse(data, { bom: true, relax_column_count: true, skip_empty_lines: true });
    return rows.map((row) => row.join(" ")).join("\n");
  }
}
