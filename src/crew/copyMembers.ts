import type { Agent } from "../agent/Agent.js";
import type { Task } from "../task/Task.js";

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
