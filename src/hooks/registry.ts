import type {
  GlobalAfterKickoffHook,
  AfterLLMCallHook,
  AfterToolCallHook,
  GlobalBeforeKickoffHook,
  BeforeLLMCallHook,
  BeforeToolCallHook,
  AfterStepHook,
  BeforeStepHook,
  HookFilter,
} from "./types.js";

/** One global registration: the hook and the agents and tools it is limited to. */
export interface Registration<F> {
  readonly fn: F;
  readonly agents: ReadonlySet<string> | undefined;
  readonly tools: ReadonlySet<string> | undefined;
}

/**
 * Every global hook, by kind. Each list is replaced (never changed in place) on register and
 * unsubscribe, so a run that is iterating one is not disturbed.
 */
export const globalHooks = {
  beforeLLMCall: [] as readonly Registration<BeforeLLMCallHook>[],
  afterLLMCall: [] as readonly Registration<AfterLLMCallHook>[],
  beforeToolCall: [] as readonly Registration<BeforeToolCallHook>[],
  afterToolCall: [] as readonly Registration<AfterToolCallHook>[],
  beforeKickoff: [] as readonly Registration<GlobalBeforeKickoffHook>[],
  afterKickoff: [] as readonly Registration<GlobalAfterKickoffHook>[],
  beforeStep: [] as readonly Registration<BeforeStepHook>[],
  afterStep: [] as readonly Registration<AfterStepHook>[],
};

type Kind = keyof typeof globalHooks;

function register<K extends Kind>(kind: K, fn: unknown, filter: HookFilter | undefined): () => void {
  if (typeof fn !== "function") throw new TypeError(`${kind}() needs a function, e.g. ${kind}((ctx) => { ... }).`);
  for (const key of ["agents", "tools"] as const) {
    const list = filter?.[key];
    if (list !== undefined && (!Array.isArray(list) || list.some((v) => typeof v !== "string"))) {
      throw new TypeError(`${kind}(): the filter's ${key} must be a list of names, e.g. { ${key}: ["${key === "agents" ? "Researcher" : "search"}"] }.`);
    }
  }
  const entry = {
    fn,
    agents: filter?.agents ? new Set(filter.agents) : undefined,
    tools: filter?.tools ? new Set(filter.tools) : undefined,
  } as (typeof globalHooks)[K][number];
  (globalHooks[kind] as readonly unknown[]) = [...globalHooks[kind], entry];
  let registered = true;
  return () => {
    if (!registered) return;
    registered = false;
    (globalHooks[kind] as readonly unknown[]) = globalHooks[kind].filter((e) => e !== entry);
  };
}

/** Registers a hook run before every LLM call of an agent (all agents, or those in `filter.agents`); returns an unsubscribe. */
export function beforeLLMCall(hook: BeforeLLMCallHook, filter?: HookFilter): () => void {
  return register("beforeLLMCall", hook, filter);
}

/** Registers a hook run after every LLM call of an agent; a returned string replaces the response. Returns an unsubscribe. */
export function afterLLMCall(hook: AfterLLMCallHook, filter?: HookFilter): () => void {
  return register("afterLLMCall", hook, filter);
}

/** Registers a hook run before every tool call (filter by `agents` and `tools`); false blocks the call. Returns an unsubscribe. */
export function beforeToolCall(hook: BeforeToolCallHook, filter?: HookFilter): () => void {
  return register("beforeToolCall", hook, filter);
}

/** Registers a hook run after every tool call; a returned string replaces the result. Returns an unsubscribe. */
export function afterToolCall(hook: AfterToolCallHook, filter?: HookFilter): () => void {
  return register("afterToolCall", hook, filter);
}

/** Registers a hook run before every crew and flow kickoff (after a crew's own beforeKickoff); returns an unsubscribe. */
export function beforeKickoff(hook: GlobalBeforeKickoffHook): () => void {
  return register("beforeKickoff", hook, undefined);
}

/** Registers a hook run after every crew and flow kickoff (after a crew's own afterKickoff); returns an unsubscribe. */
export function afterKickoff(hook: GlobalAfterKickoffHook): () => void {
  return register("afterKickoff", hook, undefined);
}

/** Registers a hook run before every crew task and flow method (task steps filtered by `agents`); returns an unsubscribe. */
export function beforeStep(hook: BeforeStepHook, filter?: HookFilter): () => void {
  return register("beforeStep", hook, filter);
}

/** Registers a hook run after every crew task and flow method; a returned value replaces the output. Returns an unsubscribe. */
export function afterStep(hook: AfterStepHook, filter?: HookFilter): () => void {
  return register("afterStep", hook, filter);
}
