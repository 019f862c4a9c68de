import { basename } from "node:path";
import { closestKey, keySpec, knownKeys, namesOf, REQUIRED_KEYS, valueProblem } from "./configKeys.js";
import { ProjectConfigError } from "./ProjectConfigError.js";
import type { ConfigEntry, ConfigField, ConfigFile, ConfigKind } from "./yamlConfig.js";

/** What YAML names may refer to besides the entries of the two files. */
export interface ProjectRegistry {
  readonly tools: Readonly<Record<string, unknown>>;
  readonly schemas: Readonly<Record<string, unknown>>;
  /** YAML keys built by `@agent` / `@task` methods (a method may build an entry that is not in the YAML). */
  readonly agentMethods: ReadonlySet<string>;
  readonly taskMethods: ReadonlySet<string>;
}

/**
 * Checks every entry of agents.yaml and tasks.yaml before anything is built: unknown keys, values of
 * the wrong type, missing required keys (for entries no method builds), and names that refer to
 * nothing. The first problem is thrown as a ProjectConfigError with its file and line.
 */
export function checkConfigs(agents: ConfigFile, tasks: ConfigFile, registry: ProjectRegistry): void {
  const agentNames = new Set([...agents.entries.keys(), ...registry.agentMethods]);
  const taskNames = new Set([...tasks.entries.keys(), ...registry.taskMethods]);
  for (const entry of agents.entries.values()) checkEntry("agent", entry, agents, registry.agentMethods.has(entry.name));
  for (const entry of tasks.entries.values()) checkEntry("task", entry, tasks, registry.taskMethods.has(entry.name));

  const fail = (file: ConfigFile, entry: ConfigEntry, field: ConfigField, message: string): never => {
    throw new ProjectConfigError(`${kindOf(file, agents)} "${entry.name}": ${message}`, file.label, field.line ?? entry.line);
  };
  const checkRefs = (file: ConfigFile, entry: ConfigEntry): void => {
    for (const field of entry.fields.values()) {
      const spec = keySpec(kindOf(file, agents), field.key)!;
      if (spec.kind === "agentRef") {
        const name = String(field.value).trim();
        if (!agentNames.has(name)) fail(file, entry, field, `${field.key} "${name}" is not defined in ${fileName(agents)} (known: ${list(agentNames)})`);
      } else if (spec.kind === "taskRefs") {
        for (const name of namesOf(field.value)!) {
          if (name === entry.name) fail(file, entry, field, `${field.key} cannot include the task itself; list the earlier tasks whose output it needs`);
          if (!taskNames.has(name)) fail(file, entry, field, `${field.key} task "${name}" is not defined in ${fileName(tasks)} (known: ${list(taskNames)})`);
        }
      } else if (spec.kind === "toolRefs") {
        for (const name of namesOf(field.value)!) {
          if (!Object.hasOwn(registry.tools, name)) {
            fail(file, entry, field, `tool "${name}" is not registered in the crew class (known: ${list(Object.keys(registry.tools))}). Add it: tools = { ${name}: myTool }`);
          }
        }
      } else if (spec.kind === "schemaRef") {
        const name = String(field.value).trim();
        if (!Object.hasOwn(registry.schemas, name)) {
          fail(file, entry, field, `${field.key} "${name}" is not registered in the crew class (known: ${list(Object.keys(registry.schemas))}). Add it: schemas = { ${name}: z.object({...}) }`);
        }
      }
    }
  };
  for (const entry of agents.entries.values()) checkRefs(agents, entry);
  for (const entry of tasks.entries.values()) checkRefs(tasks, entry);
}

function checkEntry(kind: ConfigKind, entry: ConfigEntry, file: ConfigFile, builtByMethod: boolean): void {
  const seen = new Map<string, string>();
  for (const field of entry.fields.values()) {
    const spec = keySpec(kind, field.key);
    if (!spec) {
      const otherKind: ConfigKind = kind === "agent" ? "task" : "agent";
      const suggestion = closestKey(kind, field.key);
      const hint = keySpec(otherKind, field.key)
        ? `it is ${otherKind === "agent" ? "an agent" : "a task"} setting: move it to the ${otherKind} in ${otherKind}s.yaml`
        : suggestion
          ? `did you mean "${suggestion}"?`
          : `known keys: ${knownKeys(kind).join(", ")}`;
      throw new ProjectConfigError(`${kind} "${entry.name}": unknown key "${field.key}"; ${hint}`, file.label, field.line);
    }
    const twin = seen.get(spec.option);
    if (twin !== undefined) {
      throw new ProjectConfigError(`${kind} "${entry.name}": "${field.key}" and "${twin}" both set ${spec.option}; keep one.`, file.label, field.line);
    }
    seen.set(spec.option, field.key);
    const problem = valueProblem(spec.kind, field.value);
    if (problem) throw new ProjectConfigError(`${kind} "${entry.name}": ${field.key} ${problem}.`, file.label, field.line);
  }
  if (builtByMethod) return;
  for (const required of REQUIRED_KEYS[kind]) {
    if (![...seen.keys()].some((option) => keySpec(kind, required)!.option === option)) {
      throw new ProjectConfigError(`${kind} "${entry.name}" has no ${required}: add "${required}: ..." under it.`, file.label, entry.line);
    }
  }
}

const kindOf = (file: ConfigFile, agents: ConfigFile): ConfigKind => (file === agents ? "agent" : "task");
const fileName = (file: ConfigFile): string => (file.label.endsWith(" config") ? file.label : basename(file.label));
const list = (names: Iterable<string>): string => [...names].join(", ") || "none";
