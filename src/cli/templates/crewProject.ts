// The files of `crewts create crew <name>` (CrewAI's crew template, in TypeScript). {{className}} and
// {{title}} are filled in; single-brace {placeholders} are the crew's inputs and stay as they are.

export const crewAgentsYaml = `# The agents of this crew. Each key is an agent's name; tasks.yaml refers to agents by these names.
# {placeholders} are filled from the inputs in src/main.ts.
# Keys: role, goal, backstory (required); llm, tools, allow_delegation, verbose, max_iter, max_rpm,
# max_execution_time, max_retry_limit, reasoning, inject_date, cache, ...
researcher:
  role: >
    {topic} Senior Data Researcher
  goal: >
    Uncover cutting-edge developments in {topic}
  backstory: >
    You're a seasoned researcher with a knack for uncovering the latest
    developments in {topic}. Known for your ability to find the most relevant
    information and present it in a clear and concise manner.
  # llm: openai/gpt-4o-mini   # a model for this agent only (default: MODEL, or the offline mock)

reporting_analyst:
  role: >
    {topic} Reporting Analyst
  goal: >
    Create detailed reports based on {topic} data analysis and research findings
  backstory: >
    You're a meticulous analyst with a keen eye for detail. You're known for
    your ability to turn complex data into clear and concise reports, making
    it easy for others to understand and act on the information you provide.
  tools: [word_counter]   # names from the tools of the crew class (src/crew.ts)
`;

export const crewTasksYaml = `# The tasks of this crew, run in this order. Each key is a task's name.
# Keys: description, expected_output (required); agent, context, tools, output_file, markdown,
# async_execution, human_input, output_json, guardrail, ...
research_task:
  description: >
    Conduct a thorough research about {topic}.
    Make sure you find any interesting and relevant information given
    the current year is {current_year}.
  expected_output: >
    A list with 10 bullet points of the most relevant information about {topic}
  agent: researcher

reporting_task:
  description: >
    Review the context you got and expand each topic into a full section for a report.
    Make sure the report is detailed and contains any and all relevant information.
  expected_output: >
    A fully fledged report with the main topics, each with a full section of information.
    Formatted as markdown without code fences.
  agent: reporting_analyst
  context: [research_task]
  output_file: report.md
  markdown: true
`;

export const crewClassTs = `import { Agent, Crew, CrewBase, Process, Task, agent, crew, task, type AgentConfig, type TaskConfig } from "crewts";
import { wordCounter } from "./tools/wordCounter.js";

/**
 * The {{title}} crew. Agents and tasks are defined in src/config/agents.yaml and tasks.yaml; each
 * method below builds the entry named like it (reportingAnalyst builds reporting_analyst) and is the
 * place to add what YAML cannot say: tools made in code, callbacks, guardrail functions.
 */
export class {{className}} extends CrewBase {
  agentsConfig = new URL("./config/agents.yaml", import.meta.url);
  tasksConfig = new URL("./config/tasks.yaml", import.meta.url);
  /** Tools the YAML \`tools:\` lists can name. */
  tools = { word_counter: wordCounter };

  @agent
  researcher(config: AgentConfig): Agent {
    return new Agent(config);
  }

  @agent
  reportingAnalyst(config: AgentConfig): Agent {
    return new Agent(config);
  }

  @task
  researchTask(config: TaskConfig): Task {
    return new Task(config);
  }

  @task
  reportingTask(config: TaskConfig): Task {
    return new Task(config);
  }

  @crew
  crew(): Crew {
    return new Crew({
      agents: this.agents, // every agent of agents.yaml
      tasks: this.tasks, // every task of tasks.yaml, in file order
      process: Process.sequential, // or Process.hierarchical, with managerLLM
      verbose: true, // a live account of the run in the terminal
    });
  }
}
`;

export const wordCounterTs = `import { z } from "zod";
import { tool } from "crewts";

/** A tool agents can call: counts the words and sentences of a text. */
export const wordCounter = tool({
  name: "word_counter",
  description: "Counts the words and sentences of a text, to check the length of a draft.",
  schema: z.object({ text: z.string().describe("the text to measure") }),
  execute: ({ text }) => ({
    words: text.split(/\\s+/).filter(Boolean).length,
    sentences: text.split(/[.!?]+\\s/).filter((s) => s.trim()).length,
  }),
});
`;

export const crewMainTs = `// The entry points crewts calls:
//   crewts run                             -> run()
//   crewts train -n 3 -f trained_agents_data.json  -> train(3, "trained_agents_data.json")
//   crewts replay -t <task id>             -> replay(taskId)   (ids: crewts log-tasks-outputs)
//   crewts test -n 3 -m openai/gpt-4o-mini -> test(3, "openai/gpt-4o-mini")
//   crewts chat                            -> createCrew() and inputs
import type { Crew } from "crewts";
import { {{className}} } from "./crew.js";
import { chooseLLM, type ChosenLLM } from "./offline.js";

/** The values of the {placeholders} in src/config/*.yaml. */
export const inputs = {
  topic: "AI LLMs",
  current_year: String(new Date().getFullYear()),
};

/** The crew, with the model chooseLLM picked; call close() when you are done with it. */
export async function createCrew(): Promise<ChosenLLM & { crew: Crew }> {
  const chosen = await chooseLLM();
  try {
    return { ...chosen, crew: new {{className}}({ llm: chosen.llm }).crew() };
  } catch (error) {
    await chosen.close();
    throw error;
  }
}

/** Runs the crew once with \`inputs\`; prints its final answer unless the crew's verbose account already showed it. */
export async function run(): Promise<void> {
  await withCrew(async (crew) => {
    const output = await crew.kickoff(inputs);
    if (!crew.options.verbose) console.log(output.raw);
  });
}

/** Runs the crew \`iterations\` times, asks for your feedback on each result, and saves what the agents learned. */
export async function train(iterations: number, filename: string): Promise<void> {
  const result = await withCrew((crew) => crew.train({ iterations, filename, inputs }));
  console.log(\`\\nSaved what the agents learned to \${result.filename}: later runs of this crew use it.\`);
}

/** Runs the latest kickoff again from the task \`taskId\`, keeping the outputs of the tasks before it. */
export async function replay(taskId: string): Promise<void> {
  await withCrew(async (crew) => {
    const output = await crew.replay(taskId);
    if (!crew.options.verbose) console.log(output.raw);
  });
}

/** Runs the crew \`iterations\` times and has \`evalModel\` score every task from 1 to 10. */
export async function test(iterations: number, evalModel: string): Promise<void> {
  await withCrew((crew, chosen) => crew.test({ iterations, evalLLM: chosen.offline && chosen.llm ? chosen.llm : evalModel, inputs }));
}

async function withCrew<T>(use: (crew: Crew, chosen: ChosenLLM) => Promise<T>): Promise<T> {
  const { crew, ...chosen } = await createCrew();
  try {
    return await use(crew, chosen);
  } finally {
    await chosen.close();
  }
}
`;

export const crewReadme = `# {{title}}

A crew of AI agents built with crewts, CrewAI for TypeScript.

\`\`\`sh
npm install
npx crewts run          # runs the crew; offline against a mock model until you set a key in .env
\`\`\`

Copy \`.env.example\` to \`.env\` and set \`OPENAI_API_KEY\` (or \`ANTHROPIC_API_KEY\`, \`OLLAMA_HOST\`, \`MODEL\`) to use a real model.

When crewts was not installed from a registry, \`crewts create\` packed it into this folder (\`crewts-<version>.tgz\`,
the \`file:\` dependency in package.json), so \`npm install\` needs no registry entry for it. Keep the file
with the project; once crewts is published, switch with \`npm install crewts@latest\` and delete it.

## Where things are

| file | what it holds |
|---|---|
| \`src/config/agents.yaml\` | the agents: role, goal, backstory, tools, llm |
| \`src/config/tasks.yaml\` | the tasks: description, expected_output, agent, context, output_file |
| \`src/crew.ts\` | the crew class: builds each agent and task from the YAML and assembles the crew |
| \`src/main.ts\` | the inputs for the \`{placeholders}\`, and what \`crewts run / train / replay / test\` call |
| \`src/tools/\` | your own tools; register them in the crew class's \`tools\` to name them in YAML |
| \`src/offline.ts\` | picks the model, or the offline mock server |

## Commands

| command | what it does |
|---|---|
| \`npx crewts run\` | run the crew with the inputs in src/main.ts (the final report goes to report.md) |
| \`npx crewts chat\` | asks for the inputs, runs the crew, then answers your questions about the result |
| \`npx crewts log-tasks-outputs\` | the task ids and outputs of the latest run |
| \`npx crewts replay -t <task id>\` | rerun the latest run from that task |
| \`npx crewts train -n 3 -f trained_agents_data.json\` | run 3 times with your feedback; the agents use what they learned |
| \`npx crewts test -n 3 -m openai/gpt-4o-mini\` | run 3 times and score every task |
| \`npx crewts reset-memories -a\` | forget stored task outputs and memories |
`;
