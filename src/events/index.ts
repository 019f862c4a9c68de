export { EventBus, eventBus, type HandlerErrorReporter } from "./EventBus.js";
export type { BaseEvent, CrewtsEvent, EventHandler, EventPayloads, EventSource, EventType } from "./types.js";
