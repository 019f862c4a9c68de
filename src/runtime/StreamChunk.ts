/** One piece of a streamed run, as the provider sent it, with where it came from. */
export interface StreamChunk {
  /** Text delta, or for a tool call its arguments as JSON text. */
  content: string;
  chunkType: "text" | "tool_call";
  /** The task being worked on ("" outside a task, e.g. agent.kickoff). */
  taskName: string;
  /** Position of that task in the crew's task list (-1 when unknown). */
  taskIndex: number;
  agentRole: string;
  /** The flow method that was running, when the run is a flow's. */
  methodName?: string;
  /** kickoffForEach: the position of the inputs this run was started with. */
  runIndex?: number;
  /** For chunkType "tool_call": the call the model asked for. */
  toolCall?: { id: string; name: string; arguments: Record<string, unknown> | string };
}
