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

// Escape sequences a terminal acts on, so text from models, tools and inputs can never retitle,
// clear or rewrite the terminal: strings (OSC, DCS, SOS, PM, APC) up to their terminator, CSI
// (7-bit and C1), then any other ESC sequence. What stays of a sequence left unterminated is
// harmless text once its ESC is gone (removed with the other controls below).
const ESCAPE_SEQUENCES = [
  // eslint-disable-next-line no-control-regex
  /(?:\x1b[\]PX^_]|[\x90\x98\x9d-\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)/g,
  // eslint-disable-next-line no-control-regex
  /(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]/g,
  // eslint-disable-next-line no-control-regex
  /\x1b[\x20-\x2f]*[\x30-\x7e]/g,
];
// C0 controls but newline and tab, DEL, C1 controls; \r is handled before (a \r\n is a newline).
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// eslint-disable-next-line no-control-regex
const MAYBE_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/**
 * `text` without what a terminal would act on: escape sequences (CSI, OSC and the other strings,
 * any ESC sequence), C0 and C1 controls but newline and tab, and a carriage return not ending a line.
 * For everything printed that comes from models, tools or inputs; our own colour codes are added after.
 */
export function stripControls(text: string): string {
  // Almost every text is clean: one scan, no copy.
  if (!MAYBE_CONTROL.test(text)) return text;
  let out = text.replace(/\r\n/g, "\n");
  for (const pattern of ESCAPE_SEQUENCES) out = out.replace(pattern, "");
  return out.replace(CONTROLS, "");
}

/** Clears the current terminal line and returns the cursor to its start. */
export const CLEAR_LINE = "\r\x1b[2K";

/** `text` wrapped in the ANSI codes of `styles`. */
export function paint(text: string, ...styles: TextStyle[]): string {
  let out = text;
  for (const style of styles) out = `\x1b[${CODES[style][0]}m${out}\x1b[${CODES[style][1]}m`;
  return out;
}

/**
 * Whether to colour what goes to `stream`: only a terminal gets colour (a file or a pipe never gets an
 * escape code, whatever FORCE_COLOR says), and a non-empty NO_COLOR or FORCE_COLOR "0"/"false" turns
 * it off there too. The printer's `color` option overrides this.
 */
export function supportsColor(stream: VerboseStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (stream.isTTY !== true) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return env.FORCE_COLOR !== "0" && env.FORCE_COLOR !== "false";
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
