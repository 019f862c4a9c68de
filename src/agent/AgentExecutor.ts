import { rejectedWith } from "../llm/retry.js";
import { eventBus } from "../events/EventBus.js";
import { normalizeResult } from "../llm/callLLM.js";
import { LLMContextLengthExceededError } from "../llm/errors.js";
import type { BaseLLM, CallSource, ChatMessage, LLMCallOptions, LLMResult } from "../llm/types.js";
import { addToUsageMetrics, emptyUsageMetrics, type UsageMetrics } from "../llm/UsageMetrics.js";
import type { ToolRunner } from "../tools/ToolRunner.js";
import { ContextWindowExceededError } from "./errors.js";
import { callModel } from "./modelCall.js";
import { FINAL_ANSWER_ACTION, OutputParserError, plainAnswer, readReply } from "./parser.js";
import { prompts } from "./prompts.js";
import type { RequestLimiter } from "./requestLimiters.js";
import type { AgentLogStep } from "../events/types.js";
import { waitForTurn } from "../runtime/turnPacing.js";
import type { AgentRunState } from "../runtime/agentRunState.js";

/** One step of an agent, as passed to `stepCallback` (the payload of the agent_logs_execution event). */
export type AgentStep = AgentLogStep;

/** What the loop needs; built by Agent for each execution. */
export interface ExecutorConfig {
  llm: BaseLLM;
  messages: ChatMessage[];
  runner: ToolRunner;
  /** Use the model's native tool calls instead of the text protocol. */
  nativeTools: boolean;
  maxIter: number;
  stop: string[];
  respectContextWindow: boolean;
  source: CallSource;
  signal?: AbortSignal;
  rpm?: RequestLimiter[];
  stepCallback?: (step: AgentStep) => void | Promise<void>;
  stream?: boolean;
  onToken?: (delta: string) => void;
  /** Continue a loop from where it stood (a checkpoint, a pause) instead of from `messages`. */
  resume?: AgentRunState;
  /** Keep the reply being acted on, for state(): set when the loop is checkpointed or may pause for a human. */
  trackReply?: boolean;
  /** Called, and awaited, after each model reply and each tool result ("llm_call_completed", "tool_usage_finished"): a checkpoint of `state()`. */
  onProgress?: (event: string) => Promise<void>;
}

/** The outcome of one agent execution. */
export interface ExecutorResult {
  output: string;
  usage: UsageMetrics;
  messages: ChatMessage[];
  iterations: number;
  /** The output came straight from a tool with resultAsAnswer. */
  fromTool: boolean;
}

const CHARS_PER_TOKEN = 4;

/** Runs CrewAI's agent loop: ask the model, use the tool it picks, feed back the observation, until a final answer. */
export class AgentExecutor {
  private readonly messages: ChatMessage[];
  private readonly usage = emptyUsageMetrics();
  private iterations = 0;
  /** The system and task messages, kept whole when the rest of the history is summarized. */
  private readonly headLength: number;
  private native: boolean;
  /** The reply being acted on (kept for state() only when the loop may be checkpointed or paused). */
  private reply: AgentRunState["reply"];

  constructor(private readonly config: ExecutorConfig) {
    const resume = config.resume;
    this.messages = resume ? structuredClone(resume.messages) : config.messages;
    this.headLength = resume ? resume.headLength : config.messages.length;
    this.native = resume ? resume.native : config.nativeTools;
    if (resume) {
      this.iterations = resume.iterations;
      addToUsageMetrics(this.usage, resume.usage);
      if (resume.reply) this.reply = structuredClone(resume.reply);
    }
  }

  /** Where the loop stands now: resumable with `resume` (plain JSON). */
  state(): AgentRunState {
    const state: AgentRunState = { messages: structuredClone(this.messages), headLength: this.headLength, iterations: this.iterations, native: this.native, usage: { ...this.usage } };
    if (this.reply) state.reply = structuredClone(this.reply);
    return state;
  }

  /** Runs the loop to a final answer. */
  run(): Promise<ExecutorResult> {
    // A resumed loop first finishes acting on the reply it stood at.
    if (this.reply) return this.act(this.reply.result).then((done) => done ?? this.next());
    return this.next();
  }

  /**
   * One turn of the loop: ask the model, then act on its reply. Not an async function: while the model
   * answers, a run holds one `then` here rather than a suspended call (many runs may be in flight).
   */
  private next(): Promise<ExecutorResult> {
    const { config } = this;
    try {
      config.signal?.throwIfAborted();
      if (this.iterations >= config.maxIter) return this.forceFinalAnswer().then((output) => this.finish(output, false));
      if (estimateTokens(this.messages) > config.llm.contextWindowSize()) return this.summarizeAndGoOn();
      return this.send(this.messages, config.nativeTools ? { tools: config.runner.toolSpecs() } : undefined).then(
        (reply) => this.onReply(normalizeResult(reply, config.llm)),
        (error: unknown) => {
          if (!(error instanceof LLMContextLengthExceededError)) throw error;
          return this.summarizeAndGoOn();
        },
      );
    } catch (error) {
      return rejectedWith(error);
    }
  }

  /** The history no longer fits: summarize it (CrewAI's respect_context_window) and ask again. */
  private async summarizeAndGoOn(): Promise<ExecutorResult> {
    await this.handleContextOverflow();
    this.iterations++;
    return this.next();
  }

  private async onReply(result: LLMResult): Promise<ExecutorResult> {
    const { config } = this;
    addToUsageMetrics(this.usage, result.usage);
    this.iterations++;
    // A model that answers with native tool calls is in native mode from then on, even if the
    // agent offered the text protocol (scripted models and some servers do this).
    if (result.toolCalls?.length) this.native = true;
    if (config.trackReply) {
      this.reply = { result, pushed: false, callsDone: 0 };
      await config.onProgress?.("llm_call_completed");
    }
    // Thousands of runs answered at once go on a few hundred per turn of the event loop.
    const turn = waitForTurn();
    if (turn) await turn;
    const done = this.native ? await this.handleNative(result) : await this.handleText(result);
    this.reply = undefined;
    return done ?? this.next();
  }

  /** Acts on a reply: its tool calls, or its final answer. */
  private async act(result: LLMResult): Promise<ExecutorResult | undefined> {
    const done = this.native ? await this.handleNative(result) : await this.handleText(result);
    this.reply = undefined;
    return done;
  }

  private async handleNative(result: LLMResult): Promise<ExecutorResult | undefined> {
    const calls = result.toolCalls ?? [];
    if (calls.length === 0) {
      const output = extractFinalAnswer(result.text);
      await this.step({ type: "finish", thought: "", text: result.text, output });
      return this.finish(output, false);
    }
    const reply = this.reply;
    if (!reply?.pushed) this.messages.push({ role: "assistant", content: result.text, toolCalls: calls });
    if (reply) reply.pushed = true;
    // A resumed reply skips the calls whose results are already in the conversation.
    for (let i = reply?.callsDone ?? 0; i < calls.length; i++) {
      const call = calls[i]!;
      const run = await this.config.runner.run({ name: call.name, arguments: call.arguments }, this.config.signal);
      this.messages.push({ role: "tool", content: run.output, toolCallId: call.id, toolName: call.name });
      if (reply) reply.callsDone = i + 1;
      await this.step({ type: "action", thought: result.text, text: result.text, tool: call.name, toolInput: call.arguments, result: run.output });
      if (run.resultAsAnswer && run.ok) return this.finish(run.output, true);
      if (this.config.onProgress) await this.config.onProgress("tool_usage_finished");
    }
    return undefined;
  }

  private async handleText(result: LLMResult): Promise<ExecutorResult | undefined> {
    const text = truncateAtStop(result.text, this.config.stop);
    let parsed;
    try {
      parsed = readReply(text);
    } catch (error) {
      if (!(error instanceof OutputParserError)) throw error;
      this.messages.push({ role: "user", content: error.message });
      return undefined;
    }
    if (parsed.type === "finish") {
      await this.step({ type: "finish", thought: parsed.thought, text: parsed.text, output: parsed.output });
      return this.finish(parsed.output, false);
    }
    const run = await this.config.runner.run({ name: parsed.tool, arguments: parsed.toolInput }, this.config.signal);
    await this.step({ type: "action", thought: parsed.thought, text: parsed.text, tool: parsed.tool, toolInput: parsed.toolInput, result: run.output });
    if (run.resultAsAnswer && run.ok) return this.finish(run.output, true);
    this.messages.push({ role: "assistant", content: `${text.trimEnd()}\nObservation: ${run.output}` });
    if (this.config.onProgress) {
      this.reply = undefined;
      await this.config.onProgress("tool_usage_finished");
    }
    return undefined;
  }

  private async call(messages: ChatMessage[]): Promise<LLMResult> {
    const result = normalizeResult(await this.send(messages, undefined), this.config.llm);
    addToUsageMetrics(this.usage, result.usage);
    return result;
  }

  /** One request to the model, once the request limiters (if any) let it go; the caller reads the reply with normalizeResult and counts its usage. */
  private send(messages: ChatMessage[], extra: Partial<LLMCallOptions> | undefined, limited = true): Promise<unknown> {
    const { config } = this;
    if (limited && config.rpm?.length) return this.sendWhenAllowed(config.rpm, messages, extra);
    const options: LLMCallOptions = extra ? { source: config.source, ...extra } : { source: config.source };
    if (config.stop.length > 0) options.stop = config.stop;
    if (config.signal) options.signal = config.signal;
    if (config.stream) options.stream = true;
    if (config.onToken) options.onToken = config.onToken;
    return callModel(config.llm, messages, options, config.source, this.iterations);
  }

  private async sendWhenAllowed(limiters: RequestLimiter[], messages: ChatMessage[], extra: Partial<LLMCallOptions> | undefined): Promise<unknown> {
    for (const limiter of limiters) await limiter.acquire(this.config.signal);
    return this.send(messages, extra, false);
  }

  private async forceFinalAnswer(): Promise<string> {
    this.messages.push({ role: "user", content: prompts.forceFinalAnswer });
    const result = await this.call(this.messages);
    const text = truncateAtStop(result.text, this.config.stop);
    const output = extractFinalAnswer(text);
    await this.step({ type: "finish", thought: "", text, output });
    return output;
  }

  /** Summarizes the history when allowed (CrewAI's respect_context_window), else stops with a clear error. */
  private async handleContextOverflow(): Promise<void> {
    const { llm, respectContextWindow } = this.config;
    const window = llm.contextWindowSize();
    const used = estimateTokens(this.messages);
    const head = this.messages.slice(0, this.headLength);
    const rest = this.messages.slice(this.headLength);
    if (!respectContextWindow) {
      throw new ContextWindowExceededError(
        `The conversation (about ${used} tokens) no longer fits the context window of ${llm.model} (${window} tokens usable). ` +
          "Set respectContextWindow: true on the agent to summarize it automatically, or use a model with a larger context window.",
      );
    }
    if (rest.length === 0 || estimateTokens(head) >= window) {
      throw new ContextWindowExceededError(
        `The task prompt alone (about ${estimateTokens(head)} tokens) does not fit the context window of ${llm.model} ` +
          `(${window} tokens usable). Shorten the task or its context, or use a model with a larger context window.`,
      );
    }
    const chunkChars = Math.max(1000, Math.floor((window * CHARS_PER_TOKEN) / 2));
    const transcript = rest.map((m) => `${m.role}: ${m.content}`).join("\n\n");
    const summaries: string[] = [];
    for (let at = 0; at < transcript.length; at += chunkChars) {
      const result = await this.call([
        { role: "system", content: prompts.summarizerSystem },
        { role: "user", content: prompts.summarizeChunk(transcript.slice(at, at + chunkChars)) },
      ]);
      summaries.push(result.text.trim());
    }
    this.messages.splice(this.headLength, rest.length, { role: "user", content: prompts.summary(summaries.join("\n\n")) });
    if (estimateTokens(this.messages) > window) {
      throw new ContextWindowExceededError(
        `The conversation still exceeds the context window of ${llm.model} (${window} tokens usable) after summarizing. ` +
          "Use a model with a larger context window or give the agent less context.",
      );
    }
  }

  private async step(step: AgentStep): Promise<void> {
    if (eventBus.hasListeners("agent_logs_execution")) eventBus.emit("agent_logs_execution", { ...this.config.source, agentRole: this.config.source.agentRole ?? "", step: { ...step } });
    await this.config.stepCallback?.(step);
  }

  private finish(output: string, fromTool: boolean): ExecutorResult {
    return { output, usage: this.usage, messages: this.messages, iterations: this.iterations, fromTool };
  }
}

/** The text after the last "Final Answer:", or, when the model answered without the keyword, its plain answer (see plainAnswer). */
export function extractFinalAnswer(text: string): string {
  const at = text.lastIndexOf(FINAL_ANSWER_ACTION);
  return at >= 0 ? text.slice(at + FINAL_ANSWER_ACTION.length).trim() : plainAnswer(text);
}

/** Cuts the text at the first stop sequence, for models that ignore stop words. */
export function truncateAtStop(text: string, stop: string[]): string {
  let end = text.length;
  for (const s of stop) {
    const at = s ? text.indexOf(s) : -1;
    if (at >= 0 && at < end) end = at;
  }
  return end === text.length ? text : text.slice(0, end);
}

function estimateTokens(messages: ChatMessage[]): number {
  let chars = 0;
  for (const m of messages) chars += m.content.length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
