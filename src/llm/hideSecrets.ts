// Options objects are kept as given (Agent.options, Crew.options) and end up in JSON.stringify,
// util.inspect and console.log of the objects holding them. A credential inside them (an embedder's
// apiKey, Mem0's api_key, an Authorization header) is kept readable by name but not enumerable, so
// none of those print it; its getter is not invoked by util.inspect even with showHidden.

// Property names that hold credentials, in our spelling and CrewAI's (snake_case), and header names.
const SECRET_NAME = /^(api[-_]?key|x-api-key|(proxy-)?authorization|(access[-_]?|auth[-_]?|bearer[-_]?)?token|password|(client[-_]?)?secret)$/i;

// Nested configs are rarely more than three levels deep; a cycle or a huge tree is left alone below this.
const MAX_DEPTH = 8;

/** Whether a property of this name holds a credential (apiKey, api_key, token, Authorization, ...). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * A copy of `value` in which every credential-named property of plain objects, at any depth, is a
 * non-enumerable getter: code that reads it by name still gets the key, while JSON.stringify,
 * util.inspect, console.log, spreads and Object.entries do not see it. Class instances, functions and
 * nested objects holding functions (embedders, tools) are kept as they are.
 */
export function hideSecrets<T>(value: T): T {
  return copy(value, 0, true) as T;
}

/**
 * The inverse of hideSecrets: a copy of a plain config with every own property, hidden credentials
 * included, as ordinary enumerable data. For the code that hands a config on to something that spreads
 * or iterates it (the AI SDK's headers, zod records, Object.entries).
 */
export function revealSecrets<T>(value: T): T {
  return copy(value, 0, false) as T;
}

// The options object itself is always copied; below it, an object with methods is code (an embedder,
// a tool), not a config, and copying it would change its identity.
function isPlainData(value: unknown, depth: number): value is Record<string, unknown> | unknown[] {
  if (Array.isArray(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return depth === 0 || !Object.values(value).some((item) => typeof item === "function");
}

function copy(value: unknown, depth: number, hide: boolean): unknown {
  if (depth >= MAX_DEPTH || !isPlainData(value, depth)) return value;
  if (Array.isArray(value)) return value.map((item) => copy(item, depth + 1, hide));
  const out: Record<string, unknown> = Object.getPrototypeOf(value) === null ? (Object.create(null) as Record<string, unknown>) : {};
  for (const name of Object.getOwnPropertyNames(value)) {
    const item = copy(value[name], depth + 1, hide);
    if (hide && typeof item === "string" && isSecretName(name)) {
      Object.defineProperty(out, name, { get: () => item, enumerable: false, configurable: true });
    } else {
      out[name] = item;
    }
  }
  return out;
}
