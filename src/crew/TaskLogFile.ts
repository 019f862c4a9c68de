import { appendFile, mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";

/** One line of a crew's output log file. */
export interface TaskLogEntry {
  timestamp: string;
  taskName?: string;
  task: string;
  agent: string;
  status: "completed";
  output: string;
}

/**
 * The file a crew's `outputLogFile` names: one JSON object per line for each finished task (CrewAI's
 * FileHandler, as JSON lines so every line can be parsed on its own). `true` means ./logs.txt.
 */
export class TaskLogFile {
  readonly path: string;
  // Appends are chained so lines keep their order even when async tasks finish together.
  private tail: Promise<void> = Promise.resolve();

  constructor(target: true | string) {
    this.path = resolve(target === true ? "logs.txt" : target);
  }

  /** Appends one entry; resolves when it is written. */
  append(entry: Omit<TaskLogEntry, "timestamp">): Promise<void> {
    const line = `${JSON.stringify({ timestamp: new Date().toISOString(), ...entry })}\n`;
    const write = this.tail.then(async () => {
      await mkdir(dirname(this.path), { recursive: true });
      await appendFile(this.path, line, "utf8");
    });
    this.tail = write.catch(() => undefined);
    return write;
  }
}
