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
  const { isAlias, isMap, isNode, isScalar, LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  // merge: `<<: *anchor` (YAML 1.1 merge keys), which CrewAI's PyYAML loader understands too.
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, merge: true });
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
    // An entry may be an alias of another (`writer: *researcher`).
    const value = isAlias(pair.value) ? pair.value.resolve(doc) : pair.value;
    if (value === null || (isScalar(value) && value.value === null)) {
      throw new ProjectConfigError(`${kind} "${name}" has no settings: indent its keys (${keysHint(kind)}) under it.`, label, line);
    }
    if (!isMap(value)) {
      throw new ProjectConfigError(`${kind} "${name}" must be a map of settings (${keysHint(kind)}), not ${describeNode(value)}.`, label, line);
    }
    const fields = new Map<string, ConfigField>();
    addFields(fields, value, new Set(), { label, kind, name, doc, lineOf, merged: new Set() }, 0);
    entries.set(name, { name, line, fields });
  }
  return { label, entries };
}

/** Names the entry an error is about. */
interface EntryPlace {
  label: string;
  kind: ConfigKind;
  name: string;
}

/** What reading one entry's settings works with. */
interface EntryReader extends EntryPlace {
  doc: YAML.Document;
  lineOf(node: unknown): number | undefined;
  /** Maps already merged into the entry: merging one again adds nothing, and skipping it keeps merges of merges linear. */
  merged: Set<YAML.YAMLMap>;
}

// Merges nest (a merged map may merge another); anchors are defined before use, so this only stops a pathological file.
const MAX_MERGE_DEPTH = 20;

/**
 * Adds the settings of `map` to `fields`, YAML merge keys included: a map's own keys win over merged
 * ones, and of several merged maps (`<<: [*a, *b]`) the first wins. `taken` holds keys set by an
 * enclosing map, which a merge here must not replace.
 */
function addFields(fields: Map<string, ConfigField>, map: YAML.YAMLMap, taken: ReadonlySet<string>, reader: EntryReader, depth: number): void {
  const own = new Set(taken);
  for (const item of map.items) {
    const key = keyText(item.key);
    if (key !== undefined) own.add(key);
  }
  for (const item of map.items) {
    if (isMergeKey(item.key)) {
      for (const source of mergeSources(item.value, reader.doc, reader.lineOf(item.key), reader, depth)) {
        if (reader.merged.has(source)) continue;
        reader.merged.add(source);
        addFields(fields, source, own, reader, depth + 1);
      }
      continue;
    }
    const key = keyText(item.key);
    const line = reader.lineOf(item.key);
    if (key === undefined) throw new ProjectConfigError(`${reader.kind} "${reader.name}": setting names must be plain text.`, reader.label, line);
    if (taken.has(key) || fields.has(key)) continue;
    fields.set(key, { key, value: toJS(item.value, reader.doc, reader, line), line });
  }
}

/** The maps a `<<` merges: an alias of a map, a map, or a list of those. */
function mergeSources(value: unknown, doc: YAML.Document, line: number | undefined, where: EntryPlace, depth: number): YAML.YAMLMap[] {
  const { isAlias, isMap, isSeq } = yaml();
  const problem = (what: string) =>
    new ProjectConfigError(
      `${where.kind} "${where.name}": "<<" must merge a map (<<: *anchor) or a list of maps (<<: [*a, *b]), ${what}. Anchor a map of settings (name: &anchor) and merge that.`,
      where.label,
      line,
    );
  if (depth >= MAX_MERGE_DEPTH) throw problem(`but merges nest more than ${MAX_MERGE_DEPTH} deep`);
  const resolve = (node: unknown): YAML.YAMLMap => {
    const target = isAlias(node) ? node.resolve(doc) : node;
    if (!isMap(target)) throw problem(`not ${target === undefined ? "an unknown anchor" : describeNode(target)}`);
    return target;
  };
  return isSeq(value) ? value.items.map(resolve) : [resolve(value)];
}

/** A `<<` key as the parser gives it with merge keys on. */
function isMergeKey(key: unknown): boolean {
  const { isScalar } = yaml();
  return isScalar(key) && typeof key.value === "symbol" && key.value.description === "<<";
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

function toJS(node: unknown, doc: YAML.Document, where: EntryPlace, line: number | undefined): unknown {
  const { isNode } = yaml();
  if (!isNode(node)) return node;
  try {
    return node.toJS(doc);
  } catch (error) {
    // The yaml package stops a "billion laughs" file (aliases of aliases that expand exponentially) with a bare ReferenceError.
    if (error instanceof ReferenceError && /alias count/i.test(error.message)) {
      throw new ProjectConfigError(
        `${where.kind} "${where.name}": too many aliases: this value expands YAML aliases (*name) of aliases more than 100 times, ` +
          "which is how a file exhausts memory. Write the values out, or use fewer aliases.",
        where.label,
        line,
        { cause: error },
      );
    }
    throw error;
  }
}

function describeNode(node: unknown): string {
  const { isMap, isScalar } = yaml();
  if (isScalar(node)) return `the value ${JSON.stringify(node.value)}`;
  return isMap(node) ? "a map" : "a list";
}

const example = (kind: ConfigKind): string => (kind === "agent" ? "researcher" : "research_task");
const keysHint = (kind: ConfigKind): string => (kind === "agent" ? "role, goal, backstory, ..." : "description, expected_output, agent, ...");
