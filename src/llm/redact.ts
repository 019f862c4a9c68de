/** Environment variables whose values are API keys, redacted wherever they appear in text we surface. */
export const API_KEY_ENV_VARS = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_COMPATIBLE_API_KEY", "OLLAMA_API_KEY"] as const;

/** What a redacted secret is replaced with. */
export const REDACTED = "[redacted]";

// Shapes of credentials providers echo back in error bodies (OpenAI echoes a masked key on 401).
// The Anthropic pattern comes first so the whole key is replaced, not just its `sk-` tail.
const KEY_PATTERNS: [RegExp, string][] = [
  [/\bsk-ant-[A-Za-z0-9_*-]{6,}/g, REDACTED],
  [/\bsk-[A-Za-z0-9_*-]{6,}/g, REDACTED],
  [/\bBearer\s+[A-Za-z0-9._~+/=*-]{6,}/gi, `Bearer ${REDACTED}`],
  [/\b(x-api-key|api[_-]?key)(["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=*-]{6,}/gi, `$1$2${REDACTED}`],
];

// Placeholder keys of local servers ("EMPTY" for vLLM, "ollama", "none") are not secrets, and
// redacting them would mangle every message that mentions them; real keys are far longer.
const MIN_SECRET_LENGTH = 8;

/**
 * Removes API keys from `text`: the given secrets, the keys found in the provider env vars, and
 * anything shaped like a key (`sk-...`, `sk-ant-...`, `Bearer ...`, `api_key=...`).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of [...secrets, ...API_KEY_ENV_VARS.map((name) => process.env[name])]) {
    if (secret !== undefined && secret.length >= MIN_SECRET_LENGTH) out = out.replaceAll(secret, REDACTED);
  }
  for (const [pattern, replacement] of KEY_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

// How far down `cause` chains and parsed bodies scrubbing goes; SDK errors nest two or three deep.
const MAX_DEPTH = 5;

/**
 * Redacts, in place, the texts an error carries (message, stack and every field of its own: the
 * provider's response body and parsed `data`, a JSON parse error's `text`, the request `url`,
 * headers), down its `cause` chain, so that logging it never prints a key.
 */
export function scrubError(error: unknown, secrets: readonly (string | undefined)[] = []): void {
  for (let current = error, depth = 0; typeof current === "object" && current !== null && depth < MAX_DEPTH; depth++) {
    const record = current as Record<string, unknown>;
    for (const field of new Set(["message", "stack", ...Object.keys(record)])) {
      if (field === "cause" || record[field] === undefined) continue;
      try {
        record[field] = redactValue(record[field], secrets, 0);
      } catch {
        // A frozen or getter-only field cannot hold a key we put there; leave it.
      }
    }
    current = record.cause;
  }
}

// Strings anywhere in a JSON-like value (a parsed error body, headers), redacted into a copy. Other
// objects (a nested error, a Response) are left as they are: they are not ours to rebuild.
function redactValue(value: unknown, secrets: readonly (string | undefined)[], depth: number): unknown {
  if (typeof value === "string") return redactSecrets(value, secrets);
  if (typeof value !== "object" || value === null || depth >= MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets, depth + 1));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactValue(item, secrets, depth + 1);
  return out;
}
