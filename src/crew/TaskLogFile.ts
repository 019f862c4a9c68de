import { appendFile, mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { stripControls } from "../events/terminalText.js";
import { verboseLogLine, type VerboseRecord } from "../events/VerboseRecord.js";

/** The line of a crew's output log file for a finished task; it has the fields of a verbose log line too. */
export interface TaskLogEntry {
  type: "task_completed";
  timestamp: string;
  taskName?: string;
  task: string;
  agent: string;
  status: "completed";
  output: string;
  /** The output again, as `content` of every other line. */
  content: string;
}

/**
 * The file a crew's `outputLogFile` names, as JSON lines so every line parses on its own: one line per
 * finished task (CrewAI's FileHandler), and, when the crew is verbose, one line per event the verbose
 * printer shows (see verboseLogLine). `true` means ./logs.txt.
 */
export class TaskLogFile {
  readonly path: string;
  // Appends are chained so lines keep their order even when async tasks finish together.
  private tail: Promise<void> = Promise.resolve();

  constructor(target: true | string) {
    this.path = resolve(target === true ? "logs.txt" : target);
  }

  /** Appends the line of a finished task, without the terminal controls a model may have written (see stripControls); resolves when it is written. */
  append(entry: Omit<TaskLogEntry, "timestamp" | "type" | "content">): Promise<void> {
    const clean = Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, typeof value === "string" ? stripControls(value) : value])) as typeof entry;
    return this.write({ type: "task_completed", timestamp: new Date().toISOString(), ...clean, content: clean.output });
  }

  /**
   * Appends a verbose record. A finished task's record is skipped: append() writes that task's line,
   * with its full description and output, so each finished task has one line.
   */
  appendRecord(record: VerboseRecord): Promise<void> {
    if (record.type === "task_completed") return Promise.resolve();
    return this.write(verboseLogLine(record));
  }

  private write(line: object): Promise<void> {
    const text = `${JSON.stringify(line)}\n`;
    const write = this.tail.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      await appendFile(this.path, text, "utf8");
    });
    this.tail = write.catch(() => undefined);
    return write;
  }
}
