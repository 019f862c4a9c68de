import { eventBus } from "./EventBus.js";
import { CLEAR_LINE, paint, shorten, stripControls, supportsColor, wrapLine, type TextStyle, type VerboseStream } from "./terminalText.js";
import type { CrewtsEvent, EventSource } from "./types.js";
import { toVerboseRecord, VERBOSE_EVENT_TYPES, type VerboseContext, type VerboseLevel, type VerboseRecord } from "./VerboseRecord.js";

/** Options of a VerbosePrinter. */
export interface VerbosePrinterOptions {
  /** Which events to show, judged by the ids they carry (see matchCrew). */
  match: (source: EventSource) => boolean;
  /** Where to write (default: verboseDefaults.stream, else process.stdout). */
  stream?: VerboseStream;
  /** Colour on or off (default: on for a terminal, see supportsColor). */
  color?: boolean;
  /** Receives every record shown, e.g. to write a log file; a returned promise is awaited by detach(). */
  onRecord?: (record: VerboseRecord) => void | Promise<void>;
  /** How long an LLM call runs before a terminal shows a progress line, in ms (default: verboseDefaults.spinnerDelayMs). */
  spinnerDelayMs?: number;
}

/** Process-wide defaults of verbose output; set `stream` to send it elsewhere than process.stdout. */
export const verboseDefaults: { stream?: VerboseStream; spinnerDelayMs: number } = { spinnerDelayMs: 1000 };

/** A printer shared under a key, with how many runs use it. */
interface Shared {
  printer: VerbosePrinter;
  users: number;
}

const shared = new Map<string, Shared>();
const attached = new Set<VerbosePrinter>();

const LEVEL_STYLE: Record<VerboseLevel, TextStyle> = { info: "cyan", success: "green", warning: "yellow", error: "red" };
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;
const MAX_CHARS = 1200;
const MAX_LINES = 20;
// One level of the tree (crew or flow, task or method, agent, step).
const GUIDE = "│ ";
const EXCERPT_CHARS = 60;

/** Which start event a completion event closes: its task, else its crew. */
function runKey(event: CrewtsEvent): string | undefined {
  if (event.type.startsWith("task_")) return event.taskId === undefined ? undefined : `task:${event.taskId}`;
  if (event.type.startsWith("crew_kickoff_")) return event.crewId === undefined ? undefined : `crew:${event.crewId}`;
  return "other";
}

/** The start of a task's description, on one line, for a task without a name. */
function excerpt(text: string): string {
  const flat = stripControls(text).replace(/\s+/g, " ").trim();
  if (flat.length <= EXCERPT_CHARS) return flat;
  const cut = flat.slice(0, EXCERPT_CHARS);
  // At a word boundary when there is one in the second half.
  return `${(cut.lastIndexOf(" ") > EXCERPT_CHARS / 2 ? cut.slice(0, cut.lastIndexOf(" ")) : cut).trimEnd()}…`;
}

/** Events of the crew `crewId`, and events of its agents (ids from `agentIds`, read per event) that carry no crew id, such as delegated work. */
export function matchCrew(crewId: string, agentIds: () => Iterable<{ id: string }>): (source: EventSource) => boolean {
  return (source) => {
    if (source.crewId !== undefined) return source.crewId === crewId;
    if (source.agentId === undefined) return false;
    for (const agent of agentIds()) if (agent.id === source.agentId) return true;
    return false;
  };
}

/**
 * The live, readable account of a run that `verbose: true` asks for: subscribes to the event bus while
 * attached and writes what the matching events say (agents, tasks, thoughts, tool uses, answers). On a
 * terminal it colours the output and shows a progress line while an LLM call takes longer than a
 * second; written to a file or a pipe it is plain lines only, with no timers.
 */
export class VerbosePrinter {
  private readonly stream: VerboseStream;
  private readonly color: boolean;
  private readonly animate: boolean;
  private readonly spinnerDelayMs: number;
  private offs: (() => void)[] = [];
  private sinkDone: Promise<void> = Promise.resolve();
  private sinkWarned = false;
  // LLM calls in flight, oldest first, for the progress line.
  private readonly calls = new Map<string, { label: string; startedAt: number }>();
  private timer: NodeJS.Timeout | undefined;
  private progressShown = false;
  private frame = 0;
  private readonly startedAt = new Map<string, number>();
  private readonly taskLabels = new Map<string, string>();
  // How the latest call of each agent's tools went, until the agent's step reports the call.
  private readonly tools = new Map<string, NonNullable<VerboseContext["tool"]>>();

  constructor(private readonly options: VerbosePrinterOptions) {
    this.stream = options.stream ?? verboseDefaults.stream ?? process.stdout;
    this.color = options.color ?? supportsColor(this.stream);
    this.animate = this.stream.isTTY === true;
    this.spinnerDelayMs = options.spinnerDelayMs ?? verboseDefaults.spinnerDelayMs;
  }

  /** The printers attached now (for diagnostics and tests). */
  static active(): VerbosePrinter[] {
    return [...attached];
  }

  /** Whether an attached printer already shows the events of `source`. */
  static covers(source: EventSource): boolean {
    for (const printer of attached) if (printer.options.match(source)) return true;
    return false;
  }

  /**
   * Attaches a printer for a run and returns the function that ends it. Runs with the same `key` share
   * one printer, detached when the last of them ends. With `unlessCovered`, nothing is attached (and
   * undefined returned) when a printer already shows that source's events: a verbose agent inside a
   * verbose crew prints once.
   */
  static acquire(options: VerbosePrinterOptions & { key: string; unlessCovered?: EventSource }): (() => Promise<void>) | undefined {
    const { key, unlessCovered, ...printerOptions } = options;
    let entry = shared.get(key);
    if (unlessCovered && [...attached].some((p) => p !== entry?.printer && p.options.match(unlessCovered))) return undefined;
    if (!entry) {
      entry = { printer: new VerbosePrinter(printerOptions).attach(), users: 0 };
      shared.set(key, entry);
    }
    const current = entry;
    current.users++;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (--current.users > 0) return;
      if (shared.get(key) === current) shared.delete(key);
      await current.printer.detach();
    };
  }

  /** Whether the progress-line timer is running (it runs only on a terminal, while an LLM call is in flight). */
  get spinning(): boolean {
    return this.timer !== undefined;
  }

  /** Starts listening to the event bus. */
  attach(): this {
    if (this.offs.length > 0) return this;
    this.offs = VERBOSE_EVENT_TYPES.map((type) => eventBus.on(type, (event) => this.handle(event)));
    attached.add(this);
    return this;
  }

  /** Stops listening, clears the progress line and its timer, and waits for what `onRecord` is still writing. */
  async detach(): Promise<void> {
    for (const off of this.offs) off();
    this.offs = [];
    attached.delete(this);
    this.calls.clear();
    this.stopProgress();
    await this.sinkDone;
  }

  private handle(event: CrewtsEvent): void {
    if (!this.options.match(event)) return;
    if (event.type === "llm_call_started") return this.callStarted(event);
    if (event.type === "llm_call_completed" || event.type === "llm_call_failed") this.callEnded(event.callId);
    // A tool call is shown once, with the agent step that reports it: its events only say how it went.
    if (event.type === "tool_usage_finished" || event.type === "tool_usage_error") return this.toolEvent(event);
    const record = toVerboseRecord(event, this.context(event));
    if (!record) return;
    this.print(record);
    this.sink(record);
  }

  private toolEvent(event: CrewtsEvent<"tool_usage_finished" | "tool_usage_error">): void {
    const key = `${event.agentId ?? event.agentRole ?? ""}\u0000${event.toolName}`;
    const before = this.tools.get(key);
    if (event.type === "tool_usage_error") this.tools.set(key, { fromCache: false, error: event.error, attempts: (before?.error !== undefined ? before.attempts : 0) + 1 });
    else this.tools.set(key, { fromCache: event.fromCache, durationMs: event.durationMs, attempts: (before?.error !== undefined ? before.attempts : 0) + 1 });
  }

  /** Start times (for the time each crew, task and flow took) and the labels of tasks without a name. */
  private context(event: CrewtsEvent): VerboseContext {
    const key = runKey(event);
    const at = event.timestamp.getTime();
    if (key === undefined) return {};
    if (event.type === "task_started") this.taskLabels.set(event.taskId, event.taskName ?? excerpt(event.taskDescription ?? event.taskId));
    const taskLabel = event.taskId !== undefined ? this.taskLabels.get(event.taskId) : undefined;
    const context: VerboseContext = taskLabel !== undefined ? { taskLabel } : {};
    if (event.type === "agent_logs_execution" && event.step.type === "action") {
      const toolKey = `${event.agentId ?? event.agentRole}\u0000${event.step.tool ?? ""}`;
      const tool = this.tools.get(toolKey);
      this.tools.delete(toolKey);
      if (tool) context.tool = tool;
    }
    if (event.type === "crew_kickoff_started" || event.type === "task_started") this.startedAt.set(key, at);
    else if (event.type === "crew_kickoff_completed" || event.type === "crew_kickoff_failed" || event.type === "task_completed" || event.type === "task_failed") {
      const started = this.startedAt.get(key);
      this.startedAt.delete(key);
      if (event.type === "task_completed" || event.type === "task_failed") this.taskLabels.delete(event.taskId);
      if (started !== undefined) context.elapsedMs = at - started;
    }
    return context;
  }

  private print(record: VerboseRecord): void {
    const c = (text: string, ...styles: TextStyle[]): string => (this.color ? paint(text, ...styles) : text);
    const width = this.animate && this.stream.columns ? this.stream.columns : 0;
    // The tree: a guide per level above the record, then the record's own branch.
    const guides = c(GUIDE.repeat(record.depth), "dim");
    const closing = record.depth === 0 && !record.type.endsWith("_started");
    const under = closing ? "  " : c(GUIDE.repeat(record.depth + 1), "dim");
    const branch = c(record.depth === 0 ? (closing ? "└ " : "┌ ") : "├ ", "dim");
    const lines = [`${guides}${branch}${c(record.title, "bold", LEVEL_STYLE[record.level])}`];
    const indent = GUIDE.length * (record.depth + 1);
    for (const { label, value, whole, logOnly } of record.fields) {
      if (logOnly) continue;
      const text = whole ? value : shorten(value, MAX_CHARS, MAX_LINES);
      const head = `${label}: `;
      const body = text.split("\n");
      if (body.length === 1 && (!width || indent + head.length + text.length <= width)) {
        lines.push(`${under}${c(`${label}:`, "dim")} ${text}`);
        continue;
      }
      lines.push(`${under}${c(`${label}:`, "dim")}`);
      for (const line of body) for (const part of width ? wrapLine(line, Math.max(20, width - indent - 2)) : [line]) lines.push(`${under}  ${part}`);
    }
    const text = `${lines.join("\n")}\n`;
    this.stream.write(this.progressShown ? CLEAR_LINE + text : text);
    this.progressShown = false;
  }

  private sink(record: VerboseRecord): void {
    const { onRecord } = this.options;
    if (!onRecord) return;
    try {
      const done = onRecord(record);
      if (done) this.sinkDone = Promise.all([this.sinkDone, done.catch((error: unknown) => this.sinkFailed(error))]).then(() => undefined);
    } catch (error) {
      this.sinkFailed(error);
    }
  }

  private sinkFailed(error: unknown): void {
    if (this.sinkWarned) return;
    this.sinkWarned = true;
    console.warn(`[crewts] the verbose log could not be written, the run goes on without it: ${error instanceof Error ? error.message : String(error)}`);
  }

  private callStarted(event: CrewtsEvent<"llm_call_started">): void {
    if (!this.animate) return;
    const label = stripControls(event.agentRole !== undefined ? `${event.agentRole} is thinking (${event.model})` : `Waiting for ${event.model}`);
    this.calls.set(event.callId, { label, startedAt: Date.now() });
    if (this.timer) return;
    this.timer = setInterval(() => this.drawProgress(), FRAME_MS);
    // A progress line must never keep the process alive.
    this.timer.unref();
  }

  private callEnded(callId: string): void {
    this.calls.delete(callId);
    if (this.calls.size === 0) this.stopProgress();
  }

  private drawProgress(): void {
    const oldest = this.calls.values().next();
    if (oldest.done) return this.stopProgress();
    const elapsed = Date.now() - oldest.value.startedAt;
    if (elapsed < this.spinnerDelayMs) return;
    const more = this.calls.size > 1 ? ` and ${this.calls.size - 1} more` : "";
    let line = `${FRAMES[this.frame++ % FRAMES.length]} ${oldest.value.label}${more} ${Math.floor(elapsed / 1000)}s`;
    if (this.stream.columns && line.length >= this.stream.columns) line = line.slice(0, this.stream.columns - 1);
    this.stream.write(CLEAR_LINE + (this.color ? paint(line, "dim") : line));
    this.progressShown = true;
  }

  private stopProgress(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.progressShown) this.stream.write(CLEAR_LINE);
    this.progressShown = false;
  }
}
