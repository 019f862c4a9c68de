import { BaseFileKnowledgeSource } from "./BaseFileKnowledgeSource.js";
import { loadOptionalParser } from "./optionalParser.js";

/** Knowledge from Excel workbooks (.xlsx): every sheet as CSV under a `Sheet: <name>` line. */
export class ExcelKnowledgeSource extends BaseFileKnowledgeSource {
  protected override readonly fileKind = "Excel (.xlsx)";

  protected override async parseFile(data: Buffer): Promise<string> {
    const { default: readXlsxFile } = await loadOptionalParser(() => import("read-excel-file/node"), "read-excel-file@^9", "Excel files");
    const sheets = await readXlsxFile(data);
    return sheets.map(({ sheet, data: rows }) => `Sheet: ${sheet}\n${rows.map(csvRow).join("\n")}`).join("\n\n");
  }
}

function csvRow(row: readonly unknown[]): string {
  // The library types a date cell as `typeof Date`; at run time it is a Date instance.
  return row.map((cell) => csvCell(cell as string | number | boolean | Date | null)).join(",");
}

/** A cell as CSV (what CrewAI's pandas `to_csv` writes): quoted when it holds a comma, quote or newline. */
function csvCell(value: string | number | boolean | Date | null | undefined): string {
  if (value === null || value === undefined) return "";
  const text = value instanceof Date ? value.toISOString() : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
