import { emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { TaskOutput } from "../task/index.js";
import { asJsonDict, outputText } from "../task/TaskOutput.js";
import { CrewOutputError } from "./errors.js";

/** The fields a CrewOutput is built from. */
export interface CrewOutputInit<T = unknown> {
  raw: string;
  parsed?: T;
  tasksOutput: TaskOutput[];
  tokenUsage?: UsageMetrics;
}

/** What a crew produced: the final task's output (raw and parsed), every task's output and the tokens used. */
export class CrewOutput<T = unknown> {
  /** The raw text of the last task that produced one. */
  raw: string;
  /** The parsed value of that task, when it has an outputSchema. */
  parsed?: T;
  /** Every task's output, in the order they finished. */
  tasksOutput: TaskOutput[];
  /** Tokens used by every agent (and the manager) during the kickoff. */
  tokenUsage: UsageMetrics;

  constructor(init: CrewOutputInit<T>) {
    this.raw = init.raw;
    if (init.parsed !== undefined) this.parsed = init.parsed;
    this.tasksOutput = init.tasksOutput;
    this.tokenUsage = init.tokenUsage ?? emptyUsageMetrics();
  }

  /**
   * The crew's output from its task outputs: the last one with non-empty raw text is the final one,
   * so a skipped conditional task at the end does not blank the result (CrewAI's _create_crew_output).
   */
  static fromTaskOutputs(tasksOutput: TaskOutput[], tokenUsage: UsageMetrics): CrewOutput {
    const final = tasksOutput.findLast((output) => output.raw !== "");
    if (!final) {
      // A task an agent ran has the agent's conversation; a skipped one has none.
      throw new CrewOutputError(
        tasksOutput.map((output) => ({ task: output.name ?? output.description, agent: output.agent, reason: output.messages.length > 0 ? "empty_answer" : "skipped" })),
      );
    }
    return new CrewOutput({ raw: final.raw, parsed: final.parsed, tasksOutput, tokenUsage });
  }

  /** The parsed value as a plain object, when it is one. */
  get jsonDict(): Record<string, unknown> | undefined {
    return asJsonDict(this.parsed);
  }

  /** The parsed value as JSON text when there is one, else the raw text. */
  toString(): string {
    return outputText(this.raw, this.parsed);
  }

  /** A plain object for JSON.stringify: the fields above and every task output's toJSON(). */
  toJSON(): Record<string, unknown> {
    return {
      raw: this.raw,
      parsed: this.parsed,
      jsonDict: this.jsonDict,
      tasksOutput: this.tasksOutput.map((output) => output.toJSON()),
      tokenUsage: { ...this.tokenUsage },
    };
  }
}
