import { cancel, intro, isCancel, log, note, outro, spinner, text } from "@clack/prompts";
import { isBaseLLM, resolveLLM } from "../../llm/resolveLLM.js";
import type { BaseLLM, ChatMessage } from "../../llm/types.js";
import { placeholdersOf } from "../../task/interpolate.js";
import { chatPrompts } from "./chatPrompts.js";
import { projectCrew, type ProjectCrewSetup } from "./projectCrew.js";
import type { EntryModule } from "./projectRunner.js";

/** What chat needs of a crew; a crewts Crew satisfies it (duck-typed: the project may have its own copy of crewts). */
interface ChatCrew {
  name?: string;
  agents: { role: string; goal: string; backstory: string; llm?: unknown }[];
  tasks: { description: string; expectedOutput: string; outputFile?: string }[];
  kickoff(inputs: Record<string, unknown>, options: { stream: false }): Promise<{ raw: string; tasksOutput: { description: string; raw: string; agent: string }[] }>;
}

const EXIT_WORDS = new Set(["exit", "quit", "bye", "/exit", "/quit"]);

/**
 * `crewts chat`: asks for the crew's inputs (its `{placeholders}`, defaults from the exported
 * `inputs`), runs it, shows the result, then answers follow-up questions from the task outputs
 * until the user types exit (or presses Ctrl-C).
 */
export async function chat(mod: EntryModule, file: string): Promise<number> {
  intro("crewts chat");
  const setup = await projectCrew<ChatCrew>(mod, file, "crewts chat");
  try {
    const { crew } = setup;
    const defaults = (typeof mod.inputs === "object" && mod.inputs !== null ? mod.inputs : {}) as Record<string, unknown>;
    const inputs: Record<string, unknown> = {};
    for (const name of crewPlaceholders(crew)) {
      const fallback = defaults[name] === undefined ? "" : typeof defaults[name] === "string" ? defaults[name] : JSON.stringify(defaults[name]);
      const answer = await text({
        message: `${name}?`,
        placeholder: fallback || undefined,
        defaultValue: fallback || undefined,
        validate: (value) => (value?.trim() || fallback ? undefined : `Give a value for {${name}}.`),
      });
      if (isCancel(answer)) return ended();
      inputs[name] = answer.trim() || fallback;
    }

    log.step(`Running ${crew.name && crew.name !== "crew" ? `crew "${crew.name}"` : "the crew"}...`);
    const output = await crew.kickoff(inputs, { stream: false });
    note(output.raw.trim() || "(empty answer)", "Result");

    const llm = chatLLM(setup);
    const history: ChatMessage[] = [{ role: "system", content: chatPrompts.system(inputs, output.tasksOutput) }];
    for (;;) {
      const question = await text({ message: "Ask about the result (exit to quit)", placeholder: "What is the most important point?" });
      if (isCancel(question)) return ended();
      if (EXIT_WORDS.has(question.trim().toLowerCase())) break;
      if (!question.trim()) continue;
      history.push({ role: "user", content: question.trim() });
      const thinking = spinner();
      thinking.start("Thinking");
      try {
        const answer = (await llm.call(history)).text.trim();
        thinking.stop("Answer");
        history.push({ role: "assistant", content: answer });
        log.message(answer || "(no answer)");
      } catch (error) {
        thinking.error("No answer");
        history.pop();
        log.error(`The model failed: ${(error as Error).message}`);
      }
    }
    outro("Chat ended.");
    return 0;
  } finally {
    await setup.close?.();
  }
}

// Ctrl-C (or Esc) at a prompt: the shell's convention for a run interrupted by SIGINT, 128 + 2.
const INTERRUPTED = 130;

function ended(): number {
  cancel("Chat ended.");
  return INTERRUPTED;
}

/** Every `{placeholder}` of the crew's tasks and agents, in order of appearance. */
export function crewPlaceholders(crew: Pick<ChatCrew, "agents" | "tasks">): string[] {
  const texts = [
    ...crew.tasks.flatMap((task) => [task.description, task.expectedOutput, task.outputFile ?? ""]),
    ...crew.agents.flatMap((agent) => [agent.role, agent.goal, agent.backstory]),
  ];
  return [...new Set(texts.flatMap((value) => placeholdersOf(value ?? "")))];
}

/** The model that answers questions: the one createCrew returned, else the first agent's. */
function chatLLM(setup: ProjectCrewSetup<ChatCrew>): BaseLLM {
  if (isBaseLLM(setup.llm)) return setup.llm;
  if (typeof setup.llm === "string") return resolveLLM(setup.llm);
  const agentLLM = setup.crew.agents[0]?.llm;
  return isBaseLLM(agentLLM) ? agentLLM : resolveLLM();
}
