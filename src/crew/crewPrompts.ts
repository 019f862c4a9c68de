/**
 * Texts a crew sends to models: the delegation tools and the manager of a hierarchical crew. The
 * meaning is CrewAI's; the sentences are ours.
 */
export const crewPrompts = {
  managerRole: "Crew Manager",
  managerGoal: "Get the team to complete each task as well as it can be done.",
  managerBackstory:
    "You are an experienced manager who brings out the best in a team.\n" +
    "You know who should do which piece of work, you delegate it to them, and you ask them the questions that get the best answers.\n" +
    "You do not do the work yourself, but you know the field well enough to judge the work of each team member.",

  delegateWorkDescription: (coworkers: string): string =>
    `Hand one specific task to one of these coworkers: ${coworkers}\n` +
    "Give the coworker's role, the task you want done, and ALL the context needed to do it. " +
    "They know nothing about the task, so share everything you know and explain things instead of referring to them.",

  askQuestionDescription: (coworkers: string): string =>
    `Ask one specific question to one of these coworkers: ${coworkers}\n` +
    "Give the coworker's role, your question, and ALL the context needed to answer it. " +
    "They know nothing about it, so share everything you know and explain things instead of referring to them.",

  delegatedExpectedOutput: "Your best answer to the coworker who asked, taking the shared context into account.",

  unknownCoworker: (given: string, roles: string[]): string =>
    `\nError executing tool: there is no coworker '${given}'. The coworker must be one of:\n${roles.map((role) => `- ${role}`).join("\n")}\n`,

  delegationFailed: (role: string, error: string): string => `Error executing the task with coworker '${role}': ${error}`,
} as const;
