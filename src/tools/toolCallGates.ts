import { hasToolHooks, runAfterToolCall, runBeforeToolCall } from "../hooks/runHooks.js";
import type { CrewHooks, ToolCallHookContext } from "../hooks/types.js";
import type { EventSource } from "../events/index.js";
import { requestHumanInput } from "../runtime/humanInput.js";
import { currentRun } from "../runtime/runContext.js";
import type { BaseTool } from "./BaseTool.js";
import { approvalPrompt } from "./observations.js";

/**
 * The hooks and approvals around one tool call: built only when a tool hook is registered or the
 * tool needs approval, so a plain call costs one length check.
 */
export class ToolCallGates {
  private constructor(
    private readonly ctx: ToolCallHookContext,
    private readonly scoped: CrewHooks | undefined,
    private readonly hooked: boolean,
  ) {}

  /** The gates for this call, or undefined when there is nothing to run. */
  static for(tool: BaseTool, args: Record<string, unknown>, source: EventSource): ToolCallGates | undefined {
    const scoped = currentRun()?.hooks as CrewHooks | undefined;
    const hooked = hasToolHooks(scoped);
    if (!hooked && !tool.needsApproval) return undefined;
    const ctx: ToolCallHookContext = { toolName: tool.sanitizedName, toolInput: args, toolResult: "", agentRole: source.agentRole ?? "" };
    for (const key of ["agentId", "taskName", "taskId", "crewId"] as const) if (source[key] !== undefined) ctx[key] = source[key];
    return new ToolCallGates(ctx, scoped, hooked);
  }

  /** Runs the before hooks (they may change the input in place); false when one blocked the call. */
  async before(): Promise<boolean> {
    return this.hooked ? runBeforeToolCall(this.ctx, this.scoped) : true;
  }

  /** Asks the human when the tool needs approval for this input; resolves with their refusal, or undefined when approved. */
  async refusal(tool: BaseTool, input: unknown): Promise<string | undefined> {
    const rule = tool.needsApproval;
    if (!rule) return undefined;
    if (typeof rule === "function" && !(await rule(input))) return undefined;
    const answer = await requestHumanInput({
      kind: "tool_approval",
      prompt: approvalPrompt(this.ctx.toolName, this.ctx.toolInput),
      toolName: this.ctx.toolName,
      toolInput: this.ctx.toolInput,
      agentRole: this.ctx.agentRole,
      ...(this.ctx.taskName !== undefined ? { taskName: this.ctx.taskName } : {}),
    });
    return APPROVED.test(answer.trim()) ? undefined : answer;
  }

  /** Runs the after hooks; resolves with the result they leave. */
  async after(result: string): Promise<string> {
    if (!this.hooked) return result;
    this.ctx.toolResult = result;
    return runAfterToolCall(this.ctx, this.scoped);
  }
}

// What counts as a yes from the human (anything else is a no, so a typo never runs a guarded tool).
const APPROVED = /^(y|yes|approve|approved|ok|allow)$/i;
