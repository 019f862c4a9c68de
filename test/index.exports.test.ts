// The runtime names of the "crewts" and "crewts/testing" entry points, one sorted list each: a name
// added or removed here is a change to the public API (see src/index.ts for what belongs in it).
// Also checks that the README, the CLI's project templates and the examples import only these names.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as crewts from "../src/index.js";
import * as testing from "../src/testing/index.js";

const CREWTS_EXPORTS = [
    "AISDKEmbedder",
    "Agent",
    "AgentConfigError",
    "AgentOutput",
    "AgentTimeoutError",
    "AskQuestionTool",
    "BaseFileKnowledgeSource",
    "BaseKnowledgeSource",
    "BaseTool",
    "CSVKnowledgeSource",
    "ChunkingOptionsError",
    "ConditionalTask",
    "ContextWindowExceededError",
    "ConverterError",
    "Crew",
    "CrewBase",
    "CrewMemoryError",
    "CrewOutput",
    "CrewOutputError",
    "CrewReplayError",
    "CrewTestError",
    "CrewValidationError",
    "DelegateWorkTool",
    "EmbedderError",
    "EntityMemory",
    "EventBus",
    "ExcelKnowledgeSource",
    "ExternalMemory",
    "Flow",
    "FlowDefinitionError",
    "FlowMethodCallLimitError",
    "FlowPlotError",
    "FlowRouterError",
    "FlowStateError",
    "FunctionEmbedder",
    "GuardrailError",
    "HumanInputError",
    "InMemoryFlowPersistence",
    "InMemorySearchStore",
    "InMemoryTaskOutputStore",
    "InterpolationError",
    "JSONKnowledgeSource",
    "Knowledge",
    "KnowledgeSourceError",
    "LLM",
    "LLMAuthenticationError",
    "LLMBadRequestError",
    "LLMConnectionError",
    "LLMContextLengthExceededError",
    "LLMError",
    "LLMOptionsError",
    "LLMRateLimitError",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
    "LongTermMemory",
    "Mem0Error",
    "Mem0Provider",
    "MemoryOptionsError",
    "MemoryValueError",
    "MemoryWriteError",
    "OutputFilePathError",
    "OutputParserError",
    "PDFKnowledgeSource",
    "PlanningError",
    "Process",
    "ProjectConfigError",
    "SQLiteFlowPersistence",
    "SQLiteSearchStore",
    "SQLiteTaskOutputStore",
    "SUPPORTED_PROVIDERS",
    "SearchStoreError",
    "ShortTermMemory",
    "StorageError",
    "StringKnowledgeSource",
    "Task",
    "TaskEvaluationError",
    "TaskOutput",
    "TaskOutputStoreError",
    "TaskValidationError",
    "TextFileKnowledgeSource",
    "ToolError",
    "TrainingError",
    "afterKickoff",
    "agent",
    "and",
    "beforeKickoff",
    "crew",
    "eventBus",
    "listen",
    "llmGuardrail",
    "or",
    "persist",
    "router",
    "setHumanInputProvider",
    "start",
    "storageDir",
    "task",
    "tool",
    "verboseDefaults",
  ];

const TESTING_EXPORTS = [
    "FakeLLM",
    "FakeLLMExhaustedError",
    "MOCK_EMBEDDING_DIMENSIONS",
    "mockEmbedding",
    "startMockOpenAIServer",
  ];

/** Names imported from `from` in `text` (`import { a, type B, c as d } from "from"`); type-only names included. */
function importedNames(text: string, from: RegExp): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["']([^"']+)["']/g)) {
    if (!from.test(match[2]!)) continue;
    for (const part of match[1]!.split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!.trim();
      if (name !== "") names.push(name);
    }
  }
  return names;
}

// Type-only names cannot be listed at run time: they are checked by npm run typecheck where the
// files are TypeScript (examples, templates rendered in test/cli), and here against src/index.ts.
const indexSource = readFileSync(join(import.meta.dirname, "..", "src", "index.ts"), "utf8") + readFileSync(join(import.meta.dirname, "..", "src", "testing", "index.ts"), "utf8");
const exported = (name: string) => name in crewts || name in testing || new RegExp(`\\b${name}\\b`).test(indexSource);

describe("the public API", () => {
  it("exports exactly these runtime names from crewts", () => {
    expect(Object.keys(crewts).sort()).toEqual(CREWTS_EXPORTS);
  });

  it("exports exactly these runtime names from crewts/testing", () => {
    expect(Object.keys(testing).sort()).toEqual(TESTING_EXPORTS);
  });

  it("is all the README, the project templates and the examples use", () => {
    const root = join(import.meta.dirname, "..");
    const files = [
      "README.md",
      ...readdirSync(join(root, "src", "cli", "templates")).map((f) => join("src", "cli", "templates", f)),
      ...readdirSync(join(root, "examples")).map((f) => join("examples", f)),
    ];
    const missing: string[] = [];
    let checked = 0;
    for (const file of files) {
      const text = readFileSync(join(root, file), "utf8");
      for (const name of importedNames(text, /^crewts(\/testing)?$|\/src\/(testing\/)?index\.js$/)) {
        checked++;
        if (!exported(name)) missing.push(`${file}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });
});
