export { CrewBase, type AgentConfig, type CrewBaseOptions, type TaskConfig, type ToolEntry } from "./CrewBase.js";
export { agent, task, crew, beforeKickoff, afterKickoff } from "./decorators.js";
export { ProjectConfigError } from "./ProjectConfigError.js";
export type { ConfigSource } from "./yamlConfig.js";
