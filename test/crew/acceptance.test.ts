// A CrewAI user's crews, ported to crewts: only the public entry points are imported, as a user would.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Agent,
  ConditionalTask,
  Crew,
  CrewOutput,
  CrewReplayError,
  eventBus,
  Process,
  Task,
  TaskOutput,
  tool,
  type ChatMessage,
  type CrewtsEvent,
  type GuardrailResult,
  type UsageMetrics,
} from "../../src/index.js";
import { FakeLLM } from "../../src/testing/index.js";

afterEach(() => eventBus.clear());

const final = (text: string): string => `Thought: I now can give a great answer\nFinal Answer: ${text}`;
const userOf = (llm: FakeLLM, call: number): string =>
  (llm.calls[call]?.messages ?? []).filter((m) => m.role === "user").map((m) => m.content).join("\n");
const everything = (messages: readonly ChatMessage[]): string => messages.map((m) => m.content).join("\n");

describe("a research crew ported from CrewAI (sequential)", () => {
  const Article = z.object({ title: z.string(), body: z.string() });

  function buildCrew() {
    const searchInternet = tool({
      name: "Search the internet",
      description: "Searches the internet for a query and returns the top results",
      schema: z.object({ query: z.string() }),
      execute: async ({ query }) => `Results for ${query}: alignment, interpretability`,
    });
    const researcherLLM = new FakeLLM(
      [
        'Thought: I should search first\nAction: search_the_internet\nAction Input: {"query": "AI Safety trends"}',
        final("1. Alignment research is growing\n2. Interpretability tools mature"),
      ],
      { usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } },
    );
    const writerLLM = new FakeLLM(
      [
        final('{"title": "AI Safety", "body": "Too short."}'),
        final('{"title": "AI Safety in 2025", "body": "Alignment research is growing and interpretability tools mature."}'),
      ],
      { usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 } },
    );
    const researcher = new Agent({
      role: "{topic} Senior Data Researcher",
      goal: "Uncover cutting-edge developments in {topic}",
      backstory: "You're a seasoned researcher with a knack for uncovering the latest developments in {topic}.",
      llm: researcherLLM,
      tools: [searchInternet],
    });
    const writer = new Agent({
      role: "{topic} Reporting Analyst",
      goal: "Create detailed reports based on {topic} data analysis and research findings",
      backstory: "You're a meticulous analyst with a keen eye for detail.",
      llm: writerLLM,
    });
    const bodyLongEnough = (output: TaskOutput): GuardrailResult => {
      const article = output.parsed as z.infer<typeof Article>;
      return article.body.length >= 30 ? [true, output.raw] : [false, "The body must be at least 30 characters long"];
    };
    const researchTask = new Task({
      name: "research_task",
      description: "Conduct a thorough research about {topic}",
      expectedOutput: "A list with 2 bullet points of the most relevant information about {topic}",
      agent: researcher,
    });
    const reportingTask = new Task({
      name: "reporting_task",
      description: "Review the context you got and expand each topic into a full section for a report on {topic}",
      expectedOutput: "A fully fledged report as JSON with a title and a body",
      agent: writer,
      context: [researchTask],
      outputSchema: Article,
      guardrail: bodyLongEnough,
    });
    const crew = new Crew({ agents: [researcher, writer], tasks: [researchTask, reportingTask], process: Process.sequential });
    return { crew, researcherLLM, writerLLM, researchTask, reportingTask };
  }

  it("runs the tasks in order, with tools, context, structured output and a guardrail that rejects once", async () => {
    const { crew, researcherLLM, writerLLM, researchTask, reportingTask } = buildCrew();
    const events: CrewtsEvent[] = [];
    eventBus.onAny((event) => void events.push(event));

    const result = await crew.kickoff({ topic: "AI Safety" });

    expect(result).toBeInstanceOf(CrewOutput);
    expect(result.raw).toBe('{"title": "AI Safety in 2025", "body": "Alignment research is growing and interpretability tools mature."}');
    expect(result.parsed).toEqual({ title: "AI Safety in 2025", body: "Alignment research is growing and interpretability tools mature." });
    expect(result.jsonDict).toEqual(result.parsed);
    expect(String(result)).toBe(JSON.stringify(result.parsed, null, 2));

    expect(result.tasksOutput).toHaveLength(2);
    const [research, report] = result.tasksOutput;
    expect(research).toBeInstanceOf(TaskOutput);
    expect(research).toMatchObject({
      name: "research_task",
      description: "Conduct a thorough research about AI Safety",
      expectedOutput: "A list with 2 bullet points of the most relevant information about AI Safety",
      summary: "Conduct a thorough research about AI Safety...",
      raw: "1. Alignment research is growing\n2. Interpretability tools mature",
      agent: "AI Safety Senior Data Researcher",
      outputFormat: "raw",
    });
    expect(research!.parsed).toBeUndefined();
    expect(research!.jsonDict).toBeUndefined();
    expect(report).toMatchObject({ name: "reporting_task", agent: "AI Safety Reporting Analyst", outputFormat: "json", jsonDict: result.parsed });
    expect(researchTask.output).toBe(research);
    expect(reportingTask.output).toBe(report);
    expect(reportingTask.retryCount).toBe(1);
    expect(researchTask.retryCount).toBe(0);

    const usage: UsageMetrics = { promptTokens: 2 * 10 + 2 * 20, completionTokens: 2 * 5 + 2 * 10, totalTokens: 2 * 15 + 2 * 30, successfulRequests: 4 };
    expect(result.tokenUsage).toEqual(usage);
    expect(crew.usageMetrics).toEqual(usage);

    // What the models saw.
    const researcherSystem = researcherLLM.calls[0]!.messages[0]!.content;
    expect(researcherSystem).toContain("You are AI Safety Senior Data Researcher.");
    expect(researcherSystem).toContain("Uncover cutting-edge developments in AI Safety");
    expect(researcherSystem).toContain("Tool Name: search_the_internet");
    expect(userOf(researcherLLM, 0)).toContain("Conduct a thorough research about AI Safety");
    expect(everything(researcherLLM.calls[1]!.messages)).toContain("Observation: Results for AI Safety trends: alignment, interpretability");
    const writerPrompt = userOf(writerLLM, 0);
    expect(writerPrompt).toContain("expand each topic into a full section for a report on AI Safety");
    expect(writerPrompt).toContain("This is the context you're working with:\n1. Alignment research is growing");
    expect(writerPrompt).toContain('"title"');
    expect(userOf(writerLLM, 1)).toContain("The body must be at least 30 characters long");

    // JSON, as a user would log or send it.
    const json = JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
    expect(json).toEqual(result.toJSON());
    expect(json).toMatchObject({ raw: result.raw, parsed: result.parsed, jsonDict: result.parsed, tokenUsage: usage });
    expect(json.tasksOutput).toEqual([
      expect.objectContaining({ name: "research_task", raw: research!.raw, agent: "AI Safety Senior Data Researcher", outputFormat: "raw" }),
      expect.objectContaining({ name: "reporting_task", parsed: result.parsed, outputFormat: "json" }),
    ]);

    // Events, in CrewAI's order, each with its type, id, timestamp and source ids.
    const lifecycle = events.filter((e) => e.type.startsWith("crew_kickoff") || e.type.startsWith("task_")).map((e) => e.type);
    expect(lifecycle).toEqual(["crew_kickoff_started", "task_started", "task_completed", "task_started", "task_completed", "crew_kickoff_completed"]);
    expect(events.at(-1)!.type).toBe("crew_kickoff_completed");
    const types = events.map((e) => e.type);
    expect(types).toContain("agent_execution_started");
    expect(types).toContain("llm_call_completed");
    expect(types).toContain("tool_usage_finished");
    expect(types).toContain("llm_guardrail_completed");
    for (const event of events) {
      expect(event.eventId).toEqual(expect.any(String));
      expect(event.timestamp).toBeInstanceOf(Date);
    }
    const started = events.find((e): e is CrewtsEvent<"crew_kickoff_started"> => e.type === "crew_kickoff_started")!;
    expect(started.inputs).toEqual({ topic: "AI Safety" });
    const taskStarted = events.filter((e): e is CrewtsEvent<"task_started"> => e.type === "task_started");
    expect(taskStarted.map((e) => e.taskId)).toEqual([researchTask.id, reportingTask.id]);
    expect(taskStarted.every((e) => e.crewId === crew.id)).toBe(true);
  });

  it("can be run again from the report with the stored research (replay), and for several topics (kickoffForEach)", async () => {
    const { crew, researcherLLM, writerLLM, reportingTask } = buildCrew();
    await crew.kickoff({ topic: "AI Safety" });
    const again = new FakeLLM(() => final('{"title": "Again", "body": "A second report written from the stored research."}'));
    crew.agents[1]!.llm = again;

    const replayed = await crew.replay(reportingTask.id);
    expect(researcherLLM.calls).toHaveLength(2);
    expect(userOf(again, 0)).toContain("1. Alignment research is growing");
    expect(userOf(again, 0)).toContain("a report on AI Safety");
    expect(replayed.parsed).toEqual({ title: "Again", body: "A second report written from the stored research." });
    expect(replayed.tasksOutput[0]!.raw).toBe("1. Alignment research is growing\n2. Interpretability tools mature");
    await expect(crew.replay("not-a-task-id")).rejects.toThrow(CrewReplayError);

    const topics = buildCrew();
    topics.crew.agents[0]!.llm = new FakeLLM((messages) => final(`notes on ${/about (.*)$/m.exec(everything(messages))?.[1] ?? "?"}`));
    topics.crew.agents[1]!.llm = new FakeLLM(() => final('{"title": "T", "body": "A body that is long enough for the guardrail."}'));
    const outputs = await topics.crew.kickoffForEach([{ topic: "robots" }, { topic: "rockets" }]);
    expect(outputs.map((o) => o.tasksOutput[0]!.raw)).toEqual(["notes on robots", "notes on rockets"]);
    expect(outputs.map((o) => o.tasksOutput[1]!.agent)).toEqual(["robots Reporting Analyst", "rockets Reporting Analyst"]);
    expect(writerLLM.calls).toHaveLength(2);
  });
});

describe("async tasks and a conditional task", () => {
  function buildCrew() {
    let industryStarted!: () => void;
    const gate = new Promise<void>((resolve) => (industryStarted = resolve));
    // The academic researcher answers only once the industry analyst has started: they must run side by side.
    const academic = new Agent({ role: "Academic Researcher", goal: "g", backstory: "b", llm: new FakeLLM(async () => (await gate, final("papers say yes"))) });
    const industry = new Agent({
      role: "Industry Analyst",
      goal: "g",
      backstory: "b",
      llm: new FakeLLM(() => (industryStarted(), final("reports say maybe"))),
    });
    const synthesizer = new Agent({
      role: "Synthesizer",
      goal: "g",
      backstory: "b",
      llm: new FakeLLM((messages) => final(everything(messages).includes("rumours") ? "UNVERIFIED: it is all rumours" : "Consensus: yes")),
    });
    const checkerLLM = new FakeLLM(() => final("Checked: two claims are false"));
    const checker = new Agent({ role: "Fact Checker", goal: "g", backstory: "b", llm: checkerLLM });
    const tasks = [
      new Task({ description: "Research {topic} from academic papers", expectedOutput: "Academic summary", agent: academic, asyncExecution: true }),
      new Task({ description: "Research {topic} from industry reports", expectedOutput: "Industry insights", agent: industry, asyncExecution: true }),
      new Task({ description: "Synthesize all research findings on {topic}", expectedOutput: "A synthesis", agent: synthesizer }),
      new ConditionalTask({
        description: "Fact-check the synthesis",
        expectedOutput: "A list of false claims",
        agent: checker,
        condition: (previous: TaskOutput) => previous.raw.includes("UNVERIFIED"),
      }),
    ];
    const crew = new Crew({ agents: [academic, industry, synthesizer, checker], tasks });
    return { crew, synthesizer, checkerLLM };
  }

  it("runs the async pair side by side, gives both outputs to the sync task, and skips the conditional task", async () => {
    const { crew, synthesizer, checkerLLM } = buildCrew();
    const result = await crew.kickoff({ topic: "climate" });
    expect(result.tasksOutput.map((o) => o.raw)).toEqual(["papers say yes", "reports say maybe", "Consensus: yes", ""]);
    const synthesisPrompt = userOf(synthesizer.llm as FakeLLM, 0);
    expect(synthesisPrompt).toContain("papers say yes");
    expect(synthesisPrompt).toContain("reports say maybe");
    // A skipped task at the end does not blank the crew's result.
    expect(result.raw).toBe("Consensus: yes");
    expect(checkerLLM.calls).toHaveLength(0);
    expect(crew.tasks[3]!.output).toBeUndefined();
  });

  it("runs the conditional task when its condition holds for the previous output", async () => {
    const { crew, checkerLLM } = buildCrew();
    const result = await crew.kickoff({ topic: "rumours" });
    expect(result.raw).toBe("Checked: two claims are false");
    expect(result.tasksOutput).toHaveLength(4);
    expect(userOf(checkerLLM, 0)).toContain("UNVERIFIED: it is all rumours");
  });
});

describe("a hierarchical crew", () => {
  function workers() {
    const researcherLLM = new FakeLLM([final("Fusion output doubled since 2020")], { usage: { promptTokens: 5, completionTokens: 5, totalTokens: 10 } });
    const writerLLM = new FakeLLM([final("Yes, the report can be ready today")], { usage: { promptTokens: 5, completionTokens: 5, totalTokens: 10 } });
    const researcher = new Agent({ role: "Researcher", goal: "Find facts", backstory: "Thorough.", llm: researcherLLM });
    const writer = new Agent({ role: "Senior Writer", goal: "Write reports", backstory: "Clear.", llm: writerLLM });
    return { researcher, writer, researcherLLM, writerLLM };
  }

  it("lets the manager delegate with native tool calls (sanitized CrewAI tool names)", async () => {
    const { researcher, writer, researcherLLM, writerLLM } = workers();
    const managerLLM = new FakeLLM(
      [
        { toolCalls: [{ name: "delegate_work_to_coworker", arguments: { task: "Research fusion energy", context: "It is for a report on fusion", coworker: "researcher" } }] },
        { toolCalls: [{ name: "ask_question_to_coworker", arguments: { question: "Can the report be ready today?", context: "Deadline is tonight", coworker: "Senior Writer" } }] },
        "Final report: fusion output doubled since 2020, and the report is ready today.",
      ],
      { functionCalling: true, usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 } },
    );
    const crew = new Crew({
      agents: [researcher, writer],
      tasks: [new Task({ description: "Write a report about {topic}", expectedOutput: "A short report" })],
      process: Process.hierarchical,
      managerLLM,
    });
    const events: CrewtsEvent[] = [];
    eventBus.onAny((event) => void events.push(event));
    const result = await crew.kickoff({ topic: "fusion" });

    expect(managerLLM.calls[0]!.options.tools?.map((t) => t.name)).toEqual(["delegate_work_to_coworker", "ask_question_to_coworker"]);
    expect(everything(managerLLM.calls[0]!.messages)).toContain("Write a report about fusion");
    expect(userOf(researcherLLM, 0)).toContain("Research fusion energy");
    expect(userOf(researcherLLM, 0)).toContain("It is for a report on fusion");
    expect(userOf(writerLLM, 0)).toContain("Can the report be ready today?");
    const toolResults = managerLLM.calls[2]!.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolResults).toEqual(["Fusion output doubled since 2020", "Yes, the report can be ready today"]);
    expect(result.raw).toBe("Final report: fusion output doubled since 2020, and the report is ready today.");
    expect(result.tasksOutput[0]!.agent).toBe("Crew Manager");
    expect(result.tokenUsage).toEqual({ promptTokens: 70, completionTokens: 40, totalTokens: 110, successfulRequests: 5 });
    // Delegated work is part of the manager's task: the coworkers' agents run, no task of their own.
    const lifecycle = events.filter((e) => e.type.startsWith("crew_kickoff") || e.type.startsWith("task_")).map((e) => e.type);
    expect(lifecycle).toEqual(["crew_kickoff_started", "task_started", "task_completed", "crew_kickoff_completed"]);
    const agentRuns = events.filter((e): e is CrewtsEvent<"agent_execution_started"> => e.type === "agent_execution_started").map((e) => e.agentRole);
    expect(agentRuns).toEqual(["Crew Manager", "Researcher", "Senior Writer"]);
    await expect(crew.replay(crew.tasks[0]!.id)).rejects.toThrow("Replay is not supported for hierarchical process");
  });

  it("lets the manager delegate with the text protocol, to the task's own agent, with process given as a string", async () => {
    const { researcher, writer, researcherLLM, writerLLM } = workers();
    const managerLLM = new FakeLLM([
      'Thought: The researcher should do this\nAction: Delegate work to coworker\nAction Input: {"task": "Find fusion facts", "context": "For {topic} readers", "coworker": "Researcher"}',
      final("Fusion output doubled since 2020"),
    ]);
    const crew = new Crew({
      agents: [researcher, writer],
      tasks: [new Task({ description: "Collect facts", expectedOutput: "Facts", agent: researcher })],
      process: "hierarchical",
      managerLLM,
    });
    const result = await crew.kickoff();
    const system = managerLLM.calls[0]!.messages[0]!.content;
    expect(system).toContain("Tool Name: delegate_work_to_coworker");
    // A task with an agent may be delegated to that agent only.
    expect(system).toContain("coworkers: Researcher\n");
    expect(system).not.toContain("Senior Writer");
    expect(userOf(researcherLLM, 0)).toContain("Find fusion facts");
    expect(everything(managerLLM.calls[1]!.messages)).toContain("Observation: Fusion output doubled since 2020");
    expect(writerLLM.calls).toHaveLength(0);
    expect(result.raw).toBe("Fusion output doubled since 2020");
  });

  it("uses a managerAgent of the user's own, which may then delegate", async () => {
    const { researcher, writer, researcherLLM } = workers();
    const managerLLM = new FakeLLM([
      'Thought: delegate\nAction: Delegate work to coworker\nAction Input: {"task": "Find facts", "context": "none", "coworker": "RESEARCHER"}',
      final("Done: Fusion output doubled since 2020"),
    ]);
    const manager = new Agent({ role: "Project Manager", goal: "Coordinate the team", backstory: "Experienced.", llm: managerLLM });
    const crew = new Crew({ agents: [researcher, writer], tasks: [new Task({ description: "Get facts", expectedOutput: "Facts" })], process: Process.hierarchical, managerAgent: manager });
    const result = await crew.kickoff();
    expect(manager.allowDelegation).toBe(true);
    expect(researcherLLM.calls).toHaveLength(1);
    expect(result.tasksOutput[0]!.agent).toBe("Project Manager");
  });
});
