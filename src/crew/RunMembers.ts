import type { Agent } from "../agent/Agent.js";
import { checkInputs, fillPlaceholders } from "../task/interpolate.js";
import type { Task } from "../task/index.js";
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
  // Originals and their copies at the same positions: the crew's agents, then any other agent copied on
  // first use. A crew has a handful of members and thousands of kickoffs in flight each hold one
  // RunMembers, so exact-size arrays rather than Maps (appending makes a new one).
  private agentOriginals: readonly Agent[];
  private agentCopies: Agent[];
  private readonly taskOriginals: readonly Task[];
  private taking: Agent[] | undefined;

  /** `agents` and `tasks` as given (`inPlace`: a crew copy made for this one run), or their run copies. */
  constructor(agents: readonly Agent[], tasks: readonly Task[], private readonly inPlace: boolean) {
    this.taskOriginals = tasks;
    if (inPlace) {
      this.agents = agents as Agent[];
      this.tasks = tasks as Task[];
      this.agentOriginals = [];
      this.agentCopies = [];
      return;
    }
    this.agentOriginals = agents;
    // An agent listed twice gets one copy.
    const agentCopies = new Array<Agent>(agents.length);
    for (let i = 0; i < agents.length; i++) {
      const first = agents.indexOf(agents[i]!);
      agentCopies[i] = first < i ? agentCopies[first]! : agents[i]!.copyForRun();
    }
    this.agentCopies = this.agents = agentCopies;
    const copies: Task[] = new Array<Task>(tasks.length);
    // Inline callbacks, not named closures: tsx (esbuild's keepNames) names each of those with a defineProperty call.
    for (let i = 0; i < tasks.length; i++) {
      copies[i] = tasks[i]!.copyForRun(
        (agent) => this.agent(agent),
        (context) => copyOf(context, tasks, copies),
      );
    }
    this.tasks = copies;
  }

  /** The run's copy of `agent` (made on first use: task agents missing from the crew's list, the manager). */
  agent(agent: Agent): Agent {
    if (this.inPlace) return agent;
    const at = this.agentOriginals.indexOf(agent);
    if (at >= 0) return this.agentCopies[at]!;
    const copied = agent.copyForRun();
    // Never this.agents itself: that list stays the crew's agents.
    this.agentOriginals = [...this.agentOriginals, agent];
    this.agentCopies = [...this.agentCopies, copied];
    return copied;
  }

  /** The crew's agents and any task agent missing from that list: all of them take part in a kickoff. */
  participants(): Agent[] {
    // Usually that is the agents' own list (no agent twice, every task's agent in it): no list of its own then.
    return (this.taking ??= includesAll(this.agents, this.tasks) ? this.agents : participantsOf(this.agents, this.tasks));
  }

  /** Fills the kickoff's inputs into the tasks' and agents' texts (always from the texts as written). */
  interpolate(inputs: Record<string, unknown>): void {
    // Checked once here rather than for each text.
    checkInputs(inputs);
    for (const task of this.tasks) task.interpolateInputs(inputs, fillPlaceholders);
    for (const agent of this.participants()) agent.interpolateInputs(inputs, fillPlaceholders);
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
    for (let i = 0; i < this.agentCopies.length; i++) {
      // An agent listed twice takes in its one copy once.
      if (this.agentOriginals.indexOf(this.agentOriginals[i]!) === i) this.agentOriginals[i]!.absorbRun(this.agentCopies[i]!);
    }
    if (this.inPlace) return;
    for (let i = 0; i < this.tasks.length; i++) this.taskOriginals[i]!.absorbRun(this.tasks[i]!);
  }
}

/** The run's copy of a context task made so far (tasks copy in order, so a task's context is copied before it), else the task. */
function copyOf(context: Task, tasks: readonly Task[], copies: readonly (Task | undefined)[]): Task {
  const at = tasks.indexOf(context);
  return at >= 0 && copies[at] !== undefined ? copies[at] : context;
}

/** Whether `agents` lists no agent twice and every task's agent. */
function includesAll(agents: readonly Agent[], tasks: readonly Task[]): boolean {
  for (let i = 0; i < agents.length; i++) if (agents.indexOf(agents[i]!) < i) return false;
  for (const task of tasks) if (task.agent && !agents.includes(task.agent)) return false;
  return true;
}

/** `agents` and any task agent missing from that list: all of them take part in a kickoff. */
export function participantsOf(agents: readonly Agent[], tasks: readonly Task[]): Agent[] {
  const all: Agent[] = [];
  for (const agent of agents) if (!all.includes(agent)) all.push(agent);
  for (const task of tasks) if (task.agent && !all.includes(task.agent)) all.push(task.agent);
  // An exact-size copy: a kickoff keeps this list for its whole run (push reserves room to grow).
  return all.slice();
}
