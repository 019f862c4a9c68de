import { globalHooks } from "../hooks/registry.js";
import { runGlobalAfterKickoff, runGlobalBeforeKickoff } from "../hooks/runHooks.js";
import type { CrewOutput } from "./CrewOutput.js";
import type { CrewOptions, KickoffInputs } from "./CrewOptions.js";

/** The kickoff's inputs checked and copied (hooks and interpolation never change the caller's object). */
export function kickoffInputs(inputs: KickoffInputs | undefined): KickoffInputs | undefined {
  if (inputs === undefined) return undefined;
  if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs)) {
    throw new TypeError(`kickoff inputs must be a plain object of placeholder values, e.g. kickoff({ topic: "AI" }); got ${Array.isArray(inputs) ? "an array" : typeof inputs}.`);
  }
  return { ...inputs };
}

/** Whether a kickoff has before-kickoff hooks to run (the crew's or global ones). */
export function hasBeforeKickoffHooks(hooks: CrewOptions["beforeKickoff"]): boolean {
  return (hooks !== undefined && hooks.length > 0) || globalHooks.beforeKickoff.length > 0;
}

/** Whether a kickoff has after-kickoff hooks to run (the crew's or global ones). */
export function hasAfterKickoffHooks(hooks: CrewOptions["afterKickoff"]): boolean {
  return (hooks !== undefined && hooks.length > 0) || globalHooks.afterKickoff.length > 0;
}

/**
 * The inputs after the crew's before-kickoff hooks, each given the previous one's result (CrewAI's
 * before_kickoff_callbacks), then after the global ones (registered with `beforeKickoff`).
 */
export async function runBeforeKickoff(hooks: CrewOptions["beforeKickoff"], inputs: KickoffInputs | undefined, crewName = "crew"): Promise<KickoffInputs | undefined> {
  let current = kickoffInputs(inputs);
  for (const hook of hooks ?? []) {
    const next = await hook(current ?? {});
    current = next ?? current ?? {};
  }
  return globalHooks.beforeKickoff.length === 0 ? current : runGlobalBeforeKickoff("crew", crewName, current ?? {});
}

/** The output after the crew's after-kickoff hooks, then the global ones; a hook that returns nothing keeps the output as it is. */
export async function runAfterKickoff(hooks: CrewOptions["afterKickoff"], output: CrewOutput, crewName = "crew"): Promise<CrewOutput> {
  let current = output;
  for (const hook of hooks ?? []) {
    const next = await hook(current);
    if (next !== undefined) current = next;
  }
  return runGlobalAfterKickoff("crew", crewName, current);
}
