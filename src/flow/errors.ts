/** A flow class whose decorators do not make a runnable flow; thrown at first use of the class. */
export class FlowDefinitionError extends Error {
  override name = "FlowDefinitionError";
}

/** One method was called more often than `maxMethodCalls` in a single run (usually a router loop without exit). */
export class FlowMethodCallLimitError extends Error {
  override name = "FlowMethodCallLimitError";
  constructor(
    readonly methodName: string,
    readonly limit: number,
  ) {
    super(
      `Flow method "${methodName}" was called more than ${limit} times in one run, so the run was stopped. ` +
        `If the loop is intended, raise the limit in your flow class (maxMethodCalls = ${limit * 10}); otherwise check the router that leads back to "${methodName}" for a missing exit.`,
    );
  }
}

/** Invalid state or inputs for a flow's state schema. */
export class FlowStateError extends Error {
  override name = "FlowStateError";
}

/** A router returned a label that is not in the `emit` list it declares. */
export class FlowRouterError extends Error {
  override name = "FlowRouterError";
  constructor(
    readonly methodName: string,
    readonly label: string,
    readonly emit: readonly string[],
  ) {
    super(
      `Router "${methodName}" returned "${label}", which is not in its emit list (${emit.map((e) => `"${e}"`).join(", ")}), so no listener would run. ` +
        `Return one of those labels, or add "${label}" to emit in @router(..., { emit: [...] }).`,
    );
  }
}
