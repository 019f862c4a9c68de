import { VerbosePrinter } from "../events/VerbosePrinter.js";

/** Prints the verbose account of one flow kickoff (its flow and method events); returns the function that ends it. */
export function printFlow(flowId: string): () => Promise<void> {
  const release = VerbosePrinter.acquire({ key: `flow:${flowId}`, match: (source) => source.flowId === flowId });
  return release ?? (async () => {});
}
