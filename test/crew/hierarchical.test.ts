import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { AskQuestionTool, Crew, DelegateWorkTool, Process } from "../../src/crew/index.js";
import { eventBus } from "../../src/events/index.js";
import { FakeLLM } from "../../src/testing/index.js";
import { action, allText, fakeAgent, final, task, userText } from "./helpers.js";

afterEach(() => eventBus.clear());

const usage = { promptTokens: 10, completionTokens: 2, totalTokens: 12 };

describe("hierarchical process", () => {
  it("has the manager delegate to a coworker matched by role, ignoring case, spaces and quotes", async () => {
    const writer = fakeAgent("Senior Writer", [final("Waves fold on the shore")], { usage });
    const researcher = fakeAgent("Researcher", []);
    const managerLLM = new FakeLLM(
      [
        action("Delegate work to coworker", { task: "Write a haiku about the sea", context: "The sea is calm today", coworker: '  "senior WRITER" ' }),
        final("The team wrote: Waves fold on the shore"),
      ],
      { usage },
    );
    const crew = new Crew({
      agents: [researcher.agent, writer.agent],
      tasks: [task("Get a haiku written", undefined)],
      process: Process.hierarchical,
      managerLLM,
    });
    const output = await crew.kickoff();

    expect(output.raw).toBe("The team wrote: Waves fold on the shore");
    expect(output.tasksOutput[0]!.agent).toBe("Crew Manager");
    const delegated = userText(writer.llm);
    expect(delegated).toContain("Write a haiku about the sea");
    expect(delegated).toContain("This is the context you're working with:\nThe sea is calm today");
    expect(allText(managerLLM, 1)).toContain("Observation: Waves fold on the shore");
    expect(researcher.llm.calls).toHaveLength(0);
    // The manager and the coworker both count.
    expect(output.tokenUsage).toEqual({ promptTokens: 30, completionTokens: 6, totalTokens: 36, successfulRequests: 3 });

    const system = managerLLM.calls[0]!.messages[0]!.content;
    expect(system).toContain("You are Crew Manager.");
    expect(system).toContain("Tool Name: delegate_work_to_coworker");
    expect(system).toContain("Tool Name: ask_question_to_coworker");
    expect(system).toContain("coworkers: Researcher, Senior Writer");
    expect(crew.manager?.allowDelegation).toBe(true);
  });

  it("answers an unknown coworker with the roles that exist", async () => {
    const writer = fakeAgent("Senior Writer", []);
    const managerLLM = new FakeLLM([action("Delegate work to coworker", { task: "Write", context: "none", coworker: "Poet" }), final("gave up")]);
    await new Crew({ agents: [writer.agent], tasks: [task("Write something", undefined)], process: "hierarchical", managerLLM }).kickoff();
    const observation = allText(managerLLM, 1);
    expect(observation).toContain("there is no coworker 'Poet'");
    expect(observation).toContain("- Senior Writer");
    expect(writer.llm.calls).toHaveLength(0);
  });

  it("asks a coworker a question", async () => {
    const expert = fakeAgent("Domain Expert", [final("Use a B-tree")]);
    const managerLLM = new FakeLLM([
      action("Ask question to coworker", { question: "Which index should we use?", context: "Range queries on dates", coworker: "domain expert" }),
      final("We use a B-tree"),
    ]);
    const output = await new Crew({ agents: [expert.agent], tasks: [task("Pick an index", undefined)], process: "hierarchical", managerLLM }).kickoff();
    expect(userText(expert.llm)).toContain("Which index should we use?");
    expect(userText(expert.llm)).toContain("Range queries on dates");
    expect(allText(managerLLM, 1)).toContain("Observation: Use a B-tree");
    expect(output.raw).toBe("We use a B-tree");
  });

  it("lets a task with an agent be delegated to that agent only, and gives the manager the context", async () => {
    const writer = fakeAgent("Writer", [final("draft")]);
    const editor = fakeAgent("Editor", []);
    const managerLLM = new FakeLLM([final("first result"), final("second result")]);
    const crew = new Crew({
      agents: [writer.agent, editor.agent],
      tasks: [task("one", undefined), task("two", writer.agent)],
      process: "hierarchical",
      managerLLM,
    });
    await crew.kickoff();
    expect(managerLLM.calls[0]!.messages[0]!.content).toContain("coworkers: Writer, Editor");
    expect(managerLLM.calls[1]!.messages[0]!.content).toContain("coworkers: Writer\n");
    expect(userText(managerLLM, 1)).toContain("This is the context you're working with:\nfirst result");
  });

  it("uses a given manager agent and lets it delegate", async () => {
    const worker = fakeAgent("Worker", [final("work done")]);
    const bossLLM = new FakeLLM([action("delegate_work_to_coworker", { task: "Do it", context: "now", coworker: "worker" }), final("boss: work done")]);
    const boss = new Agent({ role: "Boss", goal: "Ship", backstory: "You ship things.", llm: bossLLM });
    const crew = new Crew({ agents: [worker.agent], tasks: [task("Ship it", undefined)], process: "hierarchical", managerAgent: boss });
    const output = await crew.kickoff();
    expect(output.raw).toBe("boss: work done");
    expect(boss.allowDelegation).toBe(true);
    expect(crew.manager).toBe(boss);
    expect(bossLLM.calls[0]!.messages[0]!.content).toContain("You are Boss.");
    expect(boss.toolsCache).toBeUndefined();
  });

  it("reports a coworker's failure to the manager as an observation", async () => {
    const broken = fakeAgent("Worker", () => new Error("worker model down"), {}, { maxRetryLimit: 0 });
    const managerLLM = new FakeLLM([action("Delegate work to coworker", { task: "Do it", context: "", coworker: "Worker" }), final("handled")]);
    const output = await new Crew({ agents: [broken.agent], tasks: [task("t", undefined)], process: "hierarchical", managerLLM }).kickoff();
    expect(output.raw).toBe("handled");
    expect(allText(managerLLM, 1)).toContain("Error executing the task with coworker 'Worker': ");
    expect(allText(managerLLM, 1)).toContain("worker model down");
  });
});

describe("delegation in a sequential crew", () => {
  it("gives an agent that may delegate the tools, with the other agents as coworkers", async () => {
    const helper = fakeAgent("Fact Checker", [final("verified")]);
    const lead = fakeAgent(
      "Lead Writer",
      [action("Delegate work to coworker", { task: "Check the facts", context: "Paris is in France", coworker: "fact checker" }), final("checked article")],
      {},
      { allowDelegation: true },
    );
    const crew = new Crew({ agents: [lead.agent, helper.agent], tasks: [task("Write the article", lead.agent)] });
    const output = await crew.kickoff();
    expect(output.raw).toBe("checked article");
    const system = lead.llm.calls[0]!.messages[0]!.content;
    expect(system).toContain("coworkers: Fact Checker\n");
    expect(userText(helper.llm)).toContain("Check the facts");
  });

  it("gives no delegation tools to agents that may not delegate, or to a crew of one", async () => {
    const a = fakeAgent("Writer", [final("a")]);
    const b = fakeAgent("Editor", [final("b")]);
    await new Crew({ agents: [a.agent, b.agent], tasks: [task("a", a.agent), task("b", b.agent)] }).kickoff();
    expect(a.llm.calls[0]!.messages[0]!.content).not.toContain("delegate_work_to_coworker");
    const solo = fakeAgent("Solo", [final("s")], {}, { allowDelegation: true });
    await new Crew({ agents: [solo.agent], tasks: [task("s", solo.agent)] }).kickoff();
    expect(solo.llm.calls[0]!.messages[0]!.content).not.toContain("delegate_work_to_coworker");
  });
});

describe("delegation tools", () => {
  it("have CrewAI's names, schemas and a description listing the coworkers", () => {
    const coworkers = [fakeAgent("Writer", []).agent, fakeAgent("Editor", []).agent];
    const delegate = new DelegateWorkTool(coworkers);
    const ask = new AskQuestionTool(coworkers);
    expect(delegate.name).toBe("Delegate work to coworker");
    expect(ask.name).toBe("Ask question to coworker");
    expect(delegate.description).toContain("Writer, Editor");
    expect(Object.keys(delegate.argumentsJsonSchema().properties as object)).toEqual(["task", "context", "coworker"]);
    expect(Object.keys(ask.argumentsJsonSchema().properties as object)).toEqual(["question", "context", "coworker"]);
  });

  it("take the first name of a list given as the coworker", async () => {
    const writer = fakeAgent("Writer", [final("written")]);
    const tool = new DelegateWorkTool([writer.agent]);
    await expect(tool.run({ task: "Write", context: "", coworker: "[Writer, Editor]" })).resolves.toBe("written");
  });
});
