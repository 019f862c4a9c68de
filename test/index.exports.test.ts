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
    "CHECKPOINTS_DB_FILE",
    "CSVKnowledgeSource",
    "CheckpointError",
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
    "DEFAULT_CHECKPOINT_LOCATION",
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
    "HookBlockedError",
    "HumanFeedbackError",
    "HumanFeedbackPending",
    "HumanInputError",
    "HumanInputPending",
    "InMemoryFlowPersistence",
    "InMemorySearchStore",
    "InMemoryTaskOutputStore",
    "InterpolationError",
    "JSONCheckpointStore",
    "JSONKnowledgeSource",
    "KickoffAbortedError",
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
    "MCPConfigError",
    "MCPConnectionError",
    "MCPDependencyError",
    "MCPServerAdapter",
    "MCPTool",
    "Mem0Error",
    "Mem0Provider",
    "MemoryOptionsError",
    "MemoryValueError",
    "MemoryWriteError",
    "MissingPeerDependencyError",
    "OutputFilePathError",
    "OutputParserError",
    "PDFKnowledgeSource",
    "PlanningError",
    "PostgresCheckpointStore",
    "PostgresFlowPersistence",
    "PostgresStoreError",
    "PostgresTaskOutputStore",
    "Process",
    "ProjectConfigError",
    "QueueRuns",
    "SQLiteCheckpointStore",
    "SQLiteFlowPersistence",
    "SQLiteSearchStore",
    "SQLiteTaskOutputStore",
    "SUPPORTED_PROVIDERS",
    "SearchStoreError",
    "ServerConfigError",
    "ShortTermMemory",
    "StorageError",
    "StreamingOutput",
    "StringKnowledgeSource",
    "TRACING_ENV",
    "Task",
    "TaskEvaluationError",
    "TaskOutput",
    "TaskOutputStoreError",
    "TaskValidationError",
    "TextFileKnowledgeSource",
    "ToolError",
    "TracingConfigError",
    "TracingUnavailableError",
    "TrainingError",
    "afterKickoff",
    "afterLLMCall",
    "afterStep",
    "afterToolCall",
    "agent",
    "and",
    "beforeKickoff",
    "beforeLLMCall",
    "beforeStep",
    "beforeToolCall",
    "checkpointNow",
    "checkpointStoreFor",
    "clearMCPToolListCache",
    "createDynamicToolFilter",
    "createServer",
    "createStaticToolFilter",
    "crew",
    "crewController",
    "enableTracing",
    "enableTracingFromEnv",
    "envTracing",
    "eventBus",
    "extractTraceContext",
    "flowController",
    "forkCheckpoint",
    "humanFeedback",
    "injectTraceContext",
    "listCheckpointInfos",
    "listCheckpoints",
    "listen",
    "llmGuardrail",
    "loadCheckpoint",
    "or",
    "persist",
    "router",
    "setHumanInputProvider",
    "start",
    "startWorker",
    "storageDir",
    "task",
    "tool",
    "traceHeaders",
    "verboseDefaults",
    "withTraceContext",
  ];

const TESTING_EXPORTS = [
    "CASSETTE_DUMMY_API_KEY",
    "CASSETTE_MODES",
    "CassetteError",
    "CassetteMismatchError",
    "DEFAULT_IGNORED_FIELDS",
    "DEFAULT_UPSTREAMS",
    "FakeLLM",
    "FakeLLMExhaustedError",
    "MOCK_EMBEDDING_DIMENSIONS",
    "cassettePath",
    "mockEmbedding",
    "resolveCassetteMode",
    "startCassetteServer",
    "startMockOpenAIServer",
    "withCassette",
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
