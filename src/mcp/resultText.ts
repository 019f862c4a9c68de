// MCP tool results become observations: text for the model. Text content is kept as is; binary
// content (images, audio, blobs) cannot be read by a text model, so it is summarised with a note
// rather than dropped silently or pasted as base64.

/** One content block of an MCP tool result, as far as crewts reads it. */
interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** What a `tools/call` returns, as far as crewts reads it. */
export interface MCPCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  toolResult?: unknown;
}

/** The result as one text, and whether the server flagged it as an error. */
export function resultToText(result: MCPCallResult): { text: string; isError: boolean } {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  const parts = blocks.map(blockText).filter((part) => part !== "");
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  // Servers on the 2024-10-07 protocol answer with `toolResult` instead of content.
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult));
  return { text: parts.join("\n"), isError: result.isError === true };
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text ?? "";
    case "image":
    case "audio":
      return `[${block.type} (${block.mimeType ?? "unknown type"}, ${base64Bytes(block.data)} bytes) returned by the tool; it cannot be shown as text]`;
    case "resource": {
      const resource = block.resource ?? {};
      if (typeof resource.text === "string") return `[resource ${resource.uri ?? ""}]\n${resource.text}`;
      return `[binary resource ${resource.uri ?? ""} (${resource.mimeType ?? "unknown type"}, ${base64Bytes(resource.blob)} bytes); it cannot be shown as text]`;
    }
    case "resource_link":
      return `[resource link: ${block.name ?? ""} ${block.uri ?? ""}${block.mimeType ? ` (${block.mimeType})` : ""}]`;
    default:
      return `[${String(block.type)} content returned by the tool; crewts cannot show it as text]`;
  }
}

function base64Bytes(data: string | undefined): number {
  if (!data) return 0;
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

/** `text` cut to `limit` characters with a note saying how much was left out, so the model knows it saw a part. */
export function limitResultLength(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[output truncated: showing the first ${limit} of ${text.length} characters]`;
}
