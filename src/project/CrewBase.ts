import type { z } from "zod";
import { Agent } from "../agent/Agent.js";
import type { AgentOptions } from "../agent/AgentOptions.js";
import type { BaseLLM } from "../llm/types.js";
import { Task } from "../task/Task.js";
import type { TaskOptions } from "../task/TaskOptions.js";
import type { BaseTool } from "../tools/BaseTool.js";
import { keySpec, namesOf } from "./configKeys.js";
import { checkConfigs, type ProjectRegistry } from "./checkConfigs.js";
import { mcpsFromYaml } from "./yamlMcps.js";
import { ProjectConfigError } from "./ProjectConfigError.js";
import { projectMethodsOf, type ProjectMethodSpec } from "./projectMethods.js";
import { loadConfig, type ConfigEntry, type ConfigFile, type ConfigKind, type ConfigSource } from "./yamlConfig.js";

/** The options an agents.yaml entry gives: `new Agent(config)` or `new Agent({ ...config, tools })`. */
export type AgentConfig = AgentOptions;

/** The options a tasks.yaml entry gives, its `agent` and `context` already resolved: `new Task(config)`. */
export type TaskConfig = TaskOptions;

/** A tool the YAML `tools:` lists may name: the tool, or a function that makes it (called once per crew instance). */
export type ToolEntry = BaseTool | (() => BaseTool);

/** Options of a CrewBase subclass's constructor. */
export interface CrewBaseOptions {
  /** The model of every agent whose YAML entry names no `llm` (a model string or a BaseLLM). */
  llm?: string | BaseLLM;
}

interface Loaded {
  agents: ConfigFile;
  tasks: ConfigFile;
  /** YAML key -> the decorated method that builds it. */
  agentMethods: Map<string, ProjectMethodSpec>;
  taskMethods: Map<string, ProjectMethodSpec>;
  /** Every agent / task name: YAML order, then methods without a YAML entry. */
  agentNames: string[];
  taskNames: string[];
}

/**
 * A crew defined by YAML and code, as CrewAI's `@CrewBase`: agents.yaml and tasks.yaml give the
 * settings, `@agent` / `@task` methods build each entry (to add tools, models or callbacks in code),
 * and the `@crew` method assembles the Crew from `this.agents` and `this.tasks`. Entries without a
 * method are built straight from their YAML. YAML `agent`, `context`, `tools`, `llm` and
 * `output_json` values are resolved by name; every mistake names the file, the line and the key.
 */
export abstract class CrewBase {
  /** agents.yaml: a path from the working directory, a file URL (`new URL("./config/agents.yaml", import.meta.url)`), or the parsed object. */
  agentsConfig: ConfigSource = "src/config/agents.yaml";
  /** tasks.yaml, as agentsConfig. */
  tasksConfig: ConfigSource = "src/config/tasks.yaml";
  /** Tools the YAML `tools:` lists may name. */
  tools: Record<string, ToolEntry> = {};
  /** Models the YAML `llm:` keys may name; any other `llm:` value is used as a model string ("openai/gpt-4o"). */
  llms: Record<string, string | BaseLLM> = {};
  /** Zod schemas the YAML `output_json` / `output_pydantic` keys may name (the task's outputSchema). */
  schemas: Record<string, z.ZodType> = {};
  /** The model of agents whose YAML names none. */
  readonly llm: string | BaseLLM | undefined;

  #loaded: Loaded | undefined;
  readonly #agents = new Map<string, Agent>();
  readonly #tasks = new Map<string, Task>();
  readonly #tools = new Map<string, BaseTool>();
  // Names being built, to report a task whose context leads back to itself.
  readonly #building: string[] = [];

  constructor(options: CrewBaseOptions = {}) {
    this.llm = options.llm;
  }

  /** Every agent: one per agents.yaml entry in file order, then `@agent` methods without an entry. Built once per instance. */
  get agents(): Agent[] {
    return this.#load().agentNames.map((name) => this.agent(name));
  }

  /** Every task: one per tasks.yaml entry in file order, then `@task` methods without an entry. Built once per instance. */
  get tasks(): Task[] {
    return this.#load().taskNames.map((name) => this.task(name));
  }

  /** The agent built for a YAML key (or the name of its `@agent` method). */
  agent(name: string): Agent {
    const loaded = this.#load();
    const key = this.#keyOf("agent", name);
    const existing = this.#agents.get(key);
    if (existing) return existing;
    const built = this.#build("agent", key, loaded.agentMethods.get(key), loaded.agents, (config) => new Agent(config as AgentOptions));
    if (!(built instanceof Agent)) throw new ProjectConfigError(`@agent method "${loaded.agentMethods.get(key)?.name}" must return new Agent({...}); it returned ${describe(built)}.`);
    this.#agents.set(key, built);
    return built;
  }

  /** The task built for a YAML key (or the name of its `@task` method). */
  task(name: string): Task {
    const loaded = this.#load();
    const key = this.#keyOf("task", name);
    const existing = this.#tasks.get(key);
    if (existing) return existing;
    const built = this.#build("task", key, loaded.taskMethods.get(key), loaded.tasks, (config) => new Task(config as TaskOptions));
    if (!(built instanceof Task)) throw new ProjectConfigError(`@task method "${loaded.taskMethods.get(key)?.name}" must return new Task({...}); it returned ${describe(built)}.`);
    this.#tasks.set(key, built as Task);
    return built as Task;
  }

  /** The Agent options of an agents.yaml entry, with tools and models resolved (a new object each call). */
  agentConfig(name: string): AgentConfig {
    const loaded = this.#load();
    return this.#options("agent", this.#entry(loaded.agents, "agent", name)) as unknown as AgentConfig;
  }

  /** The Task options of a tasks.yaml entry, with agent, context, tools and schema resolved (a new object each call). */
  taskConfig(name: string): TaskConfig {
    const loaded = this.#load();
    return this.#options("task", this.#entry(loaded.tasks, "task", name)) as unknown as TaskConfig;
  }

  #load(): Loaded {
    if (this.#loaded) return this.#loaded;
    const agents = loadConfig(this.agentsConfig, "agent");
    const tasks = loadConfig(this.tasksConfig, "task");
    const methods = projectMethodsOf(this);
    const agentMethods = methodsByKey(methods, "agent", agents);
    const taskMethods = methodsByKey(methods, "task", tasks);
    const registry: ProjectRegistry = { tools: this.tools, schemas: this.schemas, agentMethods: new Set(agentMethods.keys()), taskMethods: new Set(taskMethods.keys()) };
    checkConfigs(agents, tasks, registry);
    this.#loaded = {
      agents,
      tasks,
      agentMethods,
      taskMethods,
      agentNames: [...new Set([...agents.entries.keys(), ...agentMethods.keys()])],
      taskNames: [...new Set([...tasks.entries.keys(), ...taskMethods.keys()])],
    };
    return this.#loaded;
  }

  /** The YAML key for a key or a method name. */
  #keyOf(kind: ConfigKind, name: string): string {
    const loaded = this.#load();
    const [file, methods] = kind === "agent" ? [loaded.agents, loaded.agentMethods] : [loaded.tasks, loaded.taskMethods];
    if (file.entries.has(name) || methods.has(name)) return name;
    for (const [key, spec] of methods) if (spec.name === name) return key;
    const known = [...new Set([...file.entries.keys(), ...methods.keys()])];
    throw new ProjectConfigError(`no ${kind} named "${name}" in ${file.label} or the crew class (known: ${known.join(", ") || "none"}).`);
  }

  #entry(file: ConfigFile, kind: ConfigKind, name: string): ConfigEntry {
    const entry = file.entries.get(name);
    if (!entry) throw new ProjectConfigError(`${kind} "${name}" is not defined in ${file.label} (known: ${[...file.entries.keys()].join(", ") || "none"}).`);
    return entry;
  }

  #build(kind: ConfigKind, key: string, method: ProjectMethodSpec | undefined, file: ConfigFile, fromConfig: (config: object) => unknown): unknown {
    const label = `${kind}:${key}`;
    if (this.#building.includes(label)) {
      const cycle = [...this.#building.slice(this.#building.indexOf(label)), label].map((step) => step.split(":")[1]).join(" -> ");
      throw new ProjectConfigError(`${kind} "${key}": its context leads back to itself (${cycle}). Remove one of these context links.`, file.label, file.entries.get(key)?.line);
    }
    this.#building.push(label);
    const entry = file.entries.get(key);
    try {
      if (method) {
        const config = entry ? this.#options(kind, entry) : missingConfig(kind, key, method.name, file);
        return (method.original as (this: CrewBase, config: object) => unknown).call(this, config);
      }
      return fromConfig(this.#options(kind, entry!));
    } catch (error) {
      // crewts's own validation errors get the YAML location; errors of user code keep their stack as they are.
      if (error instanceof ProjectConfigError || !(error instanceof Error) || BUILTIN_ERRORS.has(error.name)) throw error;
      // A bad MODEL in the environment is not a mistake in the YAML file.
      if ((error as { environmentVariable?: unknown }).environmentVariable !== undefined) throw error;
      throw new ProjectConfigError(`${kind} "${key}": ${error.message}`, entry ? file.label : undefined, entry?.line, { cause: error });
    } finally {
      this.#building.pop();
    }
  }

  /** The crewts options of one YAML entry; values were checked by checkConfigs. */
  #options(kind: ConfigKind, entry: ConfigEntry): Record<string, unknown> {
    const options: Record<string, unknown> = {};
    for (const field of entry.fields.values()) {
      const spec = keySpec(kind, field.key);
      if (!spec) continue;
      const value = field.value;
      switch (spec.kind) {
        case "text":
          options[spec.option] = typeof value === "string" ? value.trim() : value;
          break;
        case "model":
          options[spec.option] = Object.hasOwn(this.llms, String(value)) ? this.llms[String(value)] : String(value).trim();
          break;
        case "toolRefs":
          options[spec.option] = (namesOf(value) ?? []).map((name) => this.#tool(name));
          break;
        case "agentRef":
          options[spec.option] = this.agent(String(value).trim());
          break;
        case "taskRefs":
          options[spec.option] = (namesOf(value) ?? []).map((name) => this.task(name));
          break;
        case "schemaRef":
          options[spec.option] = this.schemas[String(value).trim()];
          break;
        case "mcpServers": {
          const result = mcpsFromYaml(value);
          if ("mcps" in result) options[spec.option] = result.mcps;
          break;
        }
        default:
          options[spec.option] = value;
      }
    }
    if (kind === "agent" && options.llm === undefined && this.llm !== undefined) options.llm = this.llm;
    if (kind === "task" && options.name === undefined) options.name = entry.name;
    return options;
  }

  #tool(name: string): BaseTool {
    let made = this.#tools.get(name);
    if (!made) {
      const entry = this.tools[name]!;
      made = typeof entry === "function" ? entry() : entry;
      this.#tools.set(name, made);
    }
    return made;
  }
}

const BUILTIN_ERRORS = new Set(["Error", "TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "URIError", "AggregateError"]);

/** Maps each decorated method of `kind` to its YAML key: the key it names, its own name, or its name in snake_case. */
function methodsByKey(methods: ProjectMethodSpec[], kind: ConfigKind, file: ConfigFile): Map<string, ProjectMethodSpec> {
  const byKey = new Map<string, ProjectMethodSpec>();
  for (const method of methods) {
    if (method.kind !== kind) continue;
    const snake = method.name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
    const key = method.key ?? (file.entries.has(method.name) ? method.name : file.entries.has(snake) ? snake : method.name);
    const other = byKey.get(key);
    if (other) {
      throw new ProjectConfigError(`@${kind} methods "${other.name}" and "${method.name}" both build ${kind} "${key}"; rename one, or name its entry: @${kind}("other_key").`);
    }
    byKey.set(key, method);
  }
  return byKey;
}

/** The config given to a method that has no YAML entry: fine to ignore, an error to read. */
function missingConfig(kind: ConfigKind, key: string, methodName: string, file: ConfigFile): object {
  const fail = (): never => {
    throw new ProjectConfigError(
      `@${kind} method "${methodName}" reads its config, but ${file.label} has no entry "${key}" (known: ${[...file.entries.keys()].join(", ") || "none"}). ` +
        `Add the entry, name it with @${kind}("entry_name"), or build the ${kind} without config.`,
    );
  };
  return new Proxy({}, { get: fail, ownKeys: fail, has: fail, getOwnPropertyDescriptor: fail });
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "object") return (value as { constructor?: { name?: string } }).constructor?.name ?? "an object";
  return typeof value;
}
