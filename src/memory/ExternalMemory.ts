import { revealSecrets } from "../llm/hideSecrets.js";
import { MemoryOptionsError } from "./errors.js";
import { Mem0Provider, type Mem0ProviderOptions } from "./Mem0Provider.js";
import { DEFAULT_IMPORTANCE, memoryText } from "./memoryText.js";
import { QueuedMemory, type Candidate, type CandidateQuery } from "./QueuedMemory.js";
import { clamp01, resolveScoring, type MemoryScoring } from "./scoring.js";
import type { MetadataValue } from "./types.js";

/** A memory service crewts saves to and searches (Mem0, or your own). */
export interface ExternalMemoryProvider {
  save(content: string, metadata: Record<string, MetadataValue>): Promise<void>;
  /** Found memories, `score` in [0, 1]; `createdAt` in ms when the service knows it. */
  search(
    query: string,
    options: { limit: number; scoreThreshold?: number },
  ): Promise<{ id?: string; content: string; score: number; metadata?: Record<string, MetadataValue>; createdAt?: number }[]>;
  reset(): Promise<void>;
  /** Releases connections, if the provider holds any. */
  close?(): Promise<void>;
}

/** CrewAI's way to name the service: `{ provider: "mem0", config: { user_id, api_key, org_id, ... } }`. */
export interface ExternalMemoryEmbedderConfig {
  provider: "mem0";
  config?: Record<string, unknown>;
}

/** Options of ExternalMemory: a provider, or CrewAI's `embedderConfig` naming Mem0. */
export interface ExternalMemoryOptions {
  provider?: ExternalMemoryProvider;
  embedderConfig?: ExternalMemoryEmbedderConfig;
  scoring?: MemoryScoring;
}

interface ExternalRecord {
  content: string;
  metadata: Record<string, MetadataValue>;
}

/**
 * A memory kept by an outside service (CrewAI's ExternalMemory), with the same deferred writes,
 * events and ranking as the built-in memories. Each value is sent in its own provider call.
 */
export class ExternalMemory extends QueuedMemory<ExternalRecord> {
  readonly kind = "external" as const;
  readonly provider: ExternalMemoryProvider;

  constructor(options: ExternalMemoryOptions) {
    // Batches of one: a provider saves one memory per call, and each failure is reported on its own.
    super(resolveScoring(options.scoring), 1);
    this.provider = externalProvider(options);
  }

  protected toRecords(value: unknown, metadata: Record<string, MetadataValue>): { record: ExternalRecord; text: string }[] {
    const content = memoryText(value, "external memory");
    return [{ record: { content, metadata }, text: content }];
  }

  protected async writeRecords(records: ExternalRecord[]): Promise<void> {
    for (const record of records) await this.provider.save(record.content, record.metadata);
  }

  protected async findCandidates(query: string, options: CandidateQuery): Promise<Candidate[]> {
    const found = await this.provider.search(query, { limit: options.limit, scoreThreshold: options.scoreThreshold });
    const now = Date.now();
    return found
      .filter((item) => item.score >= options.scoreThreshold && matches(item.metadata ?? {}, options.filter))
      .map((item, index) => {
        const metadata = item.metadata ?? {};
        return {
          id: item.id ?? `external-${index}`,
          content: item.content,
          metadata,
          relevance: clamp01(item.score),
          // Unknown age counts as new: the provider's own ranking then decides.
          createdAt: item.createdAt ?? now,
          importance: typeof metadata.importance === "number" ? clamp01(metadata.importance) : DEFAULT_IMPORTANCE,
        };
      });
  }

  protected async clear(): Promise<void> {
    await this.provider.reset();
  }

  protected async release(): Promise<void> {
    await this.provider.close?.();
  }
}

function matches(metadata: Record<string, MetadataValue>, filter: Record<string, MetadataValue> | undefined): boolean {
  return Object.entries(filter ?? {}).every(([key, value]) => (metadata[key] ?? null) === value);
}

const isProvider = (value: unknown): value is ExternalMemoryProvider =>
  typeof value === "object" && value !== null && ["save", "search", "reset"].every((m) => typeof (value as Record<string, unknown>)[m] === "function");

// CrewAI's snake_case Mem0 settings, and ours.
const MEM0_KEYS: Record<string, keyof Mem0ProviderOptions> = {
  user_id: "userId",
  agent_id: "agentId",
  run_id: "runId",
  org_id: "orgId",
  project_id: "projectId",
  api_key: "apiKey",
  base_url: "baseURL",
  infer: "infer",
};

function externalProvider(options: ExternalMemoryOptions): ExternalMemoryProvider {
  const { provider, embedderConfig } = options ?? {};
  if (provider !== undefined && embedderConfig !== undefined) {
    throw new MemoryOptionsError("ExternalMemory takes provider or embedderConfig, not both: pass one of them.");
  }
  if (provider !== undefined) {
    if (!isProvider(provider)) throw new MemoryOptionsError("ExternalMemory's provider must have save, search and reset, e.g. new Mem0Provider({ userId }).");
    return provider;
  }
  if (embedderConfig?.provider === "mem0") {
    // A crew keeps its memoryConfig with the key hidden from iteration (hideSecrets).
    const config = revealSecrets(embedderConfig.config ?? {});
    const mem0: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(config)) {
      const option = MEM0_KEYS[key] ?? (Object.values(MEM0_KEYS).includes(key as keyof Mem0ProviderOptions) ? key : undefined);
      if (option === undefined) {
        throw new MemoryOptionsError(`ExternalMemory embedderConfig.config.${key} is not a Mem0 setting crewts knows; use ${Object.keys(MEM0_KEYS).join(", ")}.`);
      }
      mem0[option] = value;
    }
    return new Mem0Provider(mem0);
  }
  const named = embedderConfig === undefined ? "nothing" : `provider ${JSON.stringify((embedderConfig as { provider?: unknown }).provider)}`;
  throw new MemoryOptionsError(
    `ExternalMemory needs a provider: new ExternalMemory({ provider: new Mem0Provider({ userId }) }), or as in CrewAI ` +
      `{ embedderConfig: { provider: "mem0", config: { user_id } } }; got ${named}.`,
  );
}
