import { randomUUID } from "node:crypto";

/**
 * A random UUID (v4) held as one flat string. Node builds randomUUID()'s text from 14 joined pieces,
 * and V8 keeps such a string as a tree of 15 strings (about 480 bytes) until something reads it whole.
 * The ids a run keeps while it waits on its model (thousands may be in flight) take 64 bytes this way.
 */
export function newId(): string {
  // toLowerCase of an all-lowercase UUID changes no character but returns it flattened.
  return randomUUID().toLowerCase();
}
