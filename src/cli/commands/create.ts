import { existsSync, readdirSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import type { CliContext } from "../CliContext.js";
import { CliError } from "../CliError.js";
import { envExample, gitignore, packageJson, tsconfigJson } from "../templates/commonFiles.js";
import { crewAgentsYaml, crewClassTs, crewMainTs, crewReadme, crewTasksYaml, wordCounterTs } from "../templates/crewProject.js";
import { flowMainTs, flowReadme, poemAgentsYaml, poemCrewTs, poemTasksYaml } from "../templates/flowProject.js";
import { crewtsDependency } from "../templates/crewtsDependency.js";
import { offlineModelTemplate } from "../templates/offlineModel.js";
import { projectNames, render, type ProjectNames } from "../templates/projectNames.js";

/** Options of `crewts create crew|flow <name>`. */
export interface CreateOptions {
  /** The folder to create the project in (default: the working directory). */
  dir?: string;
  /** The crewts dependency of the project (a version range or file: spec); default: see crewtsDependency. */
  crewts?: string;
}

/** What `create` wrote. */
export interface CreatedProject {
  root: string;
  files: string[];
}

/** `crewts create crew|flow <name>`: writes a ready-to-run project into a new folder named after it. */
export async function create(ctx: CliContext, kind: "crew" | "flow", name: string, options: CreateOptions = {}, print: (line: string) => void = console.log): Promise<CreatedProject> {
  const names = projectNames(name, kind);
  const root = resolve(options.dir ?? ".", names.folder);
  if (existsSync(root) && readdirSync(root).length > 0) {
    throw new CliError(`${root} already exists and is not empty: choose another name, or move that folder away first.`);
  }
  const files = kind === "crew" ? crewFiles(names) : flowFiles(names);
  await mkdir(root, { recursive: true });
  const dependency = await crewtsDependency(resolve(dirname(ctx.cliEntry), "..", ".."), ctx.pkg.version, root, options.crewts);
  files["package.json"] = packageJson(names, kind, ctx.pkg, dependency.spec);
  for (const [file, content] of Object.entries(files)) {
    const path = join(root, file);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
  const written = Object.keys(files);
  if (dependency.source === "tarball") written.push(dependency.spec.slice("file:".length));
  const shown = relative(process.cwd(), root) || ".";
  const cd = shown.startsWith("..") || shown === "." ? root : shown;
  print(`Created ${kind} "${names.title}" in ${cd}`);
  print("");
  for (const [file, what] of kind === "crew" ? CREW_GUIDE : FLOW_GUIDE) print(`  ${file.padEnd(28)}${what}`);
  print("");
  if (dependency.source === "tarball") {
    print(`crewts ${ctx.pkg.version} is packed into the project (${dependency.spec.slice("file:".length)}), so npm install needs no registry entry for it;`);
    print(`once crewts is published, depend on it instead: npm install crewts@^${ctx.pkg.version}`);
    print("");
  }
  print("Next:");
  print(`  cd ${cd.includes(" ") ? JSON.stringify(cd) : cd}`);
  print("  npm install");
  print(`  npx crewts run        # offline against a mock model until you put a key in .env`);
  return { root, files: written.sort() };
}

function crewFiles(names: ProjectNames): Record<string, string> {
  const values = { className: names.className, title: names.title };
  return {
    "src/config/agents.yaml": crewAgentsYaml,
    "src/config/tasks.yaml": crewTasksYaml,
    "src/crew.ts": render(crewClassTs, values),
    "src/main.ts": render(crewMainTs, values),
    "src/tools/wordCounter.ts": wordCounterTs,
    ...commonFiles(render(crewReadme, values)),
  };
}

function flowFiles(names: ProjectNames): Record<string, string> {
  const values = { className: names.className, title: names.title };
  return {
    "src/main.ts": render(flowMainTs, values),
    "src/crews/poem/crew.ts": poemCrewTs,
    "src/crews/poem/config/agents.yaml": poemAgentsYaml,
    "src/crews/poem/config/tasks.yaml": poemTasksYaml,
    ...commonFiles(render(flowReadme, values)),
  };
}

function commonFiles(readme: string): Record<string, string> {
  return {
    "src/offline.ts": offlineModelTemplate,
    "README.md": readme,
    "tsconfig.json": tsconfigJson,
    ".env.example": envExample,
    ".gitignore": gitignore,
  };
}

const CREW_GUIDE: [string, string][] = [
  ["src/config/agents.yaml", "the agents: role, goal, backstory, tools"],
  ["src/config/tasks.yaml", "the tasks: description, expected_output, agent, context"],
  ["src/crew.ts", "the crew class that builds them"],
  ["src/main.ts", "inputs, and the run / train / replay / test entry points"],
  [".env.example", "copy to .env and set a model provider key"],
];

const FLOW_GUIDE: [string, string][] = [
  ["src/main.ts", "the flow, and the kickoff / plot entry points"],
  ["src/crews/poem/", "the crew one step runs: config/*.yaml and crew.ts"],
  [".env.example", "copy to .env and set a model provider key"],
];
