import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { SQLiteTaskOutputStore, storageDir, TASK_OUTPUTS_DB_FILE } from "../../storage/index.js";
import { CliError, ExitCode } from "../CliError.js";
import { findProject } from "../findProject.js";
import { useProjectFolder } from "../projectFolder.js";

/** The options of `crewts reset-memories`, one per kind (`-kn` and `-akn` arrive as --knowledge and --agent-knowledge). */
export interface ResetMemoriesOptions {
  all?: boolean;
  short?: boolean;
  long?: boolean;
  entities?: boolean;
  external?: boolean;
  knowledge?: boolean;
  agentKnowledge?: boolean;
  kickoffOutputs?: boolean;
}

type Kind = Exclude<keyof ResetMemoriesOptions, "all">;

// What each kind keeps in the storage directory. The memory and knowledge stores must use these
// names when they are added, so that this command resets them.
const KINDS: Record<Kind, { label: string; paths: string[] }> = {
  short: { label: "Short-term memory", paths: ["short_term_memory.db"] },
  long: { label: "Long-term memory", paths: ["long_term_memory.db"] },
  entities: { label: "Entity memory", paths: ["entity_memory.db"] },
  external: { label: "External memory", paths: [] }, // at its provider, reset through the project's crew
  knowledge: { label: "Crew knowledge", paths: ["knowledge"] },
  agentKnowledge: { label: "Agent knowledge", paths: ["agent_knowledge"] },
  kickoffOutputs: { label: "Latest kickoff task outputs", paths: [TASK_OUTPUTS_DB_FILE] },
};

/**
 * Resets the external memory of the project's crew in the project's process (createCrew() builds the
 * crew, its resetMemories("external") clears the provider); `quiet`: a crew without one is not reported.
 * Resolves with the exit code.
 */
export type ExternalReset = (quiet: boolean) => Promise<number>;

/**
 * `crewts reset-memories`: clears the chosen kinds from the project's storage directory; --external
 * (and -a, when the project exports createCrew()) asks the crew to reset its external memory.
 */
export async function resetMemories(options: ResetMemoriesOptions, print: (line: string) => void = console.log, resetExternal?: ExternalReset): Promise<number> {
  const kinds = options.all ? (Object.keys(KINDS) as Kind[]) : (Object.keys(KINDS) as Kind[]).filter((kind) => options[kind]);
  if (kinds.length === 0) {
    throw new CliError(
      "Say what to reset: -a for everything, or any of -s (short-term), -l (long-term), -e (entity), -kn (knowledge), " +
        "-akn (agent knowledge), -k (latest kickoff task outputs). See crewts reset-memories --help.",
      ExitCode.usage,
    );
  }
  useProjectFolder("reset-memories");
  const dir = storageDir(false);
  const notEnabled: string[] = [];
  let code = 0;
  for (const kind of kinds) {
    if (kind === "external") {
      code = await resetExternalOf(options.external === true, resetExternal, print);
      continue;
    }
    const { label, paths } = KINDS[kind];
    const present = paths.map((path) => join(dir, path)).filter((path) => existsSync(path));
    if (present.length === 0) {
      notEnabled.push(label);
      continue;
    }
    if (kind === "kickoffOutputs") await resetTaskOutputs(present[0]!);
    else for (const path of present) for (const file of withSidecars(path)) await rm(file, { recursive: true, force: true });
    print(`${label} reset.`);
  }
  if (notEnabled.length > 0) print(`${list(notEnabled)}: not enabled or empty in this project (nothing stored in ${dir}), so there was nothing to reset.`);
  return code;
}

/** External memory lives at its provider: only the project's crew can reach it. With -a alone, a project without createCrew() is skipped. */
async function resetExternalOf(asked: boolean, resetExternal: ExternalReset | undefined, print: (line: string) => void): Promise<number> {
  if (!resetExternal) {
    if (asked) print("External memory lives in its provider: reset it there, or run crewts reset-memories --external in the project.");
    return 0;
  }
  if (!asked && !projectExportsCreateCrew()) return 0;
  return resetExternal(!asked);
}

/** Whether the project's entry file mentions createCrew (a project made by crewts create crew exports it). */
function projectExportsCreateCrew(): boolean {
  try {
    return /\bcreateCrew\b/.test(readFileSync(findProject().entry, "utf8"));
  } catch {
    return false;
  }
}

async function resetTaskOutputs(file: string): Promise<void> {
  const store = new SQLiteTaskOutputStore(file);
  try {
    await store.reset();
  } finally {
    await store.close();
  }
}

/** A database file and the journal files SQLite keeps beside it (a stale WAL must not outlive its database). */
function withSidecars(path: string): string[] {
  return path.endsWith(".db") ? [path, `${path}-wal`, `${path}-shm`, `${path}-journal`] : [path];
}

function list(labels: string[]): string {
  return labels.length <= 1 ? labels.join("") : `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)}`;
}
