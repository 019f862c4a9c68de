/** A tool definition or tool runner configuration that cannot work; the message says what to fix. */
export class ToolError extends Error {
  override readonly name = "ToolError";
}
