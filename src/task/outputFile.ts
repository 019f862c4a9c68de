import { access, mkdir, readlink, realpath, writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { OutputFilePathError } from "./errors.js";

const SHELL_CHARS = ["|", ";", "&", "<", ">", "`", "$"];
// CrewAI checks output_file placeholders with str.isidentifier(); interpolation only knows ASCII names.
const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// As the kernel's limit on symbolic links followed in one lookup (Linux MAXSYMLINKS).
const MAX_LINK_HOPS = 40;

/** What an output file write needs to know about its task: its name and the path as written in its options. */
export interface OutputFileOwner {
  readonly displayName: string;
  readonly options: { readonly outputFile?: string | undefined };
}

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
    if (!PLACEHOLDER_NAME.test(name)) {
      return `Invalid template variable name: ${name} (a {placeholder} may hold only letters, digits and underscores, and may not start with a digit)`;
    }
  }
  return undefined;
}

/**
 * Checks an output file path filled in from inputs (`template` is the path as written): it must pass the
 * checks of a written path and stay inside the folder the inputs may fill (see `inputsRootOf`). Throws an
 * OutputFilePathError naming the task, the path and the fix.
 */
export function checkInterpolatedOutputPath(path: string, template: string, task: string): void {
  const problem = outputPathProblem(path);
  if (problem) throw refused(task, path, `after filling in the inputs, ${problem}`, template);
  const root = inputsRootOf(template);
  if (!isInside(resolve(path), root)) throw refused(task, path, `the inputs move it outside ${root}`, template);
}

/**
 * The folder a path filled from inputs must stay in: the folder written before the first placeholder
 * when the path as written is absolute (the code chose it), else the working directory.
 */
export function inputsRootOf(template: string): string {
  const brace = template.indexOf("{");
  const literal = brace === -1 ? template : template.slice(0, brace);
  if (!isAbsolute(literal)) return process.cwd();
  return /[\\/]$/.test(literal) ? resolve(literal) : dirname(resolve(literal));
}

/**
 * Writes a task's output to `path`, creating parent directories unless `createDirectory` is false.
 * Refuses (OutputFilePathError) a path that leaves the working directory, or the folder its inputs may
 * fill, through a symbolic link; an absolute path written in code outside the working directory is the
 * author's choice and is written as it is.
 */
export async function writeOutputFile(path: string, content: string, createDirectory: boolean, owner: OutputFileOwner): Promise<void> {
  await checkLinks(path, owner);
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

async function checkLinks(path: string, owner: OutputFileOwner): Promise<void> {
  const template = owner.options.outputFile;
  const fromInputs = template !== undefined && template.includes("{");
  const root = fromInputs ? inputsRootOf(template) : process.cwd();
  const target = resolve(path);
  if (!isInside(target, root)) {
    if (!fromInputs) return;
    throw refused(owner.displayName, path, `it is outside ${root}`, template);
  }
  const [realTarget, realRoot] = await Promise.all([whereItLeads(target), whereItLeads(root)]);
  if (!isInside(realTarget, realRoot)) {
    throw refused(owner.displayName, path, `a symbolic link on the way leads to ${realTarget}, outside ${root}`, template);
  }
}

/** Where writing `path` would land once every symbolic link is followed, for paths that do not exist yet too. */
async function whereItLeads(path: string, hops = 0): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const realParent = await whereItLeads(parent, hops);
  // realpath fails on a dangling link, yet writing through it creates its target: follow it by hand.
  let link: string | undefined;
  try {
    link = await readlink(path);
  } catch (error) {
    if (!isMissing(error) && (error as NodeJS.ErrnoException).code !== "EINVAL") throw error;
  }
  if (link === undefined) return join(realParent, basename(path));
  if (hops >= MAX_LINK_HOPS) throw new Error(`Too many symbolic links while resolving ${path}; remove the link loop.`);
  return whereItLeads(resolve(realParent, link), hops + 1);
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function refused(task: string, path: string, reason: string, template: string | undefined): OutputFilePathError {
  let fix: string;
  if (template !== undefined && template.includes("{")) {
    const root = inputsRootOf(template);
    const where = root === process.cwd() ? `${root} (the working directory)` : root;
    fix = `Give inputs that name a file inside ${where}; to write somewhere else, write that folder into the outputFile in code (e.g. "/srv/reports/{name}.md")`;
  } else {
    fix = "Write to a path inside the working directory without links that leave it, or write the absolute path of the real target in the outputFile";
  }
  return new OutputFilePathError(`Refused outputFile "${path}" of task '${task}': ${reason}. ${fix}.`, task, path);
}
