import { BaseFileKnowledgeSource } from "./BaseFileKnowledgeSource.js";

/** Knowledge from JSON files, flattened to indented `key: value` and `- item` lines (as CrewAI). */
export class JSONKnowledgeSource extends BaseFileKnowledgeSource {
  protected override readonly fileKind = "JSON";

  protected override async parseFile(data: Buffer): Promise<string> {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(data);
    return jsonToText(JSON.parse(text) as unknown);
  }
}

/** CrewAI's `_json_to_text`: objects as `key: value` lines, arrays as `- item` lines, nested levels indented. */
export function jsonToText(data: unknown, level = 0): string {
  const indent = "  ".repeat(level);
  if (Array.isArray(data)) {
    return data.map((item) => `${indent}- ${jsonToText(item, level + 1)}\n`).join("");
  }
  if (data !== null && typeof data === "object") {
    return Object.entries(data).map(([key, value]) => `${indent}${key}: ${jsonToText(value, level + 1)}\n`).join("");
  }
  return String(data);
}
