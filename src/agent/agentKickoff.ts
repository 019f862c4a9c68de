import type { z } from "zod";
import type { CallSource, ChatMessage } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics } from "../llm/UsageMetrics.js";
import type { Agent, AgentKickoffOptions } from "./Agent.js";
import { AgentRunCheckpoints, type AgentLoopControl } from "./agentCheckpoints.js";
import { enforceAgentGuardrail } from "./agentGuardrail.js";
import { AgentOutput } from "./AgentOutput.js";
import { AgentConfigError } from "./errors.js";
import { convertToSchema, schemaToJsonText } from "./OutputConverter.js";
import type { AgentTask } from "./promptBuilder.js";
import { prompts } from "./prompts.js";

/**
 * agent.kickoff once its run context is entered: the messages as one request, run as a task of the
 * agent's own (checkpointed when the agent asks for it), the answer parsed into `outputSchema` and
 * checked by the agent's guardrail.
 */
export async function kickoffAgent<S extends z.ZodType>(agent: Agent, messages: string | ChatMessage[], options: AgentKickoffOptions<S>): Promise<AgentOutput<z.infer<S>>> {
  let request = typeof messages === "string" ? messages : (messages ?? []).map((m) => (m.role === "system" ? m.content : `${m.role}: ${m.content}`)).join("\n\n");
  // Resuming, the request is the checkpoint's (the messages given may be left empty).
  const durable = AgentRunCheckpoints.wanted(agent, options.fromCheckpoint) ? await AgentRunCheckpoints.open(agent, request, options.fromCheckpoint) : undefined;
  if (durable) request = durable.request;
  if (!request.trim()) throw new AgentConfigError("agent.kickoff needs a non-empty message: pass what the agent should do.");
  const task: AgentTask = { description: request, expectedOutput: "" };
  if (options.outputSchema) task.expectedOutput = prompts.answerAsJson(schemaToJsonText(options.outputSchema));
  // Counted per call, not as a difference of the agent's totals: kickoffs may run at the same time.
  const usage = emptyUsageMetrics();
  const execute = (loop?: AgentLoopControl) => agent.executeTaskDetailed(task, undefined, undefined, {}, usage, loop);
  const source: CallSource = { agentId: agent.id, agentRole: agent.role };
  const toOutput = async (raw: string, messages: ChatMessage[]): Promise<AgentOutput<z.infer<S>>> => {
    let parsed: z.infer<S> | undefined;
    if (options.outputSchema) {
      const conversion = await convertToSchema(raw, options.outputSchema, { llm: agent.llm, source });
      addToUsageMetrics(agent.usageMetrics, conversion.usage);
      addToUsageMetrics(usage, conversion.usage);
      parsed = conversion.parsed;
    }
    return new AgentOutput<z.infer<S>>({ raw, parsed, agentRole: agent.role, usageMetrics: usage, messages });
  };
  const result = durable ? await durable.run(usage, execute) : await execute();
  const output = await toOutput(result.output, result.messages);
  if (agent.options.guardrail === undefined) return output;
  // A retry is a new run with the guardrail's feedback as context (it is not checkpointed).
  const again = async (feedback: string) => {
    const retried = await agent.executeTaskDetailed(task, feedback, undefined, {}, usage);
    return toOutput(retried.output, retried.messages);
  };
  return enforceAgentGuardrail(agent, output, { again, fromRaw: (raw, previous) => toOutput(raw, previous.messages), outputSchema: options.outputSchema, usage, source });
}
