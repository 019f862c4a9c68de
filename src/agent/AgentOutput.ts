import type { ChatMessage } from "../llm/types.js";
import type { UsageMetrics } from "../llm/UsageMetrics.js";

/** The result of `agent.kickoff(...)`. */
export class AgentOutput<T = unknown> {
  /** The final answer as text. */
  readonly raw: string;
  /** The answer parsed into the requested outputSchema. */
  readonly parsed: T | undefined;
  readonly agentRole: string;
  readonly usageMetrics: UsageMetrics;
  /** The whole conversation. */
  readonly messages: ChatMessage[];

  constructor(init: { raw: string; parsed: T | undefined; agentRole: string; usageMetrics: UsageMetrics; messages: ChatMessage[] }) {
    this.raw = init.raw;
    this.parsed = init.parsed;
    this.agentRole = init.agentRole;
    this.usageMetrics = init.usageMetrics;
    this.messages = init.messages;
  }

  /** The parsed value as a plain object, when it is one. */
  get jsonDict(): Record<string, unknown> | undefined {
    return this.parsed !== null && typeof this.parsed === "object" && !Array.isArray(this.parsed) ? (this.parsed as Record<string, unknown>) : undefined;
  }

  toString(): string {
    return this.raw;
  }

  toJSON(): Record<string, unknown> {
    return { raw: this.raw, parsed: this.parsed, agentRole: this.agentRole, usageMetrics: this.usageMetrics };
  }
}
