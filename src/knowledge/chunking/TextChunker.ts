import { z } from "zod";

/** CrewAI's default chunk size, in characters. */
export const DEFAULT_CHUNK_SIZE = 4000;
/** CrewAI's default overlap between consecutive chunks, in characters. */
export const DEFAULT_CHUNK_OVERLAP = 200;

/** Where a chunk came from: its source name, its position among the source's chunks and its character range. */
export interface TextChunkMetadata {
  source: string;
  chunkIndex: number;
  /** Offset of the chunk's first character in the original text. */
  start: number;
  /** Offset one past the chunk's last character (`text.slice(start, end) === content`). */
  end: number;
}

/** One piece of a split text. */
export interface TextChunk {
  content: string;
  metadata: TextChunkMetadata;
}

/** Options of `chunkText`; sizes are in characters. */
export interface ChunkTextOptions {
  size?: number;
  overlap?: number;
  source?: string;
}

/** Thrown when chunking options are invalid (for example an overlap not smaller than the size). */
export class ChunkingOptionsError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "ChunkingOptionsError";
  }
}

const chunkOptionsSchema = z
  .object({
    size: z.number().int().positive().default(DEFAULT_CHUNK_SIZE),
    overlap: z.number().int().nonnegative().default(DEFAULT_CHUNK_OVERLAP),
    source: z.string().default("text"),
  })
  .refine((o) => o.overlap < o.size, { message: "overlap must be smaller than size", path: ["overlap"] });

/** Validated chunking options with defaults applied. */
export type ResolvedChunkOptions = z.output<typeof chunkOptionsSchema>;

/** Validates chunking options and fills in CrewAI's defaults (4000 / 200); throws ChunkingOptionsError. */
export function resolveChunkOptions(options: ChunkTextOptions = {}): ResolvedChunkOptions {
  const parsed = chunkOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
    throw new ChunkingOptionsError(
      `Invalid chunking options (${issues}). Use a positive integer size and a non-negative overlap smaller than it.`,
    );
  }
  return parsed.data;
}

// A sentence ends with . ! or ? (optionally followed by a closing quote or bracket) and then whitespace.
const SENTENCE_END = /[.!?…]["')\]»”’]?\s/g;

/** Offset just after the last match of `pattern` ending within (min, max], or -1. */
function lastBoundary(text: string, pattern: RegExp, min: number, max: number): number {
  // Search only the window (plus a few characters so a boundary straddling `min` is seen),
  // so splitting a long text stays linear.
  const from = Math.max(0, min - 4);
  const window = text.slice(from, max);
  let found = -1;
  for (const m of window.matchAll(pattern)) {
    const end = from + m.index + m[0].length;
    if (end > min) found = end;
  }
  return found;
}

/** Where a chunk starting at `start` should end: a paragraph break, else a sentence end, else whitespace, else `start + size`. */
function findBreak(text: string, start: number, size: number, overlap: number): number {
  const hardEnd = start + size;
  if (hardEnd >= text.length) return text.length;
  // Never break so early that the next chunk (which starts `overlap` before the break) would not advance,
  // nor so early that chunks become much smaller than asked.
  const min = start + Math.max(overlap, Math.floor(size / 2));
  for (const pattern of [/\n[ \t]*\n\s*/g, SENTENCE_END, /\s+/g]) {
    const at = lastBoundary(text, pattern, min, hardEnd);
    if (at > min) return at;
  }
  return hardEnd;
}

/** Moves an overlap start forward to the next word start, so overlaps do not begin mid-word. */
function alignOverlapStart(text: string, from: number, limit: number): number {
  if (from === 0 || /\s/.test(text[from - 1] ?? "")) return from;
  for (let i = from; i < limit; i++) {
    if (/\s/.test(text[i] ?? "")) return i + 1;
  }
  return from;
}

/**
 * Splits text into chunks of at most `size` characters, breaking at paragraphs, then sentences,
 * then whitespace, then anywhere; consecutive chunks share about `overlap` characters.
 */
export function chunkText(text: string, options: ChunkTextOptions = {}): TextChunk[] {
  const { size, overlap, source } = resolveChunkOptions(options);
  const chunks: TextChunk[] = [];
  let start = 0;
  while (start < text.length) {
    const end = findBreak(text, start, size, overlap);
    // Trim surrounding whitespace but keep offsets exact.
    let s = start;
    let e = end;
    while (s < e && /\s/.test(text[s] ?? "")) s++;
    while (e > s && /\s/.test(text[e - 1] ?? "")) e--;
    if (e > s) {
      chunks.push({ content: text.slice(s, e), metadata: { source, chunkIndex: chunks.length, start: s, end: e } });
    }
    if (end >= text.length) break;
    start = overlap === 0 ? end : alignOverlapStart(text, Math.max(end - overlap, start + 1), end);
  }
  return chunks;
}
