/** What a crew class method was decorated as. */
export type ProjectMethodKind = "agent" | "task" | "crew" | "beforeKickoff" | "afterKickoff";

/** What a decorator recorded about one method of a crew class. */
export interface ProjectMethodSpec {
  readonly kind: ProjectMethodKind;
  /** The method's name in the class. */
  readonly name: string;
  /** The YAML entry the method builds, when the decorator named it (`@agent("lead_researcher")`). */
  readonly key: string | undefined;
  /** The method as written (decorators install a wrapper in its place). */
  readonly original: (...args: never[]) => unknown;
}

// Keyed by the function installed on the prototype, which is what a scan of the class finds again.
const specs = new WeakMap<object, ProjectMethodSpec>();

/** Records `spec` for the function that now stands in the class for the decorated method. */
export function recordProjectMethod(installed: object, spec: ProjectMethodSpec): void {
  specs.set(installed, spec);
}

/** The decorated methods of an instance's class and its ancestors, in declaration order; a subclass's method replaces its parent's. */
export function projectMethodsOf(instance: object): ProjectMethodSpec[] {
  const chain: object[] = [];
  for (let proto = Object.getPrototypeOf(instance) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    chain.unshift(proto);
  }
  const byName = new Map<string, ProjectMethodSpec>();
  for (const proto of chain) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      const spec = typeof value === "function" ? specs.get(value) : undefined;
      if (spec) byName.set(name, spec);
      else byName.delete(name);
    }
  }
  return [...byName.values()];
}
