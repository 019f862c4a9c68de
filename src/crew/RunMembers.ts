import type { Agent } from "../agent/Agent.js";
import { interpolate, type Task } from "../task/index.js";
import { trainedInstructionsFor, type TrainedAgentsData } from "./training.js";

/**
 * The agents and tasks one kickoff works on. A kickoff fills inputs into its tasks and agents, lends
 * them the crew's tool cache and memory, and records outputs and retries on them: on shared objects,
 * concurrent kickoffs of one crew would overwrite each other's. So every kickoff works on copies that
 * keep the originals' ids, and the originals take in what the run did once it ends (its latest outputs,
 * tokens and texts, as after a direct execution).
 */
export class RunMembers {
  readonly agents: Agent[];
  readonly tasks: Task[];
  private readonly agentCopies = new Map<Agent, Agent>();
  private readonly taskCopies = new Map<Task, Task>();

  /** `agents` and `tasks` as given (`inPlace`: a crew copy made for this one run), or their run copies. */
  constructor(agents: readonly Agent[], tasks: readonly Task[], private readonly inPlace: boolean) {
    this.agents = agents.map((agent) => this.agent(agent));
    this.tasks = tasks.map((task) => {
      const copied = inPlace ? task : task.copyForRun((agent) => this.agent(agent), (context) => this.taskCopies.get(context) ?? context);
      this.taskCopies.set(task, copied);
      return copied;
    });
  }

  /** The run's copy of `agent` (made on first use: task agents missing from the crew's list, the manager). */
  agent(agent: Agent): Agent {
    if (this.inPlace) return agent;
    let copied = this.agentCopies.get(agent);
    if (!copied) {
      copied = agent.copyForRun();
      this.agentCopies.set(agent, copied);
    }
    return copied;
  }

  /** The crew's agents and any task agent missing from that list: all of them take part in a kickoff. */
  participants(): Agent[] {
    return participantsOf(this.agents, this.tasks);
  }

  /** Fills the kickoff's inputs into the tasks' and agents' texts (always from the texts as written). */
  interpolate(inputs: Record<string, unknown>): void {
    for (const task of this.tasks) task.interpolateInputs(inputs);
    for (const agent of this.participants()) agent.interpolateInputs(inputs, interpolate);
  }

  /** Gives each agent the guidance `crew.train` saved for its role. */
  applyTrainedData(data: TrainedAgentsData): void {
    for (const agent of this.participants()) {
      const instructions = trainedInstructionsFor(data, agent.role);
      if (instructions !== undefined) agent.trainedInstructions = instructions;
    }
  }

  /** Gives the originals what their copies did in this run. */
  absorb(): void {
    for (const [original, copied] of this.agentCopies) original.absorbRun(copied);
    for (const [original, copied] of this.taskCopies) if (original !== copied) original.absorbRun(copied);
  }
}

/** `agents` and any task agent missing from that list: all of them take part in a kickoff. */
export function participantsOf(agents: readonly Agent[], tasks: readonly Task[]): Agent[] {
  const all = new Set(agents);
  for (const task of tasks) if (task.agent) all.add(task.agent);
  return [...all];
}
