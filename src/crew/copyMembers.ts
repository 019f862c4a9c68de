import type { Agent } from "../agent/Agent.js";
import type { Task } from "../task/Task.js";
import type { CrewOptions } from "./CrewOptions.js";

/** A crew's options for a copy of it: copies of its agents, tasks and manager, and lists of its own. */
export function copiedCrewOptions(options: Readonly<CrewOptions>, crewAgents: readonly Agent[], crewTasks: readonly Task[]): CrewOptions {
  const { agents, tasks } = copyMembers(crewAgents, crewTasks);
  const { managerAgent, beforeKickoff, afterKickoff, knowledgeSources } = options;
  return {
    ...options,
    agents,
    tasks,
    ...(managerAgent ? { managerAgent: managerAgent.copy() } : {}),
    ...(beforeKickoff ? { beforeKickoff: [...beforeKickoff] } : {}),
    ...(afterKickoff ? { afterKickoff: [...afterKickoff] } : {}),
    ...(knowledgeSources ? { knowledgeSources: [...knowledgeSources] } : {}),
  };
}

/**
 * Copies of a crew's agents and tasks: each agent copied once however many tasks name it, and each
 * task's context pointing at the copies of earlier tasks (tasks outside the list stay as they are).
 */
export function copyMembers(agents: readonly Agent[], tasks: readonly Task[]): { agents: Agent[]; tasks: Task[] } {
  const agentCopies = new Map<Agent, Agent>();
  const copyAgent = (agent: Agent): Agent => {
    let copied = agentCopies.get(agent);
    if (!copied) {
      copied = agent.copy();
      agentCopies.set(agent, copied);
    }
    return copied;
  };
  const copiedAgents = agents.map(copyAgent);
  const taskCopies = new Map<Task, Task>();
  const copiedTasks = tasks.map((task) => {
    const copied = task.copy(copyAgent, (contextTask) => taskCopies.get(contextTask) ?? contextTask);
    taskCopies.set(task, copied);
    return copied;
  });
  return { agents: copiedAgents, tasks: copiedTasks };
}
