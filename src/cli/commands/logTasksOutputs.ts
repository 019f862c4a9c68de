import { existsSync } from "node:fs";
import { join } from "node:path";
import { stripControls } from "../../events/terminalText.js";
import { SQLiteTaskOutputStore, storageDir, TASK_OUTPUTS_DB_FILE, type StoredTaskOutput } from "../../storage/index.js";
import { useProjectFolder } from "../projectFolder.js";

const PREVIEW_CHARS = 300;

/** `crewts log-tasks-outputs`: the task ids, descriptions and outputs of the latest kickoff, as stored for replay. */
export async function logTasksOutputs(options: { full?: boolean; json?: boolean }, write: (line: string) => void = console.log): Promise<number> {
  // Outputs are a model's text: what a terminal would act on is never printed.
  const print = (line: string) => write(stripControls(line));
  useProjectFolder("log-tasks-outputs");
  const dir = storageDir(false);
  const file = join(dir, TASK_OUTPUTS_DB_FILE);
  const records = existsSync(file) ? await load(file) : [];
  if (options.json) {
    print(JSON.stringify(records.map(summary), null, 2));
    return 0;
  }
  if (records.length === 0) {
    print(`No task outputs stored yet (looked in ${dir}). Only crew kickoffs store them: run the crew first with crewts run.`);
    return 0;
  }
  const first = records[0]!;
  print(`Task outputs of the latest kickoff (${first.timestamp}, inputs ${JSON.stringify(first.inputs)}):`);
  for (const record of records) {
    const { description, agent, raw } = summary(record);
    print("");
    print(`Task ${record.taskIndex + 1}: ${record.taskId}${record.wasReplayed ? " (replayed)" : ""}`);
    print(`  Description: ${oneLine(description)}`);
    if (agent) print(`  Agent: ${agent}`);
    const shown = options.full || raw.length <= PREVIEW_CHARS ? raw : `${raw.slice(0, PREVIEW_CHARS).trimEnd()}... (${raw.length} characters; --full shows all)`;
    print(`  Output: ${options.full ? raw.replace(/\n/g, "\n    ") : oneLine(shown)}`);
  }
  print("");
  print("Rerun the crew from one of these tasks with: crewts replay -t <task id>");
  return 0;
}

async function load(file: string): Promise<StoredTaskOutput[]> {
  const store = new SQLiteTaskOutputStore(file);
  try {
    return await store.loadAll();
  } finally {
    await store.close();
  }
}

function summary(record: StoredTaskOutput): { taskId: string; taskIndex: number; description: string; agent: string; raw: string; inputs: Record<string, unknown>; wasReplayed: boolean; timestamp: string } {
  const text = (value: unknown): string => (typeof value === "string" ? value : "");
  return {
    taskId: record.taskId,
    taskIndex: record.taskIndex,
    description: text(record.output.description),
    agent: text(record.output.agent),
    raw: text(record.output.raw),
    inputs: record.inputs,
    wasReplayed: record.wasReplayed,
    timestamp: record.timestamp,
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
