import { newId } from "./newId.js";
import type { CrewtsEvent, EventHandler, EventPayloads, EventType } from "./types.js";

/** Receives the error of a handler that threw, with the event it was handling. */
export type HandlerErrorReporter = (error: unknown, event: CrewtsEvent) => void;

const defaultReporter: HandlerErrorReporter = (error, event) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`[crewts] an event handler for "${event.type}" threw and was skipped: ${message}`);
};

type AnyHandler = (event: CrewtsEvent) => void | Promise<void>;

/**
 * Delivers events to subscribers synchronously, in subscription order. A handler that throws (or
 * whose promise rejects) is reported and skipped: observers never break a run.
 */
export class EventBus {
  private readonly handlers = new Map<string, Set<AnyHandler>>();
  private readonly wildcard = new Set<AnyHandler>();
  private reporter: HandlerErrorReporter = defaultReporter;
  // How many handlers are subscribed in all: a run asks hasListeners for each event it could emit, and
  // most processes have none.
  private subscribed = 0;

  /** Subscribes to one event type; returns a function that unsubscribes. */
  on<K extends EventType>(type: K, handler: EventHandler<K>): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    const h = handler as AnyHandler;
    if (!set.has(h)) {
      set.add(h);
      this.subscribed++;
    }
    return () => {
      // After clear(), `set` is no longer the bus's: its handlers were counted out already.
      if (this.handlers.get(type) === set && set.delete(h)) this.subscribed--;
    };
  }

  /** Subscribes to every event; returns a function that unsubscribes. */
  onAny(handler: EventHandler): () => void {
    const h = handler;
    if (!this.wildcard.has(h)) {
      this.wildcard.add(h);
      this.subscribed++;
    }
    return () => {
      if (this.wildcard.delete(h)) this.subscribed--;
    };
  }

  /** Subscribes for the next event of `type` only. */
  once<K extends EventType>(type: K, handler: EventHandler<K>): () => void {
    const off = this.on(type, (event) => {
      off();
      return handler(event);
    });
    return off;
  }

  /** Whether anyone listens to `type`; emitters use it to skip building payloads nobody reads. */
  hasListeners(type: EventType): boolean {
    if (this.subscribed === 0) return false;
    return this.wildcard.size > 0 || (this.handlers.get(type)?.size ?? 0) > 0;
  }

  /** Emits an event of `type`; `eventId` and `timestamp` are added here. Returns the event, or undefined when nobody listens. */
  emit<K extends EventType>(type: K, payload: EventPayloads[K]): CrewtsEvent<K> | undefined {
    const set = this.handlers.get(type);
    if (this.wildcard.size === 0 && (set === undefined || set.size === 0)) return undefined;
    // Object.assign, not `{ ...payload, type, ... }`: V8 (Node 20) takes a slow path (~15x) when
    // properties follow a spread in an object literal. Same keys, same order, type still wins.
    const event = Object.assign({}, payload, { type, eventId: newId(), timestamp: new Date() }) as unknown as CrewtsEvent<K>;
    if (set) for (const handler of [...set]) this.deliver(handler, event);
    for (const handler of [...this.wildcard]) this.deliver(handler, event);
    return event;
  }

  /** Replaces how handler errors are reported (default: one line on stderr). */
  onHandlerError(reporter: HandlerErrorReporter): void {
    this.reporter = reporter;
  }

  /** Removes every subscription (for tests and long-lived processes that rebuild their observers). */
  clear(): void {
    this.handlers.clear();
    this.wildcard.clear();
    this.subscribed = 0;
  }

  private deliver(handler: AnyHandler, event: CrewtsEvent): void {
    try {
      const result = handler(event);
      if (result && typeof (result).then === "function") {
        (result).then(undefined, (error: unknown) => this.report(error, event));
      }
    } catch (error) {
      this.report(error, event);
    }
  }

  private report(error: unknown, event: CrewtsEvent): void {
    try {
      this.reporter(error, event);
    } catch {
      // A broken reporter must not break the run either.
    }
  }
}

/** The process-wide event bus every crewts component emits to. */
export const eventBus = new EventBus();
