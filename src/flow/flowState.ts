import { newId } from "../events/newId.js";
import { FlowStateError } from "./errors.js";

/** The state a flow methods see: the declared shape plus CrewAI's `id` (a uuid unless given). */
export type FlowState<S> = S & { id: string };

/** A Standard Schema (zod 4 and others implement it); only the parts flows use. */
export interface StateSchema<Output = unknown> {
  readonly "~standard": {
    readonly validate: (value: unknown) => StateSchemaResult<Output> | Promise<StateSchemaResult<Output>>;
  };
}

type StateSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly { readonly message: string; readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined }[] };

/** What `initialState` may be: a plain object (copied per flow) or a schema whose defaults fill the state. */
export type InitialState<S> = Partial<S> | StateSchema<S>;

/** Whether `value` is a Standard Schema rather than a plain initial state object. */
export function isStateSchema(value: unknown): value is StateSchema {
  return typeof value === "object" && value !== null && "~standard" in value;
}

/**
 * Builds the next state from `base` overlaid with `patch`, validated by `schema` when there is one
 * (which applies its defaults). The id is kept from `patch`, else `base`, else a new uuid.
 */
export function buildState(
  flowName: string,
  schema: StateSchema | undefined,
  base: Record<string, unknown>,
  patch: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base, ...patch };
  const id = typeof merged.id === "string" && merged.id.length > 0 ? merged.id : newId();
  if (!schema) {
    merged.id = id;
    return merged;
  }
  // The id is ours, not the schema's: a strict schema without `id` must still accept the state.
  delete merged.id;
  const result = schema["~standard"].validate(merged);
  // State is read synchronously (`flow.state`), so the schema must validate synchronously, as zod does.
  if (result instanceof Promise) throw new FlowStateError(`The state schema of flow ${flowName} validates asynchronously; use a synchronous schema (e.g. zod without async refinements).`);
  if (result.issues) {
    const lines = result.issues.map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    throw new FlowStateError(`Invalid state for flow ${flowName}: ${lines.join("; ")}. Fix the inputs passed to kickoff() or the defaults in initialState.`);
  }
  const value = result.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FlowStateError(`The state schema of flow ${flowName} must produce an object, got ${Array.isArray(value) ? "an array" : typeof value}. Use z.object({...}).`);
  }
  return { ...(value as Record<string, unknown>), id };
}

/** A fresh copy of a plain initial state, so two flow instances never share nested objects. */
export function copyInitialState(initial: unknown): Record<string, unknown> {
  if (initial === undefined || initial === null) return {};
  if (typeof initial !== "object" || Array.isArray(initial)) throw new FlowStateError(`initialState must be an object or a schema, got ${typeof initial}.`);
  try {
    return structuredClone(initial as Record<string, unknown>);
  } catch {
    // A function or class instance somewhere: copy field by field, sharing only what cannot be cloned.
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(initial)) copy[key] = cloneOrShare(value);
    return copy;
  }
}

function cloneOrShare(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}
