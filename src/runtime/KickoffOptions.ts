/**
 * Options of one kickoff, the same shape for crews, flows and agents:
 * `crew.kickoff(inputs, options)`, `flow.kickoff(inputs, options)`, `agent.kickoff(messages, options)`.
 */
export interface KickoffOptions {
  /** Aborting it stops the run: the LLM request and running tools receive it; the kickoff rejects with KickoffAbortedError. */
  signal?: AbortSignal;
  /** Resolve to a streaming output (chunks as the provider sends them, then `result`) instead of the result. */
  stream?: boolean;
  /** Resume from this checkpoint: an id (looked up in the instance's checkpoint location) or a JSON checkpoint file. */
  fromCheckpoint?: string;
}
