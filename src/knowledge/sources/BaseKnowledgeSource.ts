import { z } from "zod";
import { chunkText, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, type TextChunkMetadata } from "../chunking/TextChunker.js";
import { contentHash } from "../store/SearchStore.js";
import { KnowledgeSourceError } from "./errors.js";

/** Chunk metadata: where the chunk came from plus the source's own metadata. */
export interface KnowledgeChunkMetadata extends TextChunkMetadata {
  [key: string]: unknown;
}

/** A piece of knowledge ready to be embedded and stored. */
export interface KnowledgeChunk {
  content: string;
  metadata: KnowledgeChunkMetadata;
  /** sha256 (hex) of the whole document the chunk came from: equal hashes mean an unchanged document. */
  contentHash: string;
}

/** One text document produced by a source (a string, a file) before chunking. */
export interface KnowledgeDocument {
  /** Name recorded as `metadata.source`: the resolved file path, or a label for strings. */
  source: string;
  text: string;
}

/** Options every knowledge source accepts. */
export interface BaseKnowledgeSourceOptions {
  /** Characters per chunk (default 4000, as CrewAI). */
  chunkSize?: number;
  /** Characters shared by consecutive chunks (default 200, as CrewAI). */
  chunkOverlap?: number;
  /** Extra metadata copied onto every chunk. */
  metadata?: Record<string, unknown>;
  /** Collection the chunks belong to, when a store keeps several. */
  collectionName?: string;
}

/** Zod schema of the common options; subclasses extend it. */
export const baseKnowledgeSourceOptionsSchema = z.object({
  chunkSize: z.number().int().positive().default(DEFAULT_CHUNK_SIZE),
  chunkOverlap: z.number().int().nonnegative().default(DEFAULT_CHUNK_OVERLAP),
  metadata: z.record(z.string(), z.unknown()).default({}),
  collectionName: z.string().min(1).optional(),
});

/** Parses options with `schema`, turning zod issues into a KnowledgeSourceError naming the source class. */
export function parseSourceOptions<S extends z.ZodType>(sourceName: string, schema: S, options: unknown): z.output<S> {
  const parsed = schema.safeParse(options ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
    throw new KnowledgeSourceError(`Invalid ${sourceName} options: ${issues}.`);
  }
  const data = parsed.data as { chunkSize?: number; chunkOverlap?: number };
  if (data.chunkSize !== undefined && data.chunkOverlap !== undefined && data.chunkOverlap >= data.chunkSize) {
    throw new KnowledgeSourceError(
      `Invalid ${sourceName} options: chunkOverlap (${data.chunkOverlap}) must be smaller than chunkSize (${data.chunkSize}).`,
    );
  }
  return parsed.data;
}

/** A source of knowledge: produces documents, which `load()` splits into hashed chunks. */
export abstract class BaseKnowledgeSource {
  readonly chunkSize: number;
  readonly chunkOverlap: number;
  readonly metadata: Record<string, unknown>;
  readonly collectionName: string | undefined;

  protected constructor(options: z.output<typeof baseKnowledgeSourceOptionsSchema>) {
    this.chunkSize = options.chunkSize;
    this.chunkOverlap = options.chunkOverlap;
    this.metadata = options.metadata;
    this.collectionName = options.collectionName;
  }

  /** Reads and converts the source's content to text documents. */
  protected abstract loadDocuments(): Promise<KnowledgeDocument[]>;

  /** Reads the source and splits it into chunks with source, position and content hash. */
  async load(): Promise<KnowledgeChunk[]> {
    const documents = await this.loadDocuments();
    const chunks: KnowledgeChunk[] = [];
    for (const doc of documents) {
      const hash = contentHash(doc.text);
      for (const chunk of chunkText(doc.text, { size: this.chunkSize, overlap: this.chunkOverlap, source: doc.source })) {
        chunks.push({ content: chunk.content, metadata: { ...this.metadata, ...chunk.metadata }, contentHash: hash });
      }
    }
    return chunks;
  }
}
