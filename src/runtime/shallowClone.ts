/**
 * Shallow copies of objects copied over and over (a crew's agents and tasks, copied for each kickoff):
 * a copy has the source's prototype and its own enumerable properties, as `{ __proto__, ...source }`.
 * On Node 20 that spread takes several microseconds for an object of forty fields; a constructor made
 * once for the object's keys assigns them in a fraction of one. The keys are compared on every copy,
 * so a property added to the source later is copied too.
 */

type Cloner = new (source: object) => object;

interface ClonerEntry {
  keys: readonly string[];
  make: Cloner;
}

// The cloner each source used last (the usual case: the same agent copied for every kickoff).
const lastCloner = new WeakMap<object, ClonerEntry>();
// Cloners by prototype and keys, so objects of one shape share one (crews built per request copy new
// agents each time). Bounded: beyond it, shapes get a cloner of their own that is not kept.
const byShape = new Map<string, ClonerEntry>();
const MAX_SHAPES = 64;
const prototypeIds = new WeakMap<object, number>();
let nextPrototypeId = 0;

/** A shallow copy of `source`: same prototype, same own enumerable properties. */
export function shallowClone<T extends object>(source: T): T {
  // Symbol-keyed properties (none on crewts's own objects) take the general path.
  if (Object.getOwnPropertySymbols(source).length > 0) return Object.assign(Object.create(Object.getPrototypeOf(source) as object | null) as T, source);
  const keys = Object.keys(source);
  let entry = lastCloner.get(source);
  if (entry === undefined || !sameKeys(entry.keys, keys)) {
    entry = clonerFor(Object.getPrototypeOf(source) as object | null, keys);
    lastCloner.set(source, entry);
  }
  return new entry.make(source) as T;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function clonerFor(proto: object | null, keys: string[]): ClonerEntry {
  const shape = `${proto === null ? -1 : prototypeId(proto)}\u0000${keys.join("\u0000")}`;
  const known = byShape.get(shape);
  if (known) return known;
  const entry: ClonerEntry = { keys, make: makeCloner(proto, keys) };
  if (byShape.size < MAX_SHAPES) byShape.set(shape, entry);
  return entry;
}

function prototypeId(proto: object): number {
  let id = prototypeIds.get(proto);
  if (id === undefined) {
    id = nextPrototypeId++;
    prototypeIds.set(proto, id);
  }
  return id;
}

function makeCloner(proto: object | null, keys: readonly string[]): Cloner {
  let make: Cloner;
  try {
    // One assignment per key, names quoted by JSON.stringify (any string is a valid quoted key).
    const body = keys.map((key) => `this[${JSON.stringify(key)}] = source[${JSON.stringify(key)}];`).join("\n");
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a constructor made from property names, quoted; nothing else is evaluated
    make = new Function("source", body) as unknown as Cloner;
  } catch {
    // A process run with --disallow-code-generation-from-strings: the same, a key at a time.
    make = function (this: Record<string, unknown>, source: object) {
      for (const key of keys) this[key] = (source as Record<string, unknown>)[key];
    } as unknown as Cloner;
  }
  (make as { prototype: object | null }).prototype = proto;
  return make;
}
