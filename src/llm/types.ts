/** Token counts reported by one LLM call (or summed over several). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** A tool call requested by the model. `arguments` is a string only when the model sent text that is not a JSON object. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

/** One message of a conversation with an LLM. */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; toolCalls?: ToolCall[] }
  | { role: "tool"; content: string; toolCallId: string; toolName: string };

/** A tool as offered to a model for native tool calling: name, description and JSON schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What one LLM call returns. */
export interface LLMResult {
  text: string;
  toolCalls?: ToolCall[];
  usage: TokenUsage;
  finishReason?: string;
}

/** Ids of whatever made an LLM call, carried into events. */
export interface CallSource {
  agentId?: string;
  agentRole?: string;
  taskId?: string;
  taskName?: string;
  crewId?: string;
  flowId?: string;
  /** One crew kickoff (concurrent kickoffs of one crew share its crew, task and agent ids). */
  kickoffId?: string;
}

/** Options of one call. */
export interface LLMCallOptions {
  /** Tools offered for native tool calling (ignored by models without function calling). */
  tools?: ToolSpec[];
  /** Stop sequences, added to the LLM's own. */
  stop?: string[];
  /** Stream the answer; `onToken` receives each text delta. */
  stream?: boolean;
  onToken?: (delta: string) => void;
  /** With `stream`: receives each native tool call as soon as the provider has sent all of it. */
  onToolCall?: (call: ToolCall) => void;
  /** Cancels the call. */
  signal?: AbortSignal;
  /** Where the call comes from, for events. */
  source?: CallSource;
  /** Id of the call in events (set by callLLM so retry and stream events match its started/completed events). */
  callId?: string;
}

/** The contract every model implements; users may implement it themselves. */
export interface BaseLLM {
  readonly model: string;
  call(messages: ChatMessage[], options?: LLMCallOptions): Promise<LLMResult>;
  supportsFunctionCalling(): boolean;
  contextWindowSize(): number;
  /** Optional: whether the model honours stop sequences (the agent truncates at them anyway). */
  supportsStopWords?(): boolean;
}

/** An empty usage record. */
export function emptyUsage(): TokenUsage {
  return { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
}
