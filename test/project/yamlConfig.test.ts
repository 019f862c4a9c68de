import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CrewBase, ProjectConfigError } from "../../src/project/index.js";
import { loadConfig, parseConfig } from "../../src/project/yamlConfig.js";
import { FakeLLM } from "../../src/testing/index.js";

const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function write(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "crewts-yaml-"));
  tempDirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const valuesOf = (text: string, entry: string): Record<string, unknown> => {
  const fields = parseConfig(text, "agents.yaml", "agent").entries.get(entry)!.fields;
  return Object.fromEntries([...fields.values()].map((f) => [f.key, f.value]));
};

const thrown = (fn: () => unknown): ProjectConfigError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ProjectConfigError);
    return error as ProjectConfigError;
  }
  throw new Error("expected a ProjectConfigError");
};

describe("YAML merge keys (<<: *anchor) in agents.yaml and tasks.yaml", () => {
  const AGENTS = `researcher: &base
  role: Researcher
  goal: Find facts
  backstory: You read everything.
  max_iter: 5
writer:
  <<: *base
  role: Writer
`;

  it("merges the anchored settings under the entry's own, which win", () => {
    expect(valuesOf(AGENTS, "writer")).toEqual({ role: "Writer", goal: "Find facts", backstory: "You read everything.", max_iter: 5 });
    expect(valuesOf(AGENTS, "researcher")).toMatchObject({ role: "Researcher" });
  });

  it("merges a list of maps, the first winning, and merges nested inside them", () => {
    const text = `defaults: &defaults
  role: Default
  goal: Default goal
  backstory: Default backstory
tuned: &tuned
  <<: *defaults
  goal: Tuned goal
critic:
  <<: [*tuned, { verbose: true, role: Later }]
  backstory: Own backstory
`;
    expect(valuesOf(text, "critic")).toEqual({ role: "Default", goal: "Tuned goal", backstory: "Own backstory", verbose: true });
  });

  it("points errors in a merged setting at the line that holds it", () => {
    const text = `base: &base
  role: R
  goal: G
  backstory: B
  max_iter: many
other:
  <<: *base
`;
    const fields = parseConfig(text, "agents.yaml", "agent").entries.get("other")!.fields;
    expect(fields.get("max_iter")).toMatchObject({ value: "many", line: 5 });
  });

  it("builds agents and tasks from merged entries in a crew class", () => {
    const agents = write("agents.yaml", AGENTS);
    const tasks = write(
      "tasks.yaml",
      `research: &task
  description: Research the topic.
  expected_output: Bullet points
  agent: researcher
write:
  <<: *task
  agent: writer
`,
    );
    class Merged extends CrewBase {
      override agentsConfig = agents;
      override tasksConfig = tasks;
    }
    const crew = new Merged({ llm: new FakeLLM([]) });
    expect(crew.agents.map((a) => [a.role, a.goal, a.options.maxIter])).toEqual([
      ["Researcher", "Find facts", 5],
      ["Writer", "Find facts", 5],
    ]);
    expect(crew.tasks.map((t) => [t.description, t.agent?.role])).toEqual([
      ["Research the topic.", "Researcher"],
      ["Research the topic.", "Writer"],
    ]);
  });

  it("says what is wrong with a merge of something that is not a map", () => {
    const error = thrown(() => parseConfig("reader:\n  role: R\n  tools: &b [search]\nwriter:\n  <<: *b\n  role: W\n", "agents.yaml", "agent"));
    expect(error.message).toMatch(/^agents\.yaml:5: agent "writer": "<<" must merge a map/);
  });
});

describe("YAML that would exhaust memory or does not parse", () => {
  // "Billion laughs": each level repeats the one before nine times.
  const BOMB = `researcher:
  role: R
  goal: G
  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  backstory: [*d,*d,*d,*d,*d,*d,*d,*d,*d]
`;

  it("turns an alias bomb into a ProjectConfigError naming the file, the line and the fix", () => {
    const path = write("agents.yaml", BOMB);
    const error = thrown(() => loadConfig(path, "agent"));
    expect(error).not.toBeInstanceOf(ReferenceError);
    expect(error.file).toBe(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/too many alias/i);
    expect(error.message).toMatch(/write the values out|fewer aliases/i);
  });

  it("names the entry and line of the bomb", () => {
    const error = thrown(() => parseConfig(BOMB, "agents.yaml", "agent"));
    expect(error.message).toMatch(/^agents\.yaml:\d+: agent "researcher": /);
    expect(error.line).toBeGreaterThan(1);
  });

  it("names the file and line of a syntax error", () => {
    const path = write("tasks.yaml", "research:\n  description: x\n  expected_output: [y\n");
    const error = thrown(() => loadConfig(path, "task"));
    expect(error.file).toBe(path);
    expect(error.line).toBeGreaterThan(0);
    expect(error.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+: invalid YAML: `));
  });
});

describe("YAML merges of merges", () => {
  it("reads a file whose merge keys repeat the same maps exponentially in linear time", () => {
    const levels = ["l0: &l0\n  role: R\n  goal: G\n  backstory: B"];
    for (let i = 1; i <= 15; i++) levels.push(`l${i}: &l${i}\n  <<: [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(", ")}]`);
    const text = `${levels.join("\n")}\nresearcher:\n  <<: *l15\n`;
    const started = performance.now();
    expect(valuesOf(text, "researcher")).toMatchObject({ role: "R", goal: "G", backstory: "B" });
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
