/** The part of a writable stream verbose output needs; process.stdout and process.stderr fit. */
export interface VerboseStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** Terminal width, when the stream is a terminal. */
  columns?: number;
}

/** The styles verbose output uses. */
export type TextStyle = "bold" | "dim" | "red" | "green" | "yellow" | "blue" | "magenta" | "cyan";

// SGR codes: [on, off]. A dozen codes do not justify a dependency, and util.styleText decides on
// colour from process.stdout in newer Node versions, not from the stream we write to.
const CODES: Record<TextStyle, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
};

/** Clears the current terminal line and returns the cursor to its start. */
export const CLEAR_LINE = "\r\x1b[2K";

/** `text` wrapped in the ANSI codes of `styles`. */
export function paint(text: string, ...styles: TextStyle[]): string {
  let out = text;
  for (const style of styles) out = `\x1b[${CODES[style][0]}m${out}\x1b[${CODES[style][1]}m`;
  return out;
}

/**
 * Whether to colour what goes to `stream`, following the common conventions: FORCE_COLOR (other than
 * "0"/"false") forces colour, a non-empty NO_COLOR turns it off, otherwise colour only on a terminal.
 */
export function supportsColor(stream: VerboseStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

/** At most `maxChars` characters and `maxLines` lines of `text`, saying how much was left out. */
export function shorten(text: string, maxChars: number, maxLines: number): string {
  let cut = text;
  const lines = cut.split("\n");
  if (lines.length > maxLines) cut = lines.slice(0, maxLines).join("\n");
  if (cut.length > maxChars) cut = cut.slice(0, maxChars);
  if (cut.length === text.length) return text;
  return `${cut.trimEnd()} … (${text.length - cut.length} more characters)`;
}

/** `line` broken at spaces into lines of at most `width` characters; longer words are split. */
export function wrapLine(line: string, width: number): string[] {
  if (width < 10 || line.length <= width) return [line];
  const out: string[] = [];
  let current = "";
  for (const word of line.split(" ")) {
    let rest = word;
    while (rest.length > width) {
      if (current) out.push(current);
      out.push(rest.slice(0, width));
      rest = rest.slice(width);
      current = "";
    }
    if (!current) current = rest;
    else if (current.length + 1 + rest.length <= width) current += ` ${rest}`;
    else {
      out.push(current);
      current = rest;
    }
  }
  out.push(current);
  return out;
}
