// Mirrors CrewAI's `sanitize_tool_name` (itself adapted from python-slugify, MIT) so a name the
// model saw in a CrewAI-style prompt resolves to the same tool here.

/** Longest tool name OpenAI and Bedrock accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * Turns a tool name into the form LLM providers accept and prompts show: ASCII, camelCase split,
 * lowercase, every run of other characters collapsed to one `_`, no leading or trailing `_`,
 * at most `maxLength` characters. "Random Number Generator" -> "random_number_generator".
 */
export function sanitizeToolName(name: string, maxLength: number = MAX_TOOL_NAME_LENGTH): string {
  let result = name
    .normalize("NFKD")
    // After NFKD, accents are separate combining marks; dropping every non-ASCII unit keeps "é" as "e".
    .replace(/[\u0080-\uffff]/g, "")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/([a-z])([A-Z])/g, "$1_$2")
    .toLowerCase()
    // Quotes vanish rather than split words: "It's" -> "its".
    .replace(/['"]+/g, "")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (result.length > maxLength) result = result.slice(0, maxLength).replace(/_+$/, "");
  return result;
}
