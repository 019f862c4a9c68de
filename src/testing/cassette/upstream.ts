import type { RecordedResponse } from "./cassetteFile.js";

/** Where record mode forwards requests: one base URL for all, or one per protocol. */
export type CassetteUpstream = string | { openai?: string; anthropic?: string };

/** The real APIs, used for a protocol the `upstream` option does not name. */
export const DEFAULT_UPSTREAMS = { openai: "https://api.openai.com/v1", anthropic: "https://api.anthropic.com/v1" } as const;

// Hop-by-hop headers belong to one connection, not to the request; accept-encoding is dropped so the
// upstream's reply is readable as is.
const NOT_FORWARDED = new Set(["host", "connection", "keep-alive", "content-length", "transfer-encoding", "upgrade", "accept-encoding", "proxy-connection"]);

// The only response headers kept: those a client acts on. Cookies, request ids and dates never are.
const KEPT_RESPONSE_HEADERS = ["content-type", "retry-after", "retry-after-ms"];

/** The base URL of the upstream serving `protocol`, without a trailing slash. */
export function upstreamBase(upstream: CassetteUpstream | undefined, protocol: "openai" | "anthropic"): string {
  const base = typeof upstream === "string" ? upstream : (upstream?.[protocol] ?? DEFAULT_UPSTREAMS[protocol]);
  return base.replace(/\/+$/, "");
}

/**
 * The upstream URL for a request the cassette server received at `pathAndQuery`. Clients are given
 * the server's "/v1" URL, so "/v1" is taken off and the rest appended to the upstream base.
 */
export function upstreamURL(base: string, pathAndQuery: string): string {
  return base + pathAndQuery.replace(/^\/v1(?=[/?]|$)/, "");
}

/** Sends one request to the upstream and reads the whole answer; rejects when it cannot be reached. */
export async function forwardRequest(
  url: string,
  request: { method: string; headers: Record<string, string | string[] | undefined>; body: string },
): Promise<RecordedResponse> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  const reply = await fetch(url, { method: request.method, headers, ...(hasBody ? { body: request.body } : {}) });
  const text = await reply.text();
  const kept: Record<string, string> = {};
  for (const name of KEPT_RESPONSE_HEADERS) {
    const value = reply.headers.get(name);
    if (value !== null) kept[name] = value;
  }
  const response: RecordedResponse = { status: reply.status, headers: kept };
  if (/^text\/event-stream/i.test(kept["content-type"] ?? "")) {
    response.events = sseEvents(text);
    return response;
  }
  try {
    response.json = text === "" ? undefined : (JSON.parse(text) as unknown);
    if (response.json === undefined) response.text = text;
  } catch {
    response.text = text;
  }
  return response;
}

/** Splits an SSE body into its events, each ending in a blank line (how it arrived in chunks does not matter). */
export function sseEvents(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((event) => event.trim() !== "")
    .map((event) => `${event.replace(/\r\n/g, "\n")}\n\n`);
}
