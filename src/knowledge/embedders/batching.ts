import { EmbedderError } from "./Embedder.js";

/**
 * Embeds `texts` in batches of at most `batchSize`, one batch after the other (providers cap
 * inputs per request, and a failed batch is retried alone), and checks what comes back.
 */
export async function embedInBatches(
  id: string,
  texts: readonly string[],
  batchSize: number,
  embedBatch: (batch: string[]) => Promise<number[][]>,
  dimensions: number | undefined,
): Promise<number[][]> {
  const vectors: number[][] = [];
  for (let at = 0; at < texts.length; at += batchSize) {
    const batch = texts.slice(at, at + batchSize);
    const got = await embedBatch(batch);
    if (got.length !== batch.length) {
      throw new EmbedderError(`embedder ${id} returned ${got.length} vectors for ${batch.length} texts; it must return one vector per text, in order.`);
    }
    vectors.push(...got);
  }
  const size = dimensions ?? vectors[0]?.length;
  for (const [index, vector] of vectors.entries()) {
    if (vector.length !== size || vector.length === 0) {
      throw new EmbedderError(
        `embedder ${id} returned a vector of ${vector.length} numbers for text #${index}, expected ${size}; every vector must have the embedder's dimensions.`,
      );
    }
  }
  return vectors;
}
