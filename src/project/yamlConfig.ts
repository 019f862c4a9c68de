import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type * as YAML from "yaml";
import { ProjectConfigError } from "./ProjectConfigError.js";

// The YAML parser is loaded on first use: importing crewts must not pay for it when no crew class reads YAML.
let yamlModule: typeof YAML | undefined;
const yaml = (): typeof YAML => (yamlModule ??= createRequire(import.meta.url)("yaml") as typeof YAML);

/** Where a config comes from: a file path (relative to the working directory), a file URL, or the parsed object itself. */
export type ConfigSource = string | URL | Record<string, unknown>;

/** One key of an entry, with the line it is on. */
export interface ConfigField {
  readonly key: string;
  readonly value: unknown;
  readonly line: number | undefined;
}

/** One top-level entry of agents.yaml or tasks.yaml (an agent or a task and its settings). */
export interface ConfigEntry {
  readonly name: string;
  readonly line: number | undefined;
  /** In file order. */
  readonly fields: ReadonlyMap<string, ConfigField>;
}

/** A loaded agents.yaml or tasks.yaml. */
export interface ConfigFile {
  /** The file as errors show it, e.g. "src/config/agents.yaml" (or "agents config" for an object). */
  readonly label: string;
  /** In file order. */
  readonly entries: ReadonlyMap<string, ConfigEntry>;
}

/** What a config file holds, for messages: "agent" or "task". */
export type ConfigKind = "agent" | "task";

/** Reads and parses a config source; every problem is a ProjectConfigError naming the file and line. */
export function loadConfig(source: ConfigSource, kind: ConfigKind): ConfigFile {
  if (typeof source === "string" || source instanceof URL) {
    const path = source instanceof URL ? fileURLToPath(source) : resolve(source);
    const label = displayPath(path);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "file not found" : (error as Error).message;
      throw new ProjectConfigError(
        `cannot read the ${kind}s config (${reason}). Create it, or point ${kind}sConfig at it (a path from the project folder or new URL("./config/${kind}s.yaml", import.meta.url)).`,
        label,
        undefined,
        { cause: error },
      );
    }
    return parseConfig(text, label, kind);
  }
  if (typeof source !== "object" || source === null || Array.isArray(source)) {
    throw new ProjectConfigError(`${kind}sConfig must be a path, a file URL or an object of ${kind} entries; got ${Array.isArray(source) ? "an array" : typeof source}.`);
  }
  return fromObject(source, `${kind}s config`, kind);
}

/** Parses YAML text; `label` names the file in errors. */
export function parseConfig(text: string, label: string, kind: ConfigKind): ConfigFile {
  const { isMap, isNode, isScalar, LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const [first] = doc.errors;
  if (first) {
    const line = first.linePos?.[0].line;
    const message = (first.message.split("\n")[0] ?? first.message).replace(/ at line \d+, column \d+:?$/, "");
    throw new ProjectConfigError(`invalid YAML: ${message}`, label, line);
  }
  const lineOf = (node: unknown): number | undefined => {
    const range = isNode(node) ? node.range : undefined;
    return range ? lines.linePos(range[0]).line : undefined;
  };
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ""))) return { label, entries: new Map() };
  if (!isMap(root)) {
    throw new ProjectConfigError(`expected a map of ${kind} names to their settings (e.g. "${example(kind)}:" followed by indented keys).`, label, lineOf(root));
  }
  const entries = new Map<string, ConfigEntry>();
  for (const pair of root.items) {
    const name = keyText(pair.key);
    const line = lineOf(pair.key);
    if (name === undefined) throw new ProjectConfigError(`${kind} names must be plain text.`, label, line);
    const value = pair.value;
    if (value === null || (isScalar(value) && value.value === null)) {
      throw new ProjectConfigError(`${kind} "${name}" has no settings: indent its keys (${keysHint(kind)}) under it.`, label, line);
    }
    if (!isMap(value)) {
      throw new ProjectConfigError(`${kind} "${name}" must be a map of settings (${keysHint(kind)}), not ${describeNode(value)}.`, label, line);
    }
    const fields = new Map<string, ConfigField>();
    for (const item of value.items) {
      const key = keyText(item.key);
      if (key === undefined) throw new ProjectConfigError(`${kind} "${name}": setting names must be plain text.`, label, lineOf(item.key));
      fields.set(key, { key, value: toJS(item.value, doc), line: lineOf(item.key) });
    }
    entries.set(name, { name, line, fields });
  }
  return { label, entries };
}

function fromObject(source: Record<string, unknown>, label: string, kind: ConfigKind): ConfigFile {
  const entries = new Map<string, ConfigEntry>();
  for (const [name, settings] of Object.entries(source)) {
    if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
      throw new ProjectConfigError(`${label}: ${kind} "${name}" must be an object of settings (${keysHint(kind)}).`);
    }
    const fields = new Map<string, ConfigField>();
    for (const [key, value] of Object.entries(settings)) fields.set(key, { key, value, line: undefined });
    entries.set(name, { name, line: undefined, fields });
  }
  return { label, entries };
}

/** `path` relative to the working directory when it is inside it, else absolute. */
export function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split("\\").join("/") : path;
}

function keyText(key: unknown): string | undefined {
  const { isScalar } = yaml();
  if (isScalar(key) && (typeof key.value === "string" || typeof key.value === "number")) return String(key.value);
  return undefined;
}

function toJS(node: unknown, doc: YAML.Document): unknown {
  const { isNode } = yaml();
  return isNode(node) ? node.toJS(doc) : node;
}

function describeNode(node: unknown): string {
  const { isScalar } = yaml();
  if (isScalar(node)) return `the value ${JSON.stringify(node.value)}`;
  return "a list";
}

const example = (kind: ConfigKind): string => (kind === "agent" ? "researcher" : "research_task");
const keysHint = (kind: ConfigKind): string => (kind === "agent" ? "role, goal, backstory, ..." : "description, expected_output, agent, ...");
