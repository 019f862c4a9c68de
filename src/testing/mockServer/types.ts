/** One scripted answer: plain text, or text and/or tool calls, with optional token counts. */
export type MockResponse =
  | string
  | {
      text?: string;
      /** `arguments` as an object, or as a raw string (sent unchanged, so malformed JSON can be tested). */
      toolCalls?: { id?: string; name: string; arguments: Record<string, unknown> | string }[];
      usage?: { promptTokens?: number; completionTokens?: number };
    };

/** Computes the answer to a request; `index` is the 0-based number of the scripted answer (not of the request). */
export type MockResponder = (request: MockRequest, index: number) => MockResponse | Promise<MockResponse>;

/**
 * A fault injected into one request: `delayMs` waits first; then `status` answers with that status
 * (and `body`, or the provider's error JSON); `body` alone is sent raw with 200; with neither, the
 * request is served normally after the delay. `headers` are added to whatever is sent.
 */
export interface MockFault {
  status?: number;
  delayMs?: number;
  body?: string;
  headers?: Record<string, string>;
}

/** A request as the mock server received it, secrets redacted. */
export interface MockRequest {
  method: string;
  /** The path without its query string, e.g. "/v1/chat/completions". */
  path: string;
  /** Lower-case header names; `authorization`, `x-api-key` and similar are "[redacted]". */
  headers: Record<string, string>;
  /** The parsed JSON body, or the raw text when it is not JSON ("" when there is none). */
  body: unknown;
  /** 0-based position among all requests received, faulted ones included. */
  index: number;
}

/** Options of startMockOpenAIServer. */
export interface MockServerOptions {
  /** Answers in order, or a function; omitted: echo the last user message as a ReAct final answer. */
  responses?: MockResponse[] | MockResponder;
  /** Faults keyed by request index (see MockRequest.index). */
  faults?: Record<number, MockFault>;
  /** Model name listed by GET /v1/models and reported when a request names none (default "mock-model"). */
  model?: string;
  /** Streamed answers: wait this long (timer) before each SSE event after the first, as a model generating tokens does. */
  streamDelayMs?: number;
  /**
   * Streamed answers: awaited before each SSE event after the first is written, so a test can hold
   * the rest of a reply until it has seen the first chunk (proving order without timing).
   */
  beforeStreamEvent?: (event: MockStreamEvent) => void | Promise<void>;
}

/** An SSE event about to be written (see MockServerOptions.beforeStreamEvent). */
export interface MockStreamEvent {
  request: MockRequest;
  /** 0-based position of the event in this reply's stream. */
  index: number;
  /** The raw SSE text ("data: {...}\n\n"). */
  data: string;
}

/** A running mock server. */
export interface MockOpenAIServer {
  /** "http://127.0.0.1:PORT/v1": pass it as `baseURL`. */
  url: string;
  /** Every request received, in order. */
  requests: MockRequest[];
  /** Stops the server and drops open connections; safe to call more than once. */
  close(): Promise<void>;
}
