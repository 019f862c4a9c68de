import { createInterface } from "node:readline/promises";
import { eventBus } from "../../events/index.js";
import { resolveLLM } from "../../llm/resolveLLM.js";
import type { BaseLLM } from "../../llm/types.js";
import { flowDefinition, flowNameOf } from "../FlowDefinition.js";
import { methodSpecOf, recordMethodSpec } from "../FlowMethodSpec.js";
import { collapseToOutcome } from "./collapse.js";
import { feedbackHistoryOf, feedbackHostOf } from "./host.js";
import { asText, distilLessons, preReview, recallLessons, storeLessons } from "./lessons.js";
import { hostPausesForInput } from "../../runtime/hostPauses.js";
import { HumanFeedbackError, HumanFeedbackPending, type HumanFeedbackOptions, type HumanFeedbackResult, type PendingFeedbackContext } from "./types.js";

/** A decorator that replaces the method with one asking for feedback on its output. */
export type HumanFeedbackDecorator = <This, Args extends unknown[], Ret>(
  method: (this: This, ...args: Args) => Ret,
  context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Ret>,
) => (this: This, ...args: Args) => Ret;

/** The validated options of one decorated method. */
export interface FeedbackConfig extends HumanFeedbackOptions {
  /** The model, resolved on first use. */
  model?: BaseLLM;
}

const configs = new WeakMap<object, FeedbackConfig>();

/** The feedback options of a flow method function, when it has `@humanFeedback`. */
export function feedbackConfigOf(fn: unknown): FeedbackConfig | undefined {
  return typeof fn === "function" ? configs.get(fn) : undefined;
}

/**
 * Asks a human about the method's output after it returns (CrewAI's `@human_feedback`). Without
 * `emit`, listeners of the method receive a HumanFeedbackResult; with `emit`, the feedback is mapped
 * to one outcome, routed like a router's return value (its listeners receive the result).
 * Stacks with `@start()` and `@listen()` in either order.
 */
export function humanFeedback(options: HumanFeedbackOptions): HumanFeedbackDecorator {
  const config = validate(options);
  return <This, Args extends unknown[], Ret>(method: (this: This, ...args: Args) => Ret, context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => Ret>) => {
    const name = String(context.name);
    const wrapper = async function (this: This, ...args: Args): Promise<HumanFeedbackResult> {
      const output = await method.apply(this, args);
      return askForFeedback(this as object, name, output, config);
    } as unknown as (this: This, ...args: Args) => Ret;
    Object.defineProperty(wrapper, "name", { value: name });
    configs.set(wrapper, config);
    // `@listen` below this decorator recorded its condition on the original function: carry it over.
    const { name: _ignored, ...earlier } = methodSpecOf(method) ?? { name };
    const emit = config.emit;
    recordMethodSpec(wrapper, context, { ...earlier, ...(emit ? { router: true, emit, routeBy: outcomeOf } : {}) });
    return wrapper;
  };
}

function outcomeOf(result: unknown): unknown {
  return typeof result === "object" && result !== null ? (result as { outcome?: unknown }).outcome : undefined;
}

function validate(options: HumanFeedbackOptions): FeedbackConfig {
  if (typeof options !== "object" || options === null || typeof options.message !== "string") {
    throw new TypeError('@humanFeedback needs options with a message: @humanFeedback({ message: "Approve this?" }).');
  }
  const emit = options.emit;
  if (emit !== undefined) {
    if (!Array.isArray(emit) || emit.length === 0 || emit.some((o) => typeof o !== "string" || o === "")) {
      throw new TypeError("@humanFeedback emit must be a non-empty list of non-empty outcome names, e.g. emit: [\"approved\", \"rejected\"].");
    }
    if (options.llm === undefined) throw new TypeError('@humanFeedback with emit needs llm, the model that maps feedback to an outcome: llm: "openai/gpt-4o-mini" or a BaseLLM.');
  }
  if (options.defaultOutcome !== undefined && !emit?.includes(options.defaultOutcome)) {
    throw new TypeError(`@humanFeedback defaultOutcome ${JSON.stringify(options.defaultOutcome)} must be one of emit (${(emit ?? []).map((o) => JSON.stringify(o)).join(", ") || "none given"}).`);
  }
  if (options.provider !== undefined && typeof options.provider?.requestFeedback !== "function") {
    throw new TypeError("@humanFeedback provider must have requestFeedback(context, flow) returning a Promise of the feedback text.");
  }
  if (options.learnLimit !== undefined && (!Number.isInteger(options.learnLimit) || options.learnLimit < 0)) {
    throw new TypeError("@humanFeedback learnLimit must be a whole number of lessons (0 or more).");
  }
  if (options.learn && options.llm === undefined) throw new TypeError("@humanFeedback learn: true needs llm, the model that distils and applies lessons.");
  const outcomes: readonly string[] | undefined = emit;
  return { ...options, ...(outcomes ? { emit: [...outcomes] } : {}), metadata: { ...options.metadata } };
}

function modelOf(config: FeedbackConfig): BaseLLM | undefined {
  if (config.llm === undefined) return undefined;
  return (config.model ??= resolveLLM(config.llm));
}

/** Runs the request for one method output: pre-review (learn), the provider or the terminal, then the mapping. */
async function askForFeedback(flow: object, methodName: string, output: unknown, config: FeedbackConfig): Promise<HumanFeedbackResult> {
  const def = flowDefinition(flow);
  const llm = modelOf(config);
  let shown = output;
  if (config.learn && llm) {
    const lessons = await recallLessons(feedbackHostOf(flow)?.lessonBackend(), def.name, methodName, config.learnLimit ?? 5).catch(() => []);
    shown = await preReview(llm, output, lessons);
  }
  const context: PendingFeedbackContext = {
    flowId: String((flow as { state: { id: unknown } }).state.id),
    flowClass: def.name,
    methodName,
    methodOutput: shown,
    message: config.message,
    emit: config.emit ? [...config.emit] : null,
    defaultOutcome: config.defaultOutcome ?? null,
    metadata: { ...config.metadata },
    llm: typeof config.llm === "string" ? config.llm : (config.llm?.model ?? null),
    requestedAt: new Date(),
  };
  if (eventBus.hasListeners("human_feedback_requested")) {
    eventBus.emit("human_feedback_requested", { flowName: flowNameOf(flow, def), flowId: context.flowId, methodName, message: context.message, output: shown, emit: context.emit });
  }
  // A provider throwing HumanFeedbackPending pauses the run: the flow's kickoff catches it.
  // A served run (crewts serve or worker) without a provider pauses until POST /resume.
  const feedback = config.provider ? await config.provider.requestFeedback(context, flow) : hostPausesForInput() ? pauseForHost(context) : await askTerminal(context);
  return completeFeedback(flow, context, String(feedback ?? ""), config);
}

/** Maps the feedback, records it in the flow's history, emits `human_feedback_received` and learns (learn: true). */
export async function completeFeedback(flow: object, context: PendingFeedbackContext, feedback: string, config: FeedbackConfig): Promise<HumanFeedbackResult> {
  const llm = modelOf(config);
  const outcome = config.emit ? await collapseToOutcome(feedback, config.emit, llm, config.defaultOutcome, context.methodName) : null;
  const result: HumanFeedbackResult = { output: context.methodOutput, feedback, outcome, timestamp: new Date(), methodName: context.methodName, metadata: { ...context.metadata } };
  feedbackHistoryOf(flow).push(result);
  if (eventBus.hasListeners("human_feedback_received")) {
    eventBus.emit("human_feedback_received", { flowName: flowNameOf(flow, flowDefinition(flow)), flowId: context.flowId, methodName: context.methodName, feedback, outcome });
  }
  if (config.learn && llm) {
    const lessons = await distilLessons(llm, context.methodOutput, feedback);
    await storeLessons(feedbackHostOf(flow)?.lessonBackend(), context.flowClass, context.methodName, lessons).catch(() => undefined);
  }
  return result;
}

function pauseForHost(context: PendingFeedbackContext): never {
  throw new HumanFeedbackPending({ context });
}

/** Reads feedback on the terminal (CrewAI's console provider); without one, fails at once instead of hanging. */
async function askTerminal(context: PendingFeedbackContext): Promise<string> {
  if (!process.stdin.isTTY) {
    throw new HumanFeedbackError(
      `Flow "${context.flowClass}" needs human feedback on "${context.methodName}", but stdin is not a terminal and @humanFeedback has no provider. ` +
        "Pass provider: { requestFeedback: async (context, flow) => feedback } to @humanFeedback (it may throw HumanFeedbackPending to pause), or run the flow in a terminal.",
    );
  }
  const rule = "=".repeat(50);
  process.stdout.write(`\n${rule}\nOUTPUT FOR REVIEW:\n${rule}\n${asText(context.methodOutput)}\n${rule}\n${context.message}\n(Press Enter to skip, or type your feedback)\n`);
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question("Your feedback: ");
  } finally {
    rl.close();
  }
}
