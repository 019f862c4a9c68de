// beforeKickoff / afterKickoff are exported from the package as the project decorators of the same name, which also register global hooks.
export { beforeLLMCall, afterLLMCall, beforeToolCall, afterToolCall, beforeStep, afterStep } from "./registry.js";
export { HookBlockedError } from "./HookBlockedError.js";
export type {
  GlobalAfterKickoffHook,
  AfterKickoffHookContext,
  AfterLLMCallHook,
  AfterToolCallHook,
  GlobalBeforeKickoffHook,
  BeforeKickoffHookContext,
  BeforeLLMCallHook,
  BeforeToolCallHook,
  CrewHooks,
  HookFilter,
  LLMCallHookContext,
  BeforeStepHook,
  AfterStepHook,
  StepHookContext,
  ToolCallHookContext,
} from "./types.js";
