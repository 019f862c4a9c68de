import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { isRecord } from "../mockServer/wireProtocol.js";

/** A request as a cassette keeps it: no headers (they carry keys), the body normalised for matching. */
export interface RecordedRequest {
  method: string;
  /** The path without its query string, e.g. "/v1/chat/completions". */
  path: string;
  /** The JSON body after ignoreFields and normalize, the raw text when it is not JSON ("" when none). */
  body: unknown;
}

/** A response as a cassette keeps it: exactly one of `json`, `text` or `events` is set. */
export interface RecordedResponse {
  status: number;
  /** Only the headers a client acts on (content-type, retry-after); never cookies or request ids. */
  headers: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  /** A body that is not JSON. */
  text?: string;
  /** A server-sent event stream, one complete event (ending in a blank line) per entry. */
  events?: string[];
}

/** One request and the answer it got. */
export interface CassetteExchange {
  request: RecordedRequest;
  response: RecordedResponse;
}

/** The contents of a cassette file. */
export interface CassetteData {
  version: 1;
  exchanges: CassetteExchange[];
}

/** A cassette that cannot be used: missing in replay mode, unreadable, malformed, or a bad option. */
export class CassetteError extends Error {
  override name = "CassetteError";
}

/** Reads a cassette; undefined when the file does not exist. */
export async function readCassette(path: string): Promise<CassetteData | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CassetteError(`cannot read cassette ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text) as unknown;
  } catch (error) {
    throw new CassetteError(`cassette ${path} is not valid JSON (${(error as Error).message}); fix the file or delete it and record again.`);
  }
  const problem = cassetteProblem(data);
  if (problem !== undefined) throw new CassetteError(`cassette ${path} is malformed: ${problem}; fix the file or delete it and record again.`);
  return data as CassetteData;
}

function cassetteProblem(data: unknown): string | undefined {
  if (!isRecord(data) || data.version !== 1 || !Array.isArray(data.exchanges)) return 'expected { "version": 1, "exchanges": [...] }';
  for (const [index, exchange] of data.exchanges.entries()) {
    if (!isRecord(exchange) || !isRecord(exchange.request) || !isRecord(exchange.response)) return `exchange ${index} needs a request and a response`;
    const { request, response } = exchange;
    if (typeof request.method !== "string" || typeof request.path !== "string") return `exchange ${index}: request needs a method and a path`;
    if (typeof response.status !== "number" || !isRecord(response.headers)) return `exchange ${index}: response needs a status and headers`;
    if (response.events !== undefined && !(Array.isArray(response.events) && response.events.every((e) => typeof e === "string"))) {
      return `exchange ${index}: response.events must be a list of strings`;
    }
  }
  return undefined;
}

/** Objects with their keys sorted, at every depth: the same data always serialises to the same text. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    if (value[key] !== undefined) out[key] = sortKeys(value[key]);
  }
  return out;
}

/**
 * The cassette as written: sorted keys, two-space indent, one exchange per array entry, final
 * newline. A list of numbers (an embedding) stays on one line, so a vector is one line of a diff.
 */
export function serializeCassette(data: CassetteData, secrets: Iterable<string> = []): string {
  let text = `${pretty(sortKeys(data), "")}\n`;
  // Headers are never stored, but a client may echo its key in a body; such a key goes too.
  for (const secret of secrets) {
    if (secret.length >= 8) text = text.replaceAll(JSON.stringify(secret).slice(1, -1), "[redacted]");
  }
  return text;
}

function pretty(value: unknown, indent: string): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every((item) => typeof item === "number")) return JSON.stringify(value);
    return `[\n${value.map((item) => inner + pretty(item, inner)).join(",\n")}\n${indent}]`;
  }
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${pretty(item, inner)}`).join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value) ?? "null";
}

let tempCounter = 0;

/** Writes through a temp file and a rename, so a crash mid-write never leaves half a cassette. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${++tempCounter}.tmp`;
  try {
    await writeFile(temp, text, "utf8");
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new CassetteError(`cannot write cassette ${path}: ${(error as Error).message}`);
  }
}
