import type { CrewtsEvent } from "../events/types.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import { agentRunKey, pausedRunsOf, type AgentRunState } from "../runtime/agentRunState.js";
import { hasHumanInputProvider, HumanInputError } from "../runtime/humanInput.js";
import { HumanInputPending, PreparedHumanAnswer, type PendingHumanInputRecord } from "../runtime/humanInputPending.js";
import { currentRun, runWithContext } from "../runtime/runContext.js";
import { CheckpointRecorder, lineageAfter, type CheckpointLineage } from "../runtime/checkpoint/CheckpointRecorder.js";
import { checkpointStoreFor, loadCheckpoint } from "../runtime/checkpoint/checkpointStores.js";
import { CheckpointError } from "../runtime/checkpoint/errors.js";
import type { AgentProgress, Checkpoint, CheckpointConfig } from "../runtime/checkpoint/types.js";
import type { ExecutorResult } from "./AgentExecutor.js";

/**
 * A standalone agent writes a checkpoint after each model reply, after each tool result and when it
 * has its answer, so a resumed run asks the model for no reply it already had and repeats no tool call
 * that returned.
 */
export const AGENT_CHECKPOINT_EVENTS = ["llm_call_completed", "tool_usage_finished", "agent_execution_completed"];

// An agent that may pause keeps its loop's state to checkpoint it on a pause, and writes nothing else.
const PAUSE_ONLY: CheckpointConfig = { onEvents: [] };

/** Continues an agent kickoff paused by HumanInputPending: `answer` goes to the tool approval it waited on. */
export async function resumePausedAgent<T>(checkpointId: string, answer: string, config: CheckpointConfig | undefined, kickoff: () => Promise<T>): Promise<T> {
  const store = config ? checkpointStoreFor(config) : undefined;
  const cp = await loadCheckpoint(checkpointId, { ...(config?.location !== undefined ? { location: config.location } : {}), ...(store && typeof config?.provider === "object" ? { store } : {}) });
  const pending = cp.kind === "agent" ? (cp.progress as AgentProgress).pendingHumanInput : undefined;
  if (!pending) {
    throw new HumanInputError(`Checkpoint "${cp.id}" was not written by an agent paused for human input; resume it with agent.kickoff("", { fromCheckpoint: "${cp.id}" }).`);
  }
  if (typeof answer !== "string") throw new TypeError("agent.resume(checkpointId, answer) needs the human's answer as a string.");
  const parent = currentRun();
  return runWithContext({ signal: parent?.signal, sink: parent?.sink, ...parent, humanAnswer: new PreparedHumanAnswer(pending, answer) }, kickoff);
}

/** How an agent loop starts and reports: from a saved state, with a callback after each step. */
export interface AgentLoopControl {
  state?: AgentRunState;
  onProgress?: (event: string, state: AgentRunState) => Promise<void>;
}

/** The control of a loop with neither (the usual run), shared by all of them. */
export const PLAIN_LOOP: AgentLoopControl = Object.freeze({});

/** The agent as its checkpoints see it. */
interface CheckpointedAgent {
  readonly id: string;
  readonly role: string;
  readonly checkpointConfig: CheckpointConfig | undefined;
}

/** The checkpoints of one `agent.kickoff`: where it resumes from, and a write after each step. */
export class AgentRunCheckpoints {
  private latest: AgentRunState | undefined;
  private setupUsage: UsageMetrics | undefined;
  private output: string | undefined;
  private pendingInput: PendingHumanInputRecord | undefined;
  private readonly recorder: CheckpointRecorder;

  private constructor(
    agent: CheckpointedAgent,
    config: CheckpointConfig,
    /** The request the run works on (the checkpoint's when resuming). */
    readonly request: string,
    private readonly role: string,
    private readonly resumed: Checkpoint | undefined,
    lineage: CheckpointLineage | undefined,
  ) {
    const progress = resumed?.progress as AgentProgress | undefined;
    this.latest = progress?.run;
    this.setupUsage = progress?.setupUsage;
    if (typeof progress?.output?.raw === "string") this.output = progress.output.raw;
    this.recorder = new CheckpointRecorder(
      config,
      {
        kind: "agent",
        name: agent.role,
        inputs: { messages: request },
        snapshot: () => this.snapshot(),
        owns: (event: CrewtsEvent) => (event as { agentId?: string }).agentId === agent.id,
      },
      AGENT_CHECKPOINT_EVENTS,
      lineage,
    );
  }

  /** Whether a kickoff of `agent` writes or resumes checkpoints (or may pause, which writes one): checked before `open`. */
  static wanted(agent: CheckpointedAgent, fromCheckpoint: string | undefined): boolean {
    return agent.checkpointConfig !== undefined || fromCheckpoint !== undefined || hasHumanInputProvider();
  }

  /**
   * The checkpoints of a kickoff of `agent`: undefined when it writes none and resumes from none.
   * Resuming, the checkpoint must be an agent's, written by an agent of the same role.
   */
  static async open(agent: CheckpointedAgent, request: string, fromCheckpoint: string | undefined): Promise<AgentRunCheckpoints | undefined> {
    // Without its own settings, an agent that may pause for a human keeps its loop's state to checkpoint a pause only.
    const config = agent.checkpointConfig ?? (fromCheckpoint !== undefined ? {} : hasHumanInputProvider() ? PAUSE_ONLY : undefined);
    if (!config) return undefined;
    if (fromCheckpoint === undefined) return new AgentRunCheckpoints(agent, config, request, agent.role, undefined, undefined);
    const store = checkpointStoreFor(config);
    const cp = await loadCheckpoint(fromCheckpoint, { ...(config.location !== undefined ? { location: config.location } : {}), ...(typeof config.provider === "object" ? { store } : {}) });
    if (cp.kind !== "agent") {
      throw new CheckpointError(`Checkpoint "${cp.id}" belongs to a ${cp.kind} ("${cp.name}"), not an agent: resume it with the ${cp.kind}'s kickoff.`);
    }
    if (cp.name !== agent.role) {
      throw new CheckpointError(`Checkpoint "${cp.id}" was written by agent "${cp.name}", not "${agent.role}": resume it with an agent of that role.`);
    }
    const stored = typeof cp.inputs.messages === "string" ? cp.inputs.messages : request;
    return new AgentRunCheckpoints(agent, config, stored, agent.role, cp, await lineageAfter(cp, store));
  }

  /**
   * Runs the agent's loop through `execute` (with the saved state when resuming, and a checkpoint after
   * each step). `usage` is the kickoff's: it starts with what the resumed run had spent before its loop.
   * A checkpoint written after the answer gives that answer again without running anything.
   */
  async run(usage: UsageMetrics, execute: (control: AgentLoopControl) => Promise<ExecutorResult>): Promise<ExecutorResult> {
    if (this.output !== undefined && this.resumed) {
      addToUsageMetrics(usage, this.resumed.usage);
      return { output: this.output, usage: { ...this.resumed.usage }, messages: this.latest?.messages ?? [], iterations: this.latest?.iterations ?? 0, fromTool: false };
    }
    if (this.setupUsage) addToUsageMetrics(usage, this.setupUsage);
    const control: AgentLoopControl = { ...(this.latest ? { state: this.latest } : {}) };
    // A run that only checkpoints a pause needs no state after each step.
    if (this.recorder.onEvents.size > 0) {
      control.onProgress = async (event, state) => {
        // Until the loop's result is counted, the kickoff's usage is what it spent before the loop.
        this.setupUsage ??= { ...usage };
        this.latest = state;
        if (this.recorder.wants(event)) await this.recorder.write(event, false);
      };
    }
    return this.recorder.around(AGENT_CHECKPOINT_EVENTS, async () => {
      let result: ExecutorResult;
      try {
        result = await execute(control);
      } catch (error) {
        if (error instanceof HumanInputPending) await this.pause(error);
        throw error;
      }
      this.output = result.output;
      this.latest = { ...(this.latest ?? { messages: [], headLength: 0, native: false }), messages: result.messages, iterations: result.iterations, usage: { ...result.usage } };
      delete this.latest.reply;
      if (this.recorder.wants("agent_execution_completed")) await this.recorder.write("agent_execution_completed", false);
      return result;
    });
  }

  /** Writes the checkpoint of a run paused for human input (whatever the configured events) and sets its id on `pending`. */
  private async pause(pending: HumanInputPending): Promise<void> {
    const state = pausedRunsOf(pending)[agentRunKey(this.role, this.request)];
    if (state) this.latest = state;
    this.pendingInput = { context: pending.context, callbackInfo: pending.callbackInfo };
    pending.checkpointId = await this.recorder.write("human_input_pending", true);
  }

  private snapshot(): { progress: AgentProgress; usage: UsageMetrics } {
    const usage = emptyUsageMetrics();
    if (this.setupUsage) addToUsageMetrics(usage, this.setupUsage);
    if (this.latest) addToUsageMetrics(usage, this.latest.usage);
    const progress: AgentProgress = {
      ...(this.latest ? { run: this.latest } : {}),
      ...(this.setupUsage ? { setupUsage: this.setupUsage } : {}),
      ...(this.output !== undefined ? { output: { raw: this.output } } : {}),
      ...(this.pendingInput ? { pendingHumanInput: this.pendingInput } : {}),
    };
    return { progress, usage };
  }
}
