import { stableStringify } from "./stableStringify.js";

/** Stores tool outputs by tool name and arguments, so a repeated call can skip running the tool (CrewAI's CacheHandler). */
export interface ToolCache {
  /** The output cached for this tool and these arguments, or undefined. */
  get(toolName: string, args: Record<string, unknown>): string | undefined;
  /** Caches the output of a call. */
  set(toolName: string, args: Record<string, unknown>, output: string): void;
  /** Forgets every cached output. */
  clear(): void;
}

/** A ToolCache held in memory; arguments match whatever their key order. */
export class InMemoryToolCache implements ToolCache {
  // Made on the first output cached: a crew makes one cache per kickoff, and most kickoffs of a crew without tools cache nothing.
  private entries: Map<string, string> | undefined;

  get(toolName: string, args: Record<string, unknown>): string | undefined {
    return this.entries?.get(cacheKey(toolName, args));
  }

  set(toolName: string, args: Record<string, unknown>, output: string): void {
    (this.entries ??= new Map()).set(cacheKey(toolName, args), output);
  }

  clear(): void {
    this.entries?.clear();
  }

  /** Number of cached outputs. */
  get size(): number {
    return this.entries?.size ?? 0;
  }
}

function cacheKey(toolName: string, args: Record<string, unknown>): string {
  // NUL cannot occur in a sanitized tool name, so no name/arguments pair can collide with another.
  return `${toolName}\u0000${stableStringify(args)}`;
}
