import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { Crew, type CrewOutput } from "../../src/crew/index.js";
import { afterKickoff, agent, beforeKickoff, crew, CrewBase, ProjectConfigError, task, type AgentConfig, type TaskConfig } from "../../src/project/index.js";
import { Task } from "../../src/task/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { tool } from "../../src/tools/index.js";

const AGENTS = `researcher:
  role: >
    {topic} Senior Researcher
  goal: Find what matters about {topic}
  backstory: You read everything.
  max_iter: 5
  allow_delegation: false

reporting_analyst:
  role: Reporting Analyst
  goal: Write reports
  backstory: You write clearly.
  tools: [word_counter]
`;

const TASKS = `research_task:
  description: >
    Research {topic}.
  expected_output: Ten bullet points about {topic}
  agent: researcher

reporting_task:
  description: Write the report.
  expected_output: A report
  agent: reporting_analyst
  context: [research_task]
  output_file: "{dir}/report.md"
  markdown: true
`;

const wordCounter = tool({
  name: "word_counter",
  description: "Counts words",
  schema: z.object({ text: z.string() }),
  execute: ({ text }) => text.split(/\s+/).length,
});

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A folder with agents.yaml and tasks.yaml. */
function project(agents: string, tasks: string): { dir: string; agents: string; tasks: string } {
  const dir = mkdtempSync(join(tmpdir(), "crewts-project-"));
  tempDirs.push(dir);
  writeFileSync(join(dir, "agents.yaml"), agents);
  writeFileSync(join(dir, "tasks.yaml"), tasks);
  return { dir, agents: join(dir, "agents.yaml"), tasks: join(dir, "tasks.yaml") };
}

const finalAnswers = (...answers: string[]) => new FakeLLM(answers.map((a) => `Thought: done\nFinal Answer: ${a}`));

function researchCrew(paths: { agents: string; tasks: string }) {
  class ResearchCrew extends CrewBase {
    override agentsConfig = paths.agents;
    override tasksConfig = paths.tasks;
    override tools = { word_counter: wordCounter };

    @agent
    researcher(config: AgentConfig): Agent {
      return new Agent({ ...config, verbose: false });
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
      return new Crew({ agents: this.agents, tasks: this.tasks });
    }
  }
  return ResearchCrew;
}

/** Runs `fn` with `dir` as the working directory. */
async function inDir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  process.chdir(dir);
  try {
    return await fn();
  } finally {
    process.chdir(before);
  }
}

/** The ProjectConfigError message thrown by `fn`. */
function configError(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ProjectConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ProjectConfigError");
}

describe("CrewBase: building from YAML", () => {
  it("builds agents and tasks from the YAML, resolving agent, context and tools by name, and runs the crew", async () => {
    const paths = project(AGENTS, TASKS);
    const llm = finalAnswers("- point one", "# Report");
    const ResearchCrew = researchCrew(paths);
    const instance = new ResearchCrew({ llm });
    const [researcher, analyst] = instance.agents;
    expect(researcher!.role).toBe("{topic} Senior Researcher");
    expect(researcher!.options.maxIter).toBe(5);
    expect(researcher!.options.allowDelegation).toBe(false);
    expect(analyst!.tools.map((t) => t.name)).toEqual(["word_counter"]);
    const [research, reporting] = instance.tasks;
    expect(research!.agent).toBe(researcher);
    expect(reporting!.agent).toBe(analyst);
    expect(reporting!.context).toEqual([research]);
    expect(reporting!.name).toBe("reporting_task");
    expect(research!.description).toBe("Research {topic}.");

    // An output file path from inputs must stay inside the working directory.
    const output = await inDir(paths.dir, () => instance.crew().kickoff({ topic: "AI", dir: "out" }));
    expect(output.raw).toBe("# Report");
    expect(readFileSync(join(paths.dir, "out", "report.md"), "utf8")).toBe("# Report");
    expect(llm.calls[0]!.messages.map((m) => m.content).join("\n")).toContain("Research AI.");
    expect(researcher!.role).toBe("AI Senior Researcher");
  });

  it("builds each entry once per instance: methods, agent() and the agents list return the same objects", () => {
    const paths = project(AGENTS, TASKS);
    const instance = new (researchCrew(paths))({ llm: finalAnswers() });
    const first = instance.agent("researcher");
    expect(instance.agent("researcher")).toBe(first);
    expect(instance.researcher(undefined as unknown as AgentConfig)).toBe(first);
    expect(instance.agent("reportingAnalyst")).toBe(instance.agents[1]);
    expect(instance.task("reporting_task").context?.[0]).toBe(instance.task("research_task"));
    expect(instance.crew().agents).toEqual(instance.agents);
  });

  it("builds entries without a method straight from the YAML, in file order", () => {
    const paths = project(AGENTS, TASKS);
    class Declared extends CrewBase {
      override agentsConfig = paths.agents;
      override tasksConfig = paths.tasks;
      override tools = { word_counter: () => wordCounter };
    }
    const instance = new Declared({ llm: "openai/gpt-4o-mini" });
    expect(instance.agents.map((a) => a.role)).toEqual(["{topic} Senior Researcher", "Reporting Analyst"]);
    expect(instance.tasks.map((t) => t.name)).toEqual(["research_task", "reporting_task"]);
    expect(instance.agents[0]!.llm.model).toBe("openai/gpt-4o-mini");
    expect(instance.agentConfig("researcher")).toMatchObject({ role: "{topic} Senior Researcher", maxIter: 5 });
  });

  it("accepts configs as objects and camelCase keys, and resolves llm, output_json and the entry a decorator names", async () => {
    const llm = new FakeLLM(['Thought: done\nFinal Answer: {"title": "AI"}']);
    class Named extends CrewBase {
      override agentsConfig = { lead: { role: "Lead", goal: "Lead", backstory: "Leads", llm: "fast", maxIter: 2 } };
      override tasksConfig = { summary: { description: "Sum up", expectedOutput: "JSON", agent: "lead", output_json: "Summary" } };
      override llms = { fast: llm };
      override schemas = { Summary: z.object({ title: z.string() }) };

      @agent("lead")
      boss(config: AgentConfig): Agent {
        return new Agent(config);
      }
    }
    const instance = new Named();
    expect(instance.agent("lead")).toBe(instance.boss(undefined as unknown as AgentConfig));
    expect(instance.agents[0]!.llm).toBe(llm);
    expect(instance.agents[0]!.options.maxIter).toBe(2);
    const output = await new Crew({ agents: instance.agents, tasks: instance.tasks }).kickoff();
    expect(output.tasksOutput[0]!.parsed).toEqual({ title: "AI" });
  });

  it("lets a method without a YAML entry build its agent in code, and reports one that reads the missing config", () => {
    const paths = project(AGENTS, TASKS);
    class Extra extends CrewBase {
      override agentsConfig = paths.agents;
      override tasksConfig = paths.tasks;
      override tools = { word_counter: wordCounter };

      @agent
      editor(): Agent {
        return new Agent({ role: "Editor", goal: "Edit", backstory: "Edits", llm: "openai/gpt-4o-mini" });
      }

      @agent
      critic(config: AgentConfig): Agent {
        return new Agent({ ...config, llm: "openai/gpt-4o-mini" });
      }
    }
    const instance = new Extra();
    expect(instance.agent("editor").role).toBe("Editor");
    expect(configError(() => instance.agent("critic"))).toMatch(/@agent method "critic" reads its config, but .*agents\.yaml has no entry "critic" \(known: researcher, reporting_analyst\)/);
  });

  it("attaches @beforeKickoff and @afterKickoff methods to the @crew crew", async () => {
    const paths = project(AGENTS, TASKS);
    const seen: string[] = [];
    class Hooked extends researchCrew(paths) {
      @beforeKickoff
      prepare(inputs: Record<string, unknown>): Record<string, unknown> {
        seen.push(`before:${String(inputs.topic)}`);
        return { ...inputs, topic: "Agents" };
      }

      @afterKickoff
      finish(output: CrewOutput): void {
        seen.push(`after:${output.raw}`);
      }
    }
    const output = await inDir(paths.dir, () => new Hooked({ llm: finalAnswers("points", "report") }).crew().kickoff({ topic: "AI", dir: "out" }));
    expect(output.raw).toBe("report");
    expect(seen).toEqual(["before:AI", "after:report"]);
  });
});

describe("CrewBase: YAML mistakes name the file, the line and the key", () => {
  const build = (agents: string, tasks: string, tools: Record<string, unknown> = { word_counter: wordCounter }) => {
    const paths = project(agents, tasks);
    class Checked extends CrewBase {
      override agentsConfig = paths.agents;
      override tasksConfig = paths.tasks;
      override tools = tools as Record<string, typeof wordCounter>;
    }
    return { paths, make: () => new Checked().tasks };
  };

  it("an agent name that is not in agents.yaml", () => {
    const { paths, make } = build(AGENTS, TASKS.replace("agent: reporting_analyst", "agent: reporter"));
    expect(configError(make)).toBe(
      `${join(paths.dir, "tasks.yaml")}:10: task "reporting_task": agent "reporter" is not defined in agents.yaml (known: researcher, reporting_analyst)`,
    );
  });

  it("shows the path relative to the working directory when the file is inside it", () => {
    class Relative extends CrewBase {
      override agentsConfig = "test/project/fixtures/agents.yaml";
      override tasksConfig = "test/project/fixtures/tasks-bad-agent.yaml";
    }
    expect(configError(() => new Relative().tasks)).toBe(
      'test/project/fixtures/tasks-bad-agent.yaml:12: task "write": agent "reporter" is not defined in agents.yaml (known: researcher, writer)',
    );
  });

  it("an unknown key, with the likely one", () => {
    const { make } = build(AGENTS, TASKS.replace("expected_output: A report", "expected_ouput: A report"));
    expect(configError(make)).toMatch(/tasks\.yaml:9: task "reporting_task": unknown key "expected_ouput"; did you mean "expected_output"\?$/);
  });

  it("an agent key in a task", () => {
    const { make } = build(AGENTS, TASKS.replace("markdown: true", "max_iter: 3"));
    expect(configError(make)).toMatch(/tasks\.yaml:13: task "reporting_task": unknown key "max_iter"; it is an agent setting: move it to the agent in agents\.yaml$/);
  });

  it("a value of the wrong type", () => {
    const { make } = build(AGENTS.replace("max_iter: 5", "max_iter: many"), TASKS);
    expect(configError(make)).toMatch(/agents\.yaml:6: agent "researcher": max_iter must be a whole number above 0, got "many"\.$/);
  });

  it("broken YAML", () => {
    const { make } = build("researcher:\n  role: x\n  goal: [y\n", TASKS);
    expect(configError(make)).toMatch(/agents\.yaml:\d+: invalid YAML: /);
  });

  it("an entry that is not a map, and a missing required key", () => {
    expect(configError(build("researcher: Senior\n", TASKS).make)).toMatch(/agents\.yaml:1: agent "researcher" must be a map of settings \(role, goal, backstory, \.\.\.\), not the value "Senior"\.$/);
    expect(configError(build(AGENTS.replace("  goal: Write reports\n", ""), TASKS).make)).toMatch(/agents\.yaml:9: agent "reporting_analyst" has no goal: add "goal: \.\.\." under it\.$/);
  });

  it("a tool, a context task or a schema that is not registered", () => {
    expect(configError(build(AGENTS, TASKS, {}).make)).toMatch(/agents\.yaml:13: agent "reporting_analyst": tool "word_counter" is not registered in the crew class \(known: none\)\. Add it: tools = \{ word_counter: myTool \}$/);
    expect(configError(build(AGENTS, TASKS.replace("context: [research_task]", "context: [research]")).make)).toMatch(
      /tasks\.yaml:11: task "reporting_task": context task "research" is not defined in tasks\.yaml \(known: research_task, reporting_task\)$/,
    );
    expect(configError(build(AGENTS, TASKS.replace("markdown: true", "output_json: Report")).make)).toMatch(/tasks\.yaml:13: task "reporting_task": output_json "Report" is not registered in the crew class \(known: none\)/);
  });

  it("a context that leads back to the task", () => {
    const tasks = TASKS.replace("  agent: researcher\n", "  agent: researcher\n  context: [reporting_task]\n");
    expect(configError(build(AGENTS, tasks).make)).toMatch(/tasks\.yaml:1: task "research_task": its context leads back to itself \(research_task -> reporting_task -> research_task\)/);
  });

  it("a missing file", () => {
    class Missing extends CrewBase {
      override agentsConfig = "nowhere/agents.yaml";
    }
    expect(configError(() => new Missing().agents)).toMatch(/^nowhere\/agents\.yaml: cannot read the agents config \(file not found\)\. Create it, or point agentsConfig at it/);
  });

  it("a crewts validation error of an entry gets the entry's location", () => {
    const { make } = build(AGENTS.replace("  max_iter: 5\n", "  max_iter: 5\n  llm: nonsense\n"), TASKS);
    const message = configError(make);
    expect(message).toMatch(/agents\.yaml:1: agent "researcher": /);
  });
});
