export { EventBus, eventBus, type HandlerErrorReporter } from "./EventBus.js";
export type { AgentLogStep, BaseEvent, CrewtsEvent, EventHandler, EventPayloads, EventSource, EventType, MCPEventFields, MemoryEventFields } from "./types.js";
export { matchCrew, VerbosePrinter, verboseDefaults, type VerbosePrinterOptions } from "./VerbosePrinter.js";
export { toVerboseRecord, verboseLogLine, type VerboseField, type VerboseLevel, type VerboseLogLine, type VerboseRecord } from "./VerboseRecord.js";
export type { VerboseStream } from "./terminalText.js";
export { setTraceHooks, traceHooks, withinEvent, type TraceHooks } from "./traceHooks.js";
