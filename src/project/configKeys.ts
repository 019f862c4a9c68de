import type { ConfigKind } from "./yamlConfig.js";
import { mcpsFromYaml } from "./yamlMcps.js";

/**
 * What a YAML value must be. `ref` values name other things (agents, tasks, tools, models, schemas)
 * and are resolved by the crew class; the others are checked here and passed on.
 */
export type ValueKind =
  | "text"
  | "boolean"
  | "positiveInteger"
  | "nonNegativeInteger"
  | "positiveNumber"
  | "model"
  | "agentRef"
  | "taskRefs"
  | "toolRefs"
  | "schemaRef"
  | "mcpServers";

/** One key a YAML entry may have: the option it fills and what its value must be. */
export interface KeySpec {
  readonly option: string;
  readonly kind: ValueKind;
}

// CrewAI's YAML keys (snake_case) and the crewts option each one fills.
const AGENT_KEYS: Record<string, KeySpec> = {
  role: { option: "role", kind: "text" },
  goal: { option: "goal", kind: "text" },
  backstory: { option: "backstory", kind: "text" },
  llm: { option: "llm", kind: "model" },
  function_calling_llm: { option: "functionCallingLLM", kind: "model" },
  tools: { option: "tools", kind: "toolRefs" },
  mcps: { option: "mcps", kind: "mcpServers" },
  allow_delegation: { option: "allowDelegation", kind: "boolean" },
  verbose: { option: "verbose", kind: "boolean" },
  max_iter: { option: "maxIter", kind: "positiveInteger" },
  max_rpm: { option: "maxRpm", kind: "positiveInteger" },
  max_execution_time: { option: "maxExecutionTime", kind: "positiveNumber" },
  max_retry_limit: { option: "maxRetryLimit", kind: "nonNegativeInteger" },
  reasoning: { option: "reasoning", kind: "boolean" },
  max_reasoning_attempts: { option: "maxReasoningAttempts", kind: "positiveInteger" },
  respect_context_window: { option: "respectContextWindow", kind: "boolean" },
  inject_date: { option: "injectDate", kind: "boolean" },
  date_format: { option: "dateFormat", kind: "text" },
  use_system_prompt: { option: "useSystemPrompt", kind: "boolean" },
  system_template: { option: "systemTemplate", kind: "text" },
  prompt_template: { option: "promptTemplate", kind: "text" },
  response_template: { option: "responseTemplate", kind: "text" },
  native_tool_calling: { option: "nativeToolCalling", kind: "boolean" },
  stream: { option: "stream", kind: "boolean" },
  cache: { option: "cache", kind: "boolean" },
  memory: { option: "memory", kind: "boolean" },
};

const TASK_KEYS: Record<string, KeySpec> = {
  description: { option: "description", kind: "text" },
  expected_output: { option: "expectedOutput", kind: "text" },
  name: { option: "name", kind: "text" },
  agent: { option: "agent", kind: "agentRef" },
  context: { option: "context", kind: "taskRefs" },
  tools: { option: "tools", kind: "toolRefs" },
  output_file: { option: "outputFile", kind: "text" },
  create_directory: { option: "createDirectory", kind: "boolean" },
  async_execution: { option: "asyncExecution", kind: "boolean" },
  markdown: { option: "markdown", kind: "boolean" },
  human_input: { option: "humanInput", kind: "boolean" },
  output_json: { option: "outputSchema", kind: "schemaRef" },
  output_pydantic: { option: "outputSchema", kind: "schemaRef" },
  output_schema: { option: "outputSchema", kind: "schemaRef" },
  guardrail: { option: "guardrail", kind: "text" },
  guardrail_max_retries: { option: "guardrailMaxRetries", kind: "nonNegativeInteger" },
};

/** The required keys of an entry, as YAML spells them. */
export const REQUIRED_KEYS: Record<ConfigKind, readonly string[]> = {
  agent: ["role", "goal", "backstory"],
  task: ["description", "expected_output"],
};

// crewts option names (camelCase) are accepted as well, for projects written in TypeScript style.
const byOption = (table: Record<string, KeySpec>): Record<string, KeySpec> => Object.fromEntries(Object.values(table).map((spec) => [spec.option, spec]));
const AGENT_OPTIONS = byOption(AGENT_KEYS);
const TASK_OPTIONS = byOption(TASK_KEYS);

/** The spec of `key` (snake_case as in CrewAI, or the crewts option name), or undefined for an unknown key. */
export function keySpec(kind: ConfigKind, key: string): KeySpec | undefined {
  const [keys, options] = kind === "agent" ? [AGENT_KEYS, AGENT_OPTIONS] : [TASK_KEYS, TASK_OPTIONS];
  return Object.hasOwn(keys, key) ? keys[key] : Object.hasOwn(options, key) ? options[key] : undefined;
}

/** Every key an entry of `kind` accepts, snake_case. */
export function knownKeys(kind: ConfigKind): string[] {
  return Object.keys(kind === "agent" ? AGENT_KEYS : TASK_KEYS);
}

/** The known key closest to a misspelt one, when one is close enough to be a likely typo. */
export function closestKey(kind: ConfigKind, key: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const candidate of knownKeys(kind)) {
    const distance = editDistance(key.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Checks a plain value against its kind; returns the problem, or undefined when it is fine. */
export function valueProblem(kind: ValueKind, value: unknown): string | undefined {
  switch (kind) {
    case "text":
    case "model":
    case "agentRef":
    case "schemaRef":
      return typeof value === "string" && value.trim() !== "" ? undefined : `must be text, got ${describe(value)}`;
    case "boolean":
      return typeof value === "boolean" ? undefined : `must be true or false, got ${describe(value)}`;
    case "positiveInteger":
      return Number.isInteger(value) && (value as number) > 0 ? undefined : `must be a whole number above 0, got ${describe(value)}`;
    case "nonNegativeInteger":
      return Number.isInteger(value) && (value as number) >= 0 ? undefined : `must be a whole number, 0 or more, got ${describe(value)}`;
    case "positiveNumber":
      return typeof value === "number" && value > 0 ? undefined : `must be a number above 0, got ${describe(value)}`;
    case "taskRefs":
    case "toolRefs":
      return namesOf(value) ? undefined : `must be a list of names, e.g. [first, second], got ${describe(value)}`;
    case "mcpServers": {
      const result = mcpsFromYaml(value);
      return "problem" in result ? result.problem : undefined;
    }
  }
}

/** A list of names from a YAML value: a list of strings, or a single string. */
export function namesOf(value: unknown): string[] | undefined {
  if (typeof value === "string" && value.trim() !== "") return [value.trim()];
  if (Array.isArray(value) && value.every((item) => typeof item === "string" && item.trim() !== "")) return value.map((item: string) => item.trim());
  return undefined;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  return JSON.stringify(value);
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
