// The files of `crewts create flow <name>` (CrewAI's flow template, in TypeScript): a flow whose
// second step runs a crew. {{className}} and {{title}} are filled in.

export const poemAgentsYaml = `# The agents of the poem crew; {placeholders} are filled from the flow's kickoff of the crew.
poem_writer:
  role: >
    crewts Poem Writer
  goal: >
    Write a funny, light-hearted poem about how crewts is awesome, with exactly {sentence_count} sentences
  backstory: >
    You're a creative poet with a talent for capturing the essence of any topic in a beautiful
    and engaging way. Your poems resonate with readers and have a unique, playful flair.
`;

export const poemTasksYaml = `write_poem:
  description: >
    Write a poem about how crewts is awesome.
    Make it engaging, and use exactly {sentence_count} sentences.
  expected_output: >
    A beautifully crafted poem about crewts, with exactly {sentence_count} sentences.
  agent: poem_writer
`;

export const poemCrewTs = `import { Agent, Crew, CrewBase, Process, Task, agent, crew, task, type AgentConfig, type TaskConfig } from "crewts";

/** The crew the flow runs: one poet, one task, defined in ./config/agents.yaml and tasks.yaml. */
export class PoemCrew extends CrewBase {
  agentsConfig = new URL("./config/agents.yaml", import.meta.url);
  tasksConfig = new URL("./config/tasks.yaml", import.meta.url);

  @agent
  poemWriter(config: AgentConfig): Agent {
    return new Agent(config);
  }

  @task
  writePoem(config: TaskConfig): Task {
    return new Task(config);
  }

  @crew
  crew(): Crew {
    return new Crew({ agents: this.agents, tasks: this.tasks, process: Process.sequential, verbose: true });
  }
}
`;

export const flowMainTs = `// The flow and the entry points crewts calls:
//   crewts run / crewts flow kickoff -> kickoff()
//   crewts flow plot                 -> plot()   (writes crewts_flow.html)
import { writeFile } from "node:fs/promises";
import { Flow, listen, start } from "crewts";
import { PoemCrew } from "./crews/poem/crew.js";
import { chooseLLM, type ChosenLLM } from "./offline.js";

/** What the flow's steps share; every flow state also has an \`id\`. */
interface PoemState {
  sentenceCount: number;
  poem: string;
}

/** The {{title}} flow: picks a length, has the poem crew write the poem, saves it to poem.txt. */
export class {{className}} extends Flow<PoemState, string> {
  initialState = { sentenceCount: 1, poem: "" };
  /** The model of the crews this flow runs (kickoff below sets it). */
  llm: ChosenLLM["llm"] | undefined;

  @start()
  generateSentenceCount(): void {
    this.state.sentenceCount = 1 + Math.floor(Math.random() * 5);
  }

  @listen("generateSentenceCount")
  async generatePoem(): Promise<void> {
    const output = await new PoemCrew({ llm: this.llm }).crew().kickoff({ sentence_count: this.state.sentenceCount });
    this.state.poem = output.raw;
  }

  @listen("generatePoem")
  async savePoem(): Promise<string> {
    await writeFile("poem.txt", this.state.poem + "\\n");
    return this.state.poem;
  }
}

/** Runs the flow once and prints the poem. */
export async function kickoff(): Promise<void> {
  const chosen = await chooseLLM();
  try {
    const flow = new {{className}}();
    flow.llm = chosen.llm;
    const poem = await flow.kickoff(); // a string: Flow<PoemState, string> declares what kickoff resolves to
    console.log("\\n" + poem + "\\n\\nSaved to poem.txt");
  } finally {
    await chosen.close();
  }
}

/** Writes an interactive HTML drawing of the flow and returns its path. */
export async function plot(filename?: string): Promise<string> {
  return new {{className}}().plot(filename);
}
`;

export const flowReadme = `# {{title}}

An event-driven flow built with crewts, CrewAI for TypeScript:
its steps are methods marked \`@start()\` and \`@listen(...)\`, and one of them runs a crew.

\`\`\`sh
npm install
npx crewts run          # runs the flow; offline against a mock model until you set a key in .env
npx crewts flow plot    # draws the flow into crewts_flow.html
\`\`\`

Copy \`.env.example\` to \`.env\` and set \`OPENAI_API_KEY\` (or \`ANTHROPIC_API_KEY\`, \`OLLAMA_HOST\`, \`MODEL\`) to use a real model.

When crewts was not installed from a registry, \`crewts create\` packed it into this folder (\`crewts-<version>.tgz\`,
the \`file:\` dependency in package.json), so \`npm install\` needs no registry entry for it. Keep the file
with the project; once crewts is published, switch with \`npm install crewts@latest\` and delete it.

## Where things are

| file | what it holds |
|---|---|
| \`src/main.ts\` | the flow class and what \`crewts run\` and \`crewts flow plot\` call |
| \`src/crews/poem/config/*.yaml\` | the poem crew's agents and tasks |
| \`src/crews/poem/crew.ts\` | the poem crew class |
| \`src/offline.ts\` | picks the model, or the offline mock server |

Add a crew: copy \`src/crews/poem\`, rename the class, edit its YAML, and kick it off from a flow step.
`;
