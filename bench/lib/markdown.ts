// A minimal markdown table writer.

/** A markdown table; cells are escaped for pipes. */
export function markdownTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const line = (cells: readonly string[]) => `| ${cells.map(esc).join(" | ")} |`;
  return [line(headers), line(headers.map(() => "---")), ...rows.map(line)].join("\n");
}
