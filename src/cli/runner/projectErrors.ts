import { readFileSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "../CliError.js";

/** Where an error was thrown in the project's own code: its file (relative to the project), line and column. */
export interface ProjectCodeLocation {
  file: string;
  line: number;
  column: number;
}

// "    at fn (file:///p/src/crew.ts:14:5)" or "    at /p/src/crew.ts:14:5": tsx's source maps make these the .ts lines.
const FRAME = /\(?((?:file:\/\/)?[^\s()]+):(\d+):(\d+)\)?\s*$/;

/** Where `error` was thrown, when its top stack frame (Node's internals aside) is a file of the project outside node_modules. */
export function projectCodeLocation(error: unknown, root: string): ProjectCodeLocation | undefined {
  if (!(error instanceof Error) || typeof error.stack !== "string") return undefined;
  for (const line of error.stack.split("\n").slice(1)) {
    const match = FRAME.exec(line.trim());
    if (!match) continue;
    const path = match[1]!.startsWith("file://") ? safeFileURLToPath(match[1]!) : match[1]!;
    if (path === undefined || !isAbsolute(path)) continue;
    const inside = relative(root, path);
    if (inside.startsWith("..") || isAbsolute(inside) || inside.split(sep).includes("node_modules")) return undefined;
    return { file: inside, line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}

/**
 * A plain JavaScript error (ReferenceError, TypeError, ...) thrown by the project's own code becomes a
 * CliError naming the file, line and source line: it is the project's mistake, not crewts's.
 * Other errors are returned as they are.
 */
export function explainProjectError(error: unknown, root: string): unknown {
  // crewts's own errors (named classes) already say what to do; only JavaScript's own ones are explained.
  if (!(error instanceof Error) || !BUILTIN_ERRORS.has(error.name)) return error;
  const at = projectCodeLocation(error, root);
  if (!at) return error;
  const source = sourceLine(root, at);
  return new CliError(
    `${error.name}: ${error.message}\n  at ${at.file}:${at.line}:${at.column} (in this project's code)` + (source === undefined ? "" : `\n  ${at.line} | ${source}`),
  );
}

const BUILTIN_ERRORS = new Set(["Error", "TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "URIError"]);

function sourceLine(root: string, at: ProjectCodeLocation): string | undefined {
  try {
    return readFileSync(`${root}${sep}${at.file}`, "utf8").split("\n")[at.line - 1]?.trim();
  } catch {
    return undefined;
  }
}

function safeFileURLToPath(url: string): string | undefined {
  try {
    return fileURLToPath(url);
  } catch {
    return undefined;
  }
}
