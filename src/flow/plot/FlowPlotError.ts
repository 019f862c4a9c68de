/** Thrown when a flow plot cannot be written: an invalid graph or an unusable output path; the message says what to fix. */
export class FlowPlotError extends Error {
  override name = "FlowPlotError";
}
