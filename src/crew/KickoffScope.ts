import type { Agent } from "../agent/Agent.js";
import type { AgentStep } from "../agent/AgentExecutor.js";
import type { RequestLimiter } from "../agent/requestLimiters.js";
import type { Knowledge } from "../knowledge/Knowledge.js";
import type { KickoffMemory } from "../memory/MemorySet.js";
import { MCPSession } from "../mcp/MCPSession.js";
import { addToUsageMetrics, emptyUsageMetrics, isEmptyUsage, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { ToolCache } from "../tools/ToolCache.js";

// The usage an agent had when enlisted, for all agents that had none (never changed).
const NO_USAGE: UsageMetrics = Object.freeze(emptyUsageMetrics());

/** What a crew lends its agents for one kickoff. */
export interface KickoffResources {
  cache: ToolCache | undefined;
  rpmLimiter: RequestLimiter | undefined;
  stepCallback: ((step: AgentStep) => void | Promise<void>) | undefined;
  knowledge: Knowledge | undefined;
  memory: KickoffMemory | undefined;
}

/**
 * The crew's resources on its agents for the length of one kickoff: the tool cache, the crew's request
 * limiter and its step callback are attached when an agent is enlisted and taken back on release, so
 * nothing of a finished kickoff stays reachable from the agents (or keeps the process alive). It also
 * measures the tokens each agent used in between.
 */
export class KickoffScope {
  // The enlisted agents and their usage when enlisted, at the same positions: a handful per kickoff, so
  // exact-size arrays (appending makes a new one) rather than a Map.
  private enlisted: Agent[] = [];
  private usageBefore: UsageMetrics[] = [];
  // The kickoff's MCP connections, made when the first agent with `mcps` is enlisted.
  private mcp: MCPSession | undefined;

  constructor(private readonly resources: KickoffResources) {}

  /** Lends the resources to `agent` and starts measuring its usage; enlisting twice is harmless. */
  enlist(agent: Agent): void {
    if (this.enlisted.includes(agent)) return;
    // A run's own copy of an agent starts with no usage: nothing of its own to remember then.
    const before = isEmptyUsage(agent.usageMetrics) ? NO_USAGE : { ...agent.usageMetrics };
    this.enlisted = this.enlisted.length === 0 ? [agent] : [...this.enlisted, agent];
    this.usageBefore = this.usageBefore.length === 0 ? [before] : [...this.usageBefore, before];
    const { cache, rpmLimiter, stepCallback, knowledge, memory } = this.resources;
    if (agent.options.mcps?.length) agent.crewMcp = this.mcp ??= new MCPSession();
    if (cache) agent.toolsCache = cache;
    if (knowledge) agent.crewKnowledge = knowledge;
    if (memory) agent.crewMemory = memory;
    if (rpmLimiter) agent.crewRpmLimiter = rpmLimiter;
    // The agent's own step callback wins; the crew's stands in for agents without one (as CrewAI).
    if (stepCallback) agent.crewStepCallback = stepCallback;
  }

  // Tokens spent outside any agent; most kickoffs have none.
  private extra: UsageMetrics | undefined;

  /** Adds tokens spent outside any agent (the planner's). */
  addUsage(usage: UsageMetrics): void {
    addToUsageMetrics((this.extra ??= emptyUsageMetrics()), usage);
  }

  /** Tokens used by the enlisted agents since they were enlisted, plus those added with addUsage. */
  usage(): UsageMetrics {
    const total = emptyUsageMetrics();
    if (this.extra) addToUsageMetrics(total, this.extra);
    for (let i = 0; i < this.enlisted.length; i++) {
      const now = this.enlisted[i]!.usageMetrics;
      const before = this.usageBefore[i]!;
      addToUsageMetrics(total, {
        promptTokens: now.promptTokens - before.promptTokens,
        completionTokens: now.completionTokens - before.completionTokens,
        totalTokens: now.totalTokens - before.totalTokens,
        successfulRequests: now.successfulRequests - before.successfulRequests,
      });
    }
    return total;
  }

  /** Closes the kickoff's MCP connections (stdio servers stopped, sockets closed), however the kickoff ended. Never throws. */
  closeConnections(): Promise<void> | undefined {
    return this.mcp?.close();
  }

  /** Takes the resources back from every enlisted agent (unless another crew has lent its own since). */
  release(): void {
    const { cache, rpmLimiter, stepCallback, knowledge, memory } = this.resources;
    const mcp = this.mcp;
    // Fields are set to undefined, not deleted: deleting turns an agent into a slow dictionary-mode object.
    for (const agent of this.enlisted) {
      if (knowledge && agent.crewKnowledge === knowledge) agent.crewKnowledge = undefined;
      if (memory && agent.crewMemory === memory) agent.crewMemory = undefined;
      if (cache && agent.toolsCache === cache) agent.toolsCache = undefined;
      if (mcp && agent.crewMcp === mcp) agent.crewMcp = undefined;
      if (rpmLimiter && agent.crewRpmLimiter === rpmLimiter) agent.crewRpmLimiter = undefined;
      if (stepCallback && agent.crewStepCallback === stepCallback) agent.crewStepCallback = undefined;
    }
  }
}
