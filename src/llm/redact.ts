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

// Short values would turn ordinary words into "[redacted]"; real keys are far longer.
const MIN_SECRET_LENGTH = 4;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Removes API keys from `text`: the given secrets, the keys found in the provider env vars, and
 * anything shaped like a key (`sk-...`, `sk-ant-...`, `Bearer ...`, `api_key=...`).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  const known = [...secrets, ...API_KEY_ENV_VARS.map((name) => process.env[name])];
  for (const secret of known) {
    if (secret === undefined || secret.length < MIN_SECRET_LENGTH) continue;
    out = out.replace(new RegExp(escapeRegExp(secret), "g"), REDACTED);
  }
  for (const [pattern, replacement] of KEY_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * Redacts, in place, the texts an error carries (message, stack, provider response body), so that
 * logging it, its `cause` included, never prints a key.
 */
export function scrubError(error: unknown, secrets: readonly (string | undefined)[] = []): void {
  if (typeof error !== "object" || error === null) return;
  const record = error as Record<string, unknown>;
  for (const field of ["message", "stack", "responseBody"]) {
    const value = record[field];
    if (typeof value !== "string") continue;
    try {
      record[field] = redactSecrets(value, secrets);
    } catch {
      // A frozen or getter-only field cannot hold a key we put there; leave it.
    }
  }
}
