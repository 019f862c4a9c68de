/** How a crew runs its tasks, as CrewAI's Process enum: in order by their agents, or through a manager that delegates. */
export const Process = {
  sequential: "sequential",
  hierarchical: "hierarchical",
} as const;

/** "sequential" or "hierarchical". */
export type Process = (typeof Process)[keyof typeof Process];
