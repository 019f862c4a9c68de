import { Agent } from "../agent/Agent.js";
import type { BaseLLM } from "../llm/types.js";
import { crewPrompts } from "./crewPrompts.js";
import { delegationTools, mergeTools } from "./delegation.js";
import { uniqueTools, type TaskAssignment } from "./SequentialProcess.js";

/** What the manager of a hierarchical crew is made from. */
export interface ManagerSpec {
  managerAgent?: Agent;
  managerLLM?: string | BaseLLM;
  verbose?: boolean;
}

/**
 * The manager of a hierarchical crew: the given managerAgent (now allowed to delegate, as CrewAI does),
 * or a "Crew Manager" on managerLLM. It gets the delegation tools per task, not as its own tools.
 */
export function createManagerAgent(spec: ManagerSpec): Agent {
  if (spec.managerAgent) {
    spec.managerAgent.allowDelegation = true;
    return spec.managerAgent;
  }
  return new Agent({
    role: crewPrompts.managerRole,
    goal: crewPrompts.managerGoal,
    backstory: crewPrompts.managerBackstory,
    ...(spec.managerLLM !== undefined ? { llm: spec.managerLLM } : {}),
    allowDelegation: true,
    ...(spec.verbose !== undefined ? { verbose: spec.verbose } : {}),
  });
}

/**
 * The hierarchical process: the manager executes every task with the delegation tools. A task with an
 * agent of its own may only be delegated to that agent; any other task to any agent of the crew
 * (CrewAI's _update_manager_tools).
 */
export function hierarchicalAssignment(manager: Agent, crewAgents: readonly Agent[]): TaskAssignment {
  return {
    agentFor: () => manager,
    toolsFor(task) {
      const coworkers = task.agent ? [task.agent] : crewAgents;
      // The task's own tools only: the tools its agent would have are the agent's to use once delegated to.
      return mergeTools(uniqueTools([...manager.tools, ...task.ownTools]), delegationTools(coworkers));
    },
  };
}
