import { z } from "zod";
import { revealSecrets } from "../llm/hideSecrets.js";
import { redactSecrets } from "../llm/redact.js";
import { MemoryOptionsError } from "./errors.js";
import type { ExternalMemoryProvider } from "./ExternalMemory.js";
import type { MetadataValue } from "./types.js";

/** Options of Mem0Provider. */
export interface Mem0ProviderOptions {
  /** Mem0 API key; default env MEM0_API_KEY. Sent as `Authorization: Token <key>`, never shown. */
  apiKey?: string;
  /** Default https://api.mem0.ai. */
  baseURL?: string;
  /** Whose memories these are; "crewts" when none of userId, agentId and runId is given (Mem0 needs one). */
  userId?: string;
  agentId?: string;
  runId?: string;
  /** Both or neither, as Mem0's client requires. */
  orgId?: string;
  projectId?: string;
  /** Let Mem0 extract facts from what is saved (Mem0's default, true) or store it as is (false). */
  infer?: boolean;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

/** Thrown when a Mem0 request fails; `status` is the HTTP status, if any. The API key never appears in it. */
export class Mem0Error extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "Mem0Error";
  }
}

const optionsSchema = z
  .strictObject({
    apiKey: z.string().min(1).optional(),
    baseURL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL like "https://api.mem0.ai"' }).default("https://api.mem0.ai"),
    userId: z.string().min(1).optional(),
    agentId: z.string().min(1).optional(),
    runId: z.string().min(1).optional(),
    orgId: z.string().min(1).optional(),
    projectId: z.string().min(1).optional(),
    infer: z.boolean().default(true),
    timeoutMs: z.number().int().positive().default(30_000),
    fetch: z.custom<typeof fetch>((value) => typeof value === "function", "must be a fetch function").optional(),
  })
  .refine((o) => (o.orgId === undefined) === (o.projectId === undefined), "give both orgId and projectId, or neither");

const resultSchema = z.object({
  id: z.string().optional(),
  memory: z.string(),
  score: z.number().optional(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
  created_at: z.string().nullish(),
});
const searchResponseSchema = z.union([z.array(resultSchema), z.object({ results: z.array(resultSchema) })]);

/**
 * ExternalMemoryProvider over Mem0's REST API: `POST /v1/memories/` to add, `POST /v2/memories/search/`
 * (filters on user, agent and run ids, `top_k`, `threshold`) to search, `DELETE /v1/memories/` to reset.
 */
export class Mem0Provider implements ExternalMemoryProvider {
  readonly baseURL: string;
  readonly userId: string | undefined;
  readonly agentId: string | undefined;
  readonly runId: string | undefined;
  // A private field: not enumerable, so JSON.stringify, console.log and spreads never show it.
  readonly #apiKey: string;
  readonly #options: z.output<typeof optionsSchema>;

  constructor(options: Mem0ProviderOptions = {}) {
    const parsed = optionsSchema.safeParse(revealSecrets(options));
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message));
      throw new MemoryOptionsError(`Invalid Mem0Provider options: ${redactSecrets(problems.join("; "), [options.apiKey])}.`);
    }
    const apiKey = parsed.data.apiKey ?? process.env.MEM0_API_KEY;
    if (!apiKey) throw new MemoryOptionsError("Mem0Provider needs an API key: pass apiKey or set MEM0_API_KEY.");
    this.#apiKey = apiKey;
    this.#options = parsed.data;
    this.baseURL = parsed.data.baseURL.replace(/\/+$/, "");
    const anyId = parsed.data.userId ?? parsed.data.agentId ?? parsed.data.runId;
    this.userId = parsed.data.userId ?? (anyId === undefined ? "crewts" : undefined);
    this.agentId = parsed.data.agentId;
    this.runId = parsed.data.runId;
  }

  async save(content: string, metadata: Record<string, MetadataValue>): Promise<void> {
    await this.request("save", "POST", "/v1/memories/", {
      messages: [{ role: "assistant", content }],
      metadata,
      infer: this.#options.infer,
      version: "v2",
      output_format: "v1.1",
      ...this.ids(),
      ...this.project(),
    });
  }

  async search(query: string, options: { limit: number; scoreThreshold?: number }) {
    const body = await this.request("search", "POST", "/v2/memories/search/", {
      query,
      filters: { AND: Object.entries(this.ids()).map(([key, value]) => ({ [key]: value })) },
      top_k: options.limit,
      ...(options.scoreThreshold === undefined ? {} : { threshold: options.scoreThreshold }),
      ...this.project(),
    });
    const parsed = searchResponseSchema.safeParse(body);
    if (!parsed.success) throw new Mem0Error(`Mem0 search answered an unexpected shape: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
    const results = Array.isArray(parsed.data) ? parsed.data : parsed.data.results;
    return results.map((r) => {
      const createdAt = r.created_at ? Date.parse(r.created_at) : Number.NaN;
      return {
        ...(r.id === undefined ? {} : { id: r.id }),
        content: r.memory,
        score: r.score ?? 0,
        metadata: scalarMetadata(r.metadata ?? {}),
        ...(Number.isFinite(createdAt) ? { createdAt } : {}),
      };
    });
  }

  async reset(): Promise<void> {
    const params = new URLSearchParams({ ...this.ids(), ...this.project() });
    await this.request("reset", "DELETE", `/v1/memories/?${params.toString()}`);
  }

  /** What JSON.stringify shows: the address and ids, never the key. */
  toJSON(): Record<string, string | undefined> {
    return { provider: "mem0", baseURL: this.baseURL, userId: this.userId, agentId: this.agentId, runId: this.runId };
  }

  private ids(): Record<string, string> {
    return Object.fromEntries(
      Object.entries({ user_id: this.userId, agent_id: this.agentId, run_id: this.runId }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
  }

  private project(): Record<string, string> {
    const { orgId, projectId } = this.#options;
    return orgId !== undefined && projectId !== undefined ? { org_id: orgId, project_id: projectId } : {};
  }

  private async request(operation: string, method: string, path: string, body?: unknown): Promise<unknown> {
    const doFetch = this.#options.fetch ?? fetch;
    let response: Response;
    try {
      response = await doFetch(`${this.baseURL}${path}`, {
        method,
        headers: { Authorization: `Token ${this.#apiKey}`, "Content-Type": "application/json", Accept: "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
    } catch (error) {
      throw new Mem0Error(this.redact(`Mem0 ${operation} failed: could not reach ${this.baseURL} (${error instanceof Error ? error.message : String(error)}).`));
    }
    const text = await response.text().catch(() => "");
    if (!response.ok) {
      const hint = response.status === 401 || response.status === 403 ? " Check the Mem0 API key (apiKey or MEM0_API_KEY)." : "";
      throw new Mem0Error(this.redact(`Mem0 ${operation} failed: HTTP ${response.status}: ${text.slice(0, 300)}.${hint}`), response.status);
    }
    if (text === "") return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Mem0Error(this.redact(`Mem0 ${operation} answered with text that is not JSON: ${text.slice(0, 200)}`), response.status);
    }
  }

  private redact(text: string): string {
    return redactSecrets(text.replaceAll(this.#apiKey, "[redacted]"), [this.#apiKey]);
  }
}

function scalarMetadata(metadata: Record<string, unknown>): Record<string, MetadataValue> {
  const out: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value;
    else out[key] = JSON.stringify(value);
  }
  return out;
}
