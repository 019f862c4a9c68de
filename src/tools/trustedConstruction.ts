let trusted = 0;

/**
 * Builds objects from options that were validated already (copies of a valid crew, a tool runner an
 * agent makes from its own checked tools): constructors skip their zod validation inside `build`.
 * Construction is synchronous, so the flag cannot leak into unrelated code.
 */
export function withTrustedConstruction<T>(build: () => T): T {
  trusted++;
  try {
    return build();
  } finally {
    trusted--;
  }
}

/** Whether the current construction may skip validating its options. */
export function isTrustedConstruction(): boolean {
  return trusted > 0;
}
