import type { ChatMessage } from "../llm/types.js";

/** The fields a TaskOutput is built from. */
export interface TaskOutputInit<T = unknown> {
  description: string;
  name?: string;
  expectedOutput?: string;
  raw: string;
  parsed?: T;
  agent: string;
  messages?: ChatMessage[];
}

/** What a task produced: the raw text, and the parsed value when the task has an outputSchema. */
export class TaskOutput<T = unknown> {
  readonly description: string;
  readonly name?: string;
  readonly expectedOutput?: string;
  /** The first ten words of the description, as CrewAI summarizes a task. */
  readonly summary: string;
  raw: string;
  parsed?: T;
  /** The role of the agent that produced it. */
  readonly agent: string;
  /** The agent's conversation for this task, when recorded. */
  readonly messages: ChatMessage[];

  constructor(init: TaskOutputInit<T>) {
    this.description = init.description;
    if (init.name !== undefined) this.name = init.name;
    if (init.expectedOutput !== undefined) this.expectedOutput = init.expectedOutput;
    this.summary = `${init.description.split(/\s+/).filter(Boolean).slice(0, 10).join(" ")}...`;
    this.raw = init.raw;
    if (init.parsed !== undefined) this.parsed = init.parsed;
    this.agent = init.agent;
    this.messages = init.messages ?? [];
  }

  /** "json" when the output was parsed into a schema, else "raw". */
  get outputFormat(): "raw" | "json" {
    return this.parsed === undefined ? "raw" : "json";
  }

  /** The parsed value as a plain object, when it is one. */
  get jsonDict(): Record<string, unknown> | undefined {
    return asJsonDict(this.parsed);
  }

  /** The output as JSON text when parsed, else the raw text (what output files and `String()` show). */
  toString(): string {
    return outputText(this.raw, this.parsed);
  }

  /** A plain object for JSON.stringify (and the task output store): every field above, the messages left out. */
  toJSON(): Record<string, unknown> {
    return {
      description: this.description,
      name: this.name,
      expectedOutput: this.expectedOutput,
      summary: this.summary,
      raw: this.raw,
      parsed: this.parsed,
      jsonDict: this.jsonDict,
      agent: this.agent,
      outputFormat: this.outputFormat,
    };
  }
}

/** A parsed value as a plain object, when it is one (CrewAI's json_dict); shared by TaskOutput and CrewOutput. */
export function asJsonDict(parsed: unknown): Record<string, unknown> | undefined {
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}

/** The parsed value as pretty JSON when there is one, else the raw text. */
export function outputText(raw: string, parsed: unknown): string {
  return parsed !== undefined ? JSON.stringify(parsed, null, 2) : raw;
}
