import type { CrewtsPackageJson } from "../CliContext.js";
import type { ProjectNames } from "./projectNames.js";

// Used when crewts's own package.json does not name a version (it always does in a release).
const FALLBACK_RANGES: Record<string, string> = { zod: "^4.0.0", tsx: "^4.0.0", typescript: "~6.0", "@types/node": "^20.0.0" };

/** package.json of a new project: crewts and zod to build with, tsx to run TypeScript, `crewts` settings for the CLI. */
export function packageJson(names: ProjectNames, kind: "crew" | "flow", crewts: CrewtsPackageJson, crewtsSpec: string = `^${crewts.version}`): string {
  const range = (name: string): string => crewts.dependencies?.[name] ?? crewts.devDependencies?.[name] ?? FALLBACK_RANGES[name]!;
  const scripts: Record<string, string> =
    kind === "crew"
      ? { start: "crewts run", chat: "crewts chat", typecheck: "tsc --noEmit" }
      : { start: "crewts run", plot: "crewts flow plot", typecheck: "tsc --noEmit" };
  const pkg = {
    name: names.folder,
    version: "0.1.0",
    private: true,
    description: `${names.title}: a ${kind} of AI agents built with crewts`,
    type: "module",
    engines: { node: ">=20.12" },
    scripts,
    crewts: { type: kind, entry: "src/main.ts" },
    dependencies: { crewts: crewtsSpec, zod: range("zod") },
    devDependencies: { "@types/node": range("@types/node"), tsx: range("tsx"), typescript: range("typescript") },
    // npm 11 runs install scripts only for packages listed here; esbuild's (behind tsx) checks its binary.
    allowScripts: { esbuild: true },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** tsconfig.json: strict, ESM, TC39 decorators (TypeScript's default; no experimentalDecorators). */
export const tsconfigJson = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      types: ["node"],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      isolatedModules: true,
    },
    include: ["src"],
  },
  null,
  2,
)}\n`;

export const envExample = `# Copy this file to .env and set one provider: crewts run loads .env.
# With none set, the project runs offline against crewts's built-in mock server.
# OPENAI_API_KEY=sk-...
# ANTHROPIC_API_KEY=sk-ant-...
# OLLAMA_HOST=http://localhost:11434
# A model for every agent without an llm in agents.yaml (provider/model):
# MODEL=openai/gpt-4o-mini
`;

export const gitignore = `node_modules/
.env
crewts_flow.html
trained_agents_data.json
`;
