import { z } from "zod";
import { embedInBatches } from "./batching.js";
import { EmbedderError, type EmbedOptions, type Embedder } from "./Embedder.js";

/** Options of FunctionEmbedder. */
export interface FunctionEmbedderOptions {
  /** Computes one vector per text, in order. */
  embed: (texts: string[], options: EmbedOptions) => Promise<number[][]> | number[][];
  /** Length of every vector. */
  dimensions: number;
  /** Names the function's model; cached vectors are keyed by it (default "function"). */
  id?: string;
  /** Most texts handed to `embed` at once (default 100). */
  batchSize?: number;
}

const optionsSchema = z.object({
  embed: z.custom<FunctionEmbedderOptions["embed"]>((value) => typeof value === "function", "must be a function (texts) => vectors"),
  dimensions: z.number().int().positive(),
  id: z.string().min(1).optional(),
  batchSize: z.number().int().positive().optional(),
});

/** An Embedder over any function: a local model, another SDK, or a fixed table in tests. */
export class FunctionEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  private readonly fn: FunctionEmbedderOptions["embed"];
  private readonly batchSize: number;

  constructor(options: FunctionEmbedderOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new EmbedderError(`Invalid FunctionEmbedder options: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}.`);
    }
    this.fn = options.embed;
    this.dimensions = options.dimensions;
    this.id = options.id ?? "function";
    this.batchSize = options.batchSize ?? 100;
  }

  /** Embeds `texts` in batches through the function. */
  embed(texts: readonly string[], options: EmbedOptions = {}): Promise<number[][]> {
    return embedInBatches(this.id, texts, this.batchSize, async (batch) => this.fn(batch, options), this.dimensions);
  }
}
