/** An LLM call was blocked by a before-LLM-call hook; the agent step fails with it. */
export class HookBlockedError extends Error {
  constructor(readonly agentRole: string) {
    super(
      `A beforeLLMCall hook returned false, so the LLM call of agent "${agentRole}" was blocked and its step failed. ` +
        "Return undefined (or true) from the hook to let the call through, or narrow it with { agents: [...] }.",
    );
    this.name = "HookBlockedError";
  }
}
