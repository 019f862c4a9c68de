import { access, mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { TaskValidationError } from "./errors.js";

const SHELL_CHARS = ["|", ";", "&", "<", ">", "`", "$"];

/** The reason `path` is not a safe output file path (CrewAI's checks), or undefined when it is fine. */
export function outputPathProblem(path: string): string | undefined {
  if (!path.trim()) return "it is empty";
  if (path.includes("..")) return "path traversal ('..') is not allowed";
  if (path.startsWith("~")) return "shell expansion ('~') is not allowed; write the full path instead";
  const bad = SHELL_CHARS.find((c) => path.includes(c));
  if (bad) return `shell special characters (${bad}) are not allowed`;
  if (path.includes("\0")) return "it contains a NUL character";
  for (const part of path.split("{").slice(1)) {
    const name = part.split("}")[0] ?? "";
    if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) return `invalid template variable name '{${name}}'; use {name} with letters, digits and underscores`;
  }
  return undefined;
}

/** Throws a TaskValidationError when `path` is not a safe output file path. */
export function checkOutputPath(path: string, task: string): void {
  const problem = outputPathProblem(path);
  if (problem) throw new TaskValidationError(`Invalid outputFile "${path}" for task '${task}': ${problem}. Use a plain relative or absolute file path.`);
}

/** Writes a task's output to `path`, creating parent directories unless `createDirectory` is false. */
export async function writeOutputFile(path: string, content: string, createDirectory: boolean): Promise<void> {
  const directory = dirname(resolve(path));
  if (createDirectory) {
    await mkdir(directory, { recursive: true });
  } else {
    try {
      await access(directory);
    } catch {
      throw new Error(`Directory ${directory} does not exist and createDirectory is false. Create it first, or set createDirectory: true.`);
    }
  }
  await writeFile(path, content, "utf8");
}
