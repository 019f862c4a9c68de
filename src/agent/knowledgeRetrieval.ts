import { eventBus } from "../events/EventBus.js";
import { knowledgeContext, type Knowledge, type KnowledgeConfig } from "../knowledge/Knowledge.js";
import { callLLM } from "../llm/callLLM.js";
import type { BaseLLM, CallSource } from "../llm/types.js";
import { addToUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";

const REWRITE_SYSTEM =
  "You write search queries for a knowledge base. Given a task, reply with one short query (a few keywords or a " +
  "short phrase) that finds the facts needed to do it. Reply with the query only, no quotes, no explanation.";

/** Where an agent looks things up before a task: its own knowledge, then its crew's. */
export interface KnowledgeLookup {
  agentKnowledge: Knowledge | undefined;
  crewKnowledge: Knowledge | undefined;
  config: KnowledgeConfig;
  llm: BaseLLM;
  usage: UsageMetrics;
  source: CallSource;
}

/**
 * The "Additional Information" an agent adds to its task prompt: snippets of its own knowledge and of
 * its crew's, found with the task text (or the LLM's rewrite of it into a search query).
 */
export async function retrieveKnowledge(query: string, lookup: KnowledgeLookup): Promise<string> {
  const { agentKnowledge, crewKnowledge, config, source } = lookup;
  if (!agentKnowledge && !crewKnowledge) return "";
  const searchQuery = config.rewriteQuery ? await rewriteQuery(query, lookup) : query;
  let text = "";
  if (agentKnowledge) text += knowledgeContext(await agentKnowledge.query([searchQuery], config, source));
  if (crewKnowledge) text += knowledgeContext(await crewKnowledge.query([searchQuery], config, source));
  return text;
}

/** The task as a short search query; on failure the task text itself, with knowledge_query_failed. */
async function rewriteQuery(taskPrompt: string, { llm, usage, source }: KnowledgeLookup): Promise<string> {
  if (eventBus.hasListeners("knowledge_query_started")) eventBus.emit("knowledge_query_started", { ...source, taskPrompt });
  try {
    const result = await callLLM(llm, [{ role: "system", content: REWRITE_SYSTEM }, { role: "user", content: taskPrompt }], { source });
    addToUsageMetrics(usage, result.usage);
    const query = result.text.trim().replace(/^["'`]+|["'`]+$/g, "").trim();
    if (query === "") throw new Error("the model returned an empty search query");
    if (eventBus.hasListeners("knowledge_query_completed")) eventBus.emit("knowledge_query_completed", { ...source, query });
    return query;
  } catch (error) {
    if (eventBus.hasListeners("knowledge_query_failed")) {
      eventBus.emit("knowledge_query_failed", { ...source, error: error instanceof Error ? error.message : String(error) });
    }
    return taskPrompt;
  }
}
