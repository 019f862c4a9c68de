import { isRecord } from "../mockServer/wireProtocol.js";
import type { CassetteExchange, RecordedRequest, RecordedResponse } from "./cassetteFile.js";
import { sortKeys } from "./cassetteFile.js";

/** How requests are matched to recorded ones. */
export interface CassetteMatchOptions {
  /** Body keys (at any depth) left out of matching and of the cassette, added to DEFAULT_IGNORED_FIELDS. */
  ignoreFields?: string[];
  /** Rewrites a body (after ignoreFields) before matching and storing, e.g. to blank a date in a prompt. */
  normalize?: (body: unknown, request: { method: string; path: string }) => unknown;
}

/**
 * Request fields that vary between runs of the same test, or only carry client bookkeeping:
 * OpenAI's end-user id and stream usage switch, Anthropic's metadata.
 */
export const DEFAULT_IGNORED_FIELDS: readonly string[] = ["user", "stream_options", "metadata", "request_id", "timestamp"];

// Response fields a provider sets anew on every call; two answers differing only here are the same answer.
const VOLATILE_RESPONSE_FIELDS = new Set(["id", "created", "system_fingerprint"]);

function withoutFields(value: unknown, fields: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutFields(item, fields));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (!fields.has(key)) out[key] = withoutFields(item, fields);
  return out;
}

/** Builds the request normaliser once per server. */
export function requestNormalizer(options: CassetteMatchOptions = {}): (method: string, path: string, body: unknown) => RecordedRequest {
  const ignored = new Set([...DEFAULT_IGNORED_FIELDS, ...(options.ignoreFields ?? [])]);
  return (method, path, body) => {
    let clean = withoutFields(body, ignored);
    if (options.normalize) clean = options.normalize(clean, { method, path });
    return { method, path, body: sortKeys(clean) };
  };
}

/** Compact canonical JSON: equal data gives equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? "undefined";
}

/** The key requests are matched by: method, path and the normalised body. */
export function requestKey(request: RecordedRequest): string {
  return `${request.method} ${request.path} ${canonicalJson(request.body)}`;
}

/** Whether two answers are the same apart from the ids and timestamps a provider sets per call. */
export function sameAnswer(a: RecordedResponse, b: RecordedResponse): boolean {
  return canonicalJson(stableView(a)) === canonicalJson(stableView(b));
}

function stableView(response: RecordedResponse): unknown {
  const events = response.events?.map((event) =>
    event.split("\n").map((line) => {
      if (!line.startsWith("data:")) return line;
      try {
        return withoutFields(JSON.parse(line.slice(5)) as unknown, VOLATILE_RESPONSE_FIELDS);
      } catch {
        return line;
      }
    }),
  );
  return { status: response.status, headers: response.headers, json: withoutFields(response.json, VOLATILE_RESPONSE_FIELDS), text: response.text, events };
}

/** The recorded exchange most like `request`, with where the two first differ. */
export function closestExchange(request: RecordedRequest, exchanges: readonly CassetteExchange[]): { index: number; difference: string } | undefined {
  const wanted = canonicalJson(request.body);
  let best: { index: number; score: number } | undefined;
  exchanges.forEach((exchange, index) => {
    const recorded = exchange.request;
    const route = (recorded.method === request.method ? 2 : 0) + (recorded.path === request.path ? 1 : 0);
    // Shared prefix plus suffix of the canonical bodies: cheap, and it rewards a single edited spot.
    const score = route * 1e9 + sharedEnds(wanted, canonicalJson(recorded.body));
    if (best === undefined || score > best.score) best = { index, score };
  });
  if (best === undefined) return undefined;
  const recorded = exchanges[best.index]!.request;
  if (recorded.method !== request.method || recorded.path !== request.path) {
    return { index: best.index, difference: `it is ${recorded.method} ${recorded.path}` };
  }
  return { index: best.index, difference: describeDifference(recorded.body, request.body) };
}

function sharedEnds(a: string, b: string): number {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  return start + end;
}

/** Where two bodies first differ, e.g. `messages[1].content: recorded "...", got "..."`. */
export function describeDifference(recorded: unknown, got: unknown, path = ""): string {
  const at = path === "" ? "the body" : path;
  if (Array.isArray(recorded) && Array.isArray(got)) {
    for (let i = 0; i < Math.min(recorded.length, got.length); i++) {
      if (canonicalJson(recorded[i]) !== canonicalJson(got[i])) return describeDifference(recorded[i], got[i], `${path}[${i}]`);
    }
    return `${at} has ${got.length} items, recorded ${recorded.length}`;
  }
  if (isRecord(recorded) && isRecord(got)) {
    for (const key of [...new Set([...Object.keys(recorded), ...Object.keys(got)])].sort()) {
      if (canonicalJson(recorded[key]) === canonicalJson(got[key])) continue;
      const child = path === "" ? key : `${path}.${key}`;
      if (!(key in got)) return `${child} is missing (recorded ${excerpt(canonicalJson(recorded[key]), 0)})`;
      if (!(key in recorded)) return `${child} was not recorded (got ${excerpt(canonicalJson(got[key]), 0)})`;
      return describeDifference(recorded[key], got[key], child);
    }
    return `${at} is the same`;
  }
  if (typeof recorded === "string" && typeof got === "string") {
    let from = 0;
    while (from < recorded.length && from < got.length && recorded[from] === got[from]) from++;
    return `${at} differs at character ${from}: recorded ${excerpt(recorded, from)}, got ${excerpt(got, from)}`;
  }
  return `${at}: recorded ${excerpt(canonicalJson(recorded), 0)}, got ${excerpt(canonicalJson(got), 0)}`;
}

// A short window around the first difference: LLM errors keep only the start of a provider's message.
function excerpt(text: string, from: number): string {
  const start = Math.max(0, from - 20);
  const piece = text.slice(start, from + 40);
  return `${start > 0 ? "…" : ""}${JSON.stringify(piece)}${from + 40 < text.length ? "…" : ""}`;
}
