import type { Agent } from "../agent/Agent.js";
import { Crew } from "../crew/Crew.js";
import type { AfterKickoffHook, BeforeKickoffHook } from "../crew/CrewOptions.js";
import { afterKickoff as registerAfterKickoff, beforeKickoff as registerBeforeKickoff } from "../hooks/registry.js";
import type { GlobalAfterKickoffHook, GlobalBeforeKickoffHook } from "../hooks/types.js";
import type { Task } from "../task/Task.js";
import type { AgentConfig, CrewBase, TaskConfig } from "./CrewBase.js";
import { projectMethodsOf, recordProjectMethod, type ProjectMethodKind } from "./projectMethods.js";

type AgentMethod = (config: AgentConfig) => Agent;
type TaskMethod = (config: TaskConfig) => Task;
type CrewMethod = () => Crew;
type MethodDecorator<M extends AgentMethod | TaskMethod | CrewMethod | BeforeKickoffHook | AfterKickoffHook> = <This extends CrewBase>(method: M, context: ClassMethodDecoratorContext<This, M>) => M;

/**
 * Marks a method that builds an agent from its agents.yaml entry, which it receives as `config`
 * (CrewAI's `@agent`). The entry is the one named like the method (`researcher`, or `reportingAnalyst`
 * for `reporting_analyst`), or the one given: `@agent("lead")`. Built once per crew instance.
 */
export function agent<This extends CrewBase, M extends AgentMethod>(method: M, context: ClassMethodDecoratorContext<This, M>): M;
export function agent(key?: string): MethodDecorator<AgentMethod>;
export function agent(...args: unknown[]): unknown {
  return decorate("agent", args, (self, name) => self.agent(name));
}

/** Marks a method that builds a task from its tasks.yaml entry (CrewAI's `@task`); as `@agent`. */
export function task<This extends CrewBase, M extends TaskMethod>(method: M, context: ClassMethodDecoratorContext<This, M>): M;
export function task(key?: string): MethodDecorator<TaskMethod>;
export function task(...args: unknown[]): unknown {
  return decorate("task", args, (self, name) => self.task(name));
}

/** Marks the method that assembles the Crew (CrewAI's `@crew`); `@beforeKickoff` / `@afterKickoff` methods are attached to what it returns. */
export function crew<This extends CrewBase, M extends CrewMethod>(method: M, context: ClassMethodDecoratorContext<This, M>): M;
export function crew(): MethodDecorator<CrewMethod>;
export function crew(...args: unknown[]): unknown {
  return decorate("crew", args, (self, _name, original) => withKickoffHooks(self, original.call(self)));
}

/**
 * As a decorator, runs the method with the kickoff inputs before every kickoff of the `@crew` crew (it
 * may return new inputs). Called with one function, registers a global hook run before every crew and
 * flow kickoff and returns its unsubscribe.
 */
export function beforeKickoff(hook: GlobalBeforeKickoffHook): () => void;
export function beforeKickoff<This extends CrewBase, M extends BeforeKickoffHook>(method: M, context: ClassMethodDecoratorContext<This, M>): M;
export function beforeKickoff(): MethodDecorator<BeforeKickoffHook>;
export function beforeKickoff(...args: unknown[]): unknown {
  if (args.length === 1 && typeof args[0] === "function") return registerBeforeKickoff(args[0] as GlobalBeforeKickoffHook);
  return decorate("beforeKickoff", args);
}

/**
 * As a decorator, runs the method with the crew's output after every kickoff of the `@crew` crew (it
 * may return a new output). Called with one function, registers a global hook run after every crew
 * and flow kickoff and returns its unsubscribe.
 */
export function afterKickoff(hook: GlobalAfterKickoffHook): () => void;
export function afterKickoff<This extends CrewBase, M extends AfterKickoffHook>(method: M, context: ClassMethodDecoratorContext<This, M>): M;
export function afterKickoff(): MethodDecorator<AfterKickoffHook>;
export function afterKickoff(...args: unknown[]): unknown {
  if (args.length === 1 && typeof args[0] === "function") return registerAfterKickoff(args[0] as GlobalAfterKickoffHook);
  return decorate("afterKickoff", args);
}

type Original = (this: CrewBase, ...args: unknown[]) => unknown;
type Replacement = (self: CrewBase, name: string, original: Original) => unknown;

// `@x` receives (method, context); `@x()` and `@x("key")` return the decorator.
function decorate(kind: ProjectMethodKind, args: unknown[], replace?: Replacement): unknown {
  if (typeof args[0] === "function") return apply(kind, undefined, args[0] as Original, args[1] as ClassMethodDecoratorContext, replace);
  const key = args[0];
  if (key !== undefined && (typeof key !== "string" || key.trim() === "")) {
    throw new TypeError(`@${kind}(key): key must be the name of a YAML entry, e.g. @${kind}("research_task"); got ${typeof key}.`);
  }
  return (method: Original, context: ClassMethodDecoratorContext) => apply(kind, key, method, context, replace);
}

function apply(kind: ProjectMethodKind, key: string | undefined, method: Original, context: ClassMethodDecoratorContext, replace: Replacement | undefined): Original {
  if (context?.kind !== "method" || context.static || context.private || typeof context.name !== "string") {
    throw new TypeError(`@${kind} applies to public instance methods of a CrewBase subclass; ${String(context?.name)} is not one.`);
  }
  const name = context.name;
  const installed: Original = replace
    ? function (this: CrewBase) {
        return replace(this, name, method);
      }
    : method;
  recordProjectMethod(installed, { kind, name, key, original: method });
  return installed;
}

/** The crew with the class's `@beforeKickoff` / `@afterKickoff` methods added to its hooks. */
function withKickoffHooks(self: CrewBase, built: unknown): unknown {
  if (!(built instanceof Crew)) {
    throw new TypeError(`The @crew method must return new Crew({ agents: this.agents, tasks: this.tasks, ... }); it returned ${built === null ? "null" : typeof built}.`);
  }
  const methods = projectMethodsOf(self);
  const before = methods.filter((m) => m.kind === "beforeKickoff").map((m) => (m.original as BeforeKickoffHook).bind(self));
  const after = methods.filter((m) => m.kind === "afterKickoff").map((m) => (m.original as AfterKickoffHook).bind(self));
  if (before.length === 0 && after.length === 0) return built;
  return new Crew({
    ...built.options,
    beforeKickoff: [...before, ...(built.options.beforeKickoff ?? [])],
    afterKickoff: [...(built.options.afterKickoff ?? []), ...after],
  });
}
