/** The OpenAPI 3.1 document GET /openapi.json serves. */
export function openApiDocument(version: string): Record<string, unknown> {
  const json = (schema: Record<string, unknown>) => ({ content: { "application/json": { schema } } });
  const error = { description: "An error", ...json({ $ref: "#/components/schemas/Error" }) };
  const id = { name: "kickoff_id", in: "path", required: true, schema: { type: "string" } };
  return {
    openapi: "3.1.0",
    info: { title: "crewts server", version, description: "A crewts project's crew or flow over HTTP (CrewAI's deployment API)." },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        Error: { type: "object", properties: { error: { type: "string" } }, required: ["error"] },
        Pending: {
          type: "object",
          description: "What a PAUSED kickoff waits for; POST /resume answers it.",
          properties: {
            kind: { enum: ["human_feedback", "task_review", "tool_approval"] },
            message: { type: "string" },
            method: { type: "string" },
            emit: { type: "array", items: { type: "string" } },
            task: { type: "string" },
            agent: { type: "string" },
            tool: { type: "string" },
            tool_input: { type: "object" },
            output: { type: "string" },
          },
          required: ["kind", "message"],
        },
        Status: {
          type: "object",
          properties: {
            state: { enum: ["PENDING", "RUNNING", "PAUSED", "SUCCESS", "FAILED", "CANCELLED"] },
            result: {},
            error: { type: "string" },
            last_step: { type: "object", properties: { type: { type: "string" }, name: { type: "string" }, output: { type: "string" } } },
            pending: { $ref: "#/components/schemas/Pending" },
          },
          required: ["state"],
        },
      },
    },
    security: [{ bearer: [] }],
    paths: {
      "/health": { get: { security: [], summary: "Liveness", responses: { 200: { description: "Up", ...json({ type: "object" }) } } } },
      "/inputs": { get: { summary: "The inputs the kickoff uses", responses: { 200: { description: "Input names", ...json({ type: "object", properties: { inputs: { type: "array", items: { type: "string" } } } }) }, 401: error } } },
      "/kickoff": {
        post: {
          summary: "Start a kickoff",
          requestBody: json({
            type: "object",
            properties: {
              inputs: { type: "object" },
              webhooks: { type: "object", properties: { crewWebhookUrl: { type: "string" }, taskWebhookUrl: { type: "string" }, stepWebhookUrl: { type: "string" } } },
            },
          }),
          responses: { 202: { description: "Accepted", ...json({ type: "object", properties: { kickoff_id: { type: "string" } } }) }, 400: error, 401: error, 413: error, 503: error },
        },
      },
      "/status/{kickoff_id}": { get: { summary: "A kickoff's state", parameters: [id], responses: { 200: { description: "Status", ...json({ $ref: "#/components/schemas/Status" }) }, 401: error, 404: error } } },
      "/stream/{kickoff_id}": { get: { summary: "Server-sent events of a kickoff (kickoff_paused when it pauses; the stream stays open until it ends)", parameters: [id], responses: { 200: { description: "text/event-stream" }, 401: error, 404: error } } },
      "/cancel/{kickoff_id}": { post: { summary: "Cancel a kickoff", parameters: [id], responses: { 200: { description: "Cancelled", ...json({ $ref: "#/components/schemas/Status" }) }, 401: error, 404: error, 409: error } } },
      "/resume": {
        post: {
          summary: "Resume a paused kickoff with human feedback (a flow's @humanFeedback, a task review, a tool approval: yes/no)",
          requestBody: json({ type: "object", properties: { kickoff_id: { type: "string" }, feedback: { type: "string" } }, required: ["kickoff_id", "feedback"], additionalProperties: false }),
          responses: {
            202: { description: "Resumed; /status and /stream follow it", ...json({ type: "object", properties: { kickoff_id: { type: "string" }, state: { const: "RUNNING" } } }) },
            400: error,
            401: error,
            404: error,
            409: { description: "The kickoff is not PAUSED (or was resumed already)", ...json({ $ref: "#/components/schemas/Error" }) },
            413: error,
            503: error,
          },
        },
      },
    },
  };
}
