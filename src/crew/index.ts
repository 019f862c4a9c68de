export { Crew, DEFAULT_FOR_EACH_CONCURRENCY, type MemoryKind } from "./Crew.js";
export { CrewOutput, type CrewOutputInit } from "./CrewOutput.js";
export type { CrewOptions, KickoffInputs, BeforeKickoffHook, AfterKickoffHook } from "./CrewOptions.js";
export { Process } from "./Process.js";
export { CrewValidationError, CrewMemoryError, CrewReplayError } from "./errors.js";
export { DelegateWorkTool, AskQuestionTool, delegationTools } from "./delegation.js";
export { CONTEXT_DIVIDER } from "./SequentialProcess.js";
export type { TrainCrewOptions, TrainingResult, TrainingFeedback } from "./training.js";
export type { TestCrewOptions, CrewTestResult } from "./evaluation.js";
