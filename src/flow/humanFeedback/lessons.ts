import type { BaseLLM } from "../../llm/types.js";
import type { FlowPersistence } from "../persistence/FlowPersistence.js";

// At most this many lessons are kept per method: the newest win.
const KEEP = 100;
// Lessons of flows without a persistence live for the process.
const inMemory = new Map<string, string[]>();

const keyOf = (flowClass: string, methodName: string): string => `crewts:hitl-lessons:${flowClass}.${methodName}`;

/** The newest `limit` lessons learned from feedback on `flowClass.methodName`, oldest first. */
export async function recallLessons(backend: FlowPersistence | undefined, flowClass: string, methodName: string, limit: number): Promise<string[]> {
  const all = backend ? lessonsIn(await backend.loadState(keyOf(flowClass, methodName))) : (inMemory.get(keyOf(flowClass, methodName)) ?? []);
  return limit > 0 ? all.slice(-limit) : [];
}

/** Adds lessons for `flowClass.methodName`, in the flow's persistence when it has one, else in memory. */
export async function storeLessons(backend: FlowPersistence | undefined, flowClass: string, methodName: string, lessons: string[]): Promise<void> {
  if (lessons.length === 0) return;
  const key = keyOf(flowClass, methodName);
  const before = backend ? lessonsIn(await backend.loadState(key)) : (inMemory.get(key) ?? []);
  const next = [...before, ...lessons].slice(-KEEP);
  if (backend) await backend.saveState(key, methodName, { lessons: next });
  else inMemory.set(key, next);
}

function lessonsIn(saved: Record<string, unknown> | undefined): string[] {
  const list = saved?.lessons;
  return Array.isArray(list) ? list.filter((l): l is string => typeof l === "string") : [];
}

/**
 * Asks the model for general lessons in a correction (CrewAI's distillation); none for plain approval.
 * A failing model stores nothing: learning never stops the flow.
 */
export async function distilLessons(llm: BaseLLM, output: unknown, feedback: string): Promise<string[]> {
  if (feedback.trim() === "") return [];
  try {
    const reply = await llm.call([
      {
        role: "system",
        content:
          "You turn a reviewer's feedback on a piece of work into general lessons that improve future work of the same kind. " +
          "Answer with one lesson per line. If the feedback only approves the work and teaches nothing, answer NONE.",
      },
      { role: "user", content: `Work:\n${asText(output)}\n\nFeedback:\n${feedback.trim()}` },
    ]);
    const lines = reply.text.split("\n").map((l) => l.replace(/^\s*(?:[-*•]|\d+[.)])\s*/, "").trim());
    return lines.filter((l) => l !== "" && !/^none\.?$/i.test(l));
  } catch {
    return [];
  }
}

/** Applies past lessons to the output before the human sees it (CrewAI's pre-review); the raw output when the model fails. */
export async function preReview(llm: BaseLLM, output: unknown, lessons: readonly string[]): Promise<unknown> {
  if (lessons.length === 0 || typeof output !== "string") return output;
  try {
    const reply = await llm.call([
      {
        role: "system",
        content: "You improve a piece of work by applying lessons a reviewer taught earlier. Answer with the improved work only, nothing else.",
      },
      { role: "user", content: `Lessons:\n${lessons.map((l) => `- ${l}`).join("\n")}\n\nWork:\n${output}` },
    ]);
    const improved = reply.text.trim();
    return improved === "" ? output : improved;
  } catch {
    return output;
  }
}

/** The output as the human and the model read it. */
export function asText(output: unknown): string {
  if (typeof output === "string") return output;
  try {
    return JSON.stringify(output, null, 2) ?? String(output);
  } catch {
    return String(output);
  }
}
