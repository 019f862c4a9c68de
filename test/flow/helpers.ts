/** A promise with its resolve function exposed, for waiting on a point inside a flow method. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Work of a known length inside a flow method (what concurrency tests measure), not synchronization. */
export function work(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
