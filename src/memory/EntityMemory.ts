import type { Embedder } from "../knowledge/embedders/Embedder.js";
import type { EmbedderSpec } from "../knowledge/embedders/resolveEmbedder.js";
import type { SearchDocument, SearchStore } from "../knowledge/store/SearchStore.js";
import { SQLiteSearchStore } from "../knowledge/store/SQLiteSearchStore.js";
import { parseStoredJson } from "../storage/StorageError.js";
import { entityKey, entityText, mergeEntities, parseEntities, type Entity } from "./Entity.js";
import { memoryStore, splitMetadata, storeCandidates, storedMetadata } from "./memoryText.js";
import { QueuedMemory, type Candidate, type CandidateQuery } from "./QueuedMemory.js";
import { resolveScoring, type MemoryScoring } from "./scoring.js";
import type { MetadataValue } from "./types.js";

/** File of entity memory in the storage directory (`crewts reset-memories -e` deletes it). */
export const ENTITY_MEMORY_DB_FILE = "entity_memory.db";

/** Options of EntityMemory. */
export interface EntityMemoryOptions {
  /** Enables hybrid (keyword + vector) search; without it, keyword search (FTS5, BM25). */
  embedder?: EmbedderSpec | Embedder;
  /** Where entities live (one document per entity, its key as id); default a SQLiteSearchStore (collection "entities") on `path`. */
  store?: SearchStore;
  /** Database file; default entity_memory.db in the storage directory. */
  path?: string;
  scoring?: MemoryScoring;
}

interface EntityRecord {
  entity: Entity;
  metadata: Record<string, MetadataValue>;
}

// Metadata fields holding the entity itself, so a merge can rebuild it from the store.
const FIELDS = { key: "entityKey", name: "entityName", type: "entityType", description: "entityDescription", relationships: "entityRelationships" } as const;

/**
 * People, places, organisations and concepts met across runs. Entities are merged by name
 * (case-insensitive): the same name updates type and description and adds relationships.
 */
export class EntityMemory extends QueuedMemory<EntityRecord> {
  readonly kind = "entity" as const;
  private readonly store: SearchStore;

  constructor(options: EntityMemoryOptions = {}) {
    super(resolveScoring(options.scoring));
    this.store = memoryStore(options, ENTITY_MEMORY_DB_FILE, "entities");
  }

  /** Saves an Entity or a list of them ({ name, type?, description?, relationships? }). */
  protected toRecords(value: unknown, metadata: Record<string, MetadataValue>): { record: EntityRecord; text: string }[] {
    return parseEntities(value).map((entity) => ({ record: { entity, metadata }, text: entityText(entity) }));
  }

  protected async writeRecords(records: EntityRecord[]): Promise<void> {
    // Merge within the batch first, then with what the store holds.
    const byKey = new Map<string, EntityRecord>();
    for (const record of records) {
      const key = entityKey(record.entity.name);
      const earlier = byKey.get(key);
      byKey.set(key, earlier ? { entity: mergeEntities(earlier.entity, record.entity), metadata: { ...earlier.metadata, ...record.metadata } } : record);
    }
    const documents: SearchDocument[] = [];
    for (const [key, record] of byKey) {
      const stored = await this.find(key, record.entity.name);
      const entity = stored ? mergeEntities(stored.entity, record.entity) : record.entity;
      const createdAt = stored?.createdAt ?? (typeof record.metadata.createdAt === "number" ? record.metadata.createdAt : Date.now());
      const metadata = storedMetadata({ ...stored?.metadata, ...record.metadata, createdAt });
      documents.push({
        id: key,
        content: entityText(entity),
        metadata: {
          ...metadata,
          [FIELDS.key]: key,
          [FIELDS.name]: entity.name,
          [FIELDS.type]: entity.type,
          [FIELDS.description]: entity.description,
          [FIELDS.relationships]: JSON.stringify(entity.relationships),
        },
      });
    }
    await this.store.upsert(documents);
  }

  protected async findCandidates(query: string, options: CandidateQuery): Promise<Candidate[]> {
    return storeCandidates(this.store, query, options);
  }

  protected async clear(): Promise<void> {
    await this.store.reset();
  }

  protected async release(): Promise<void> {
    await this.store.close();
  }

  private relationshipsOf(json: string, key: string): string[] {
    const file = this.store instanceof SQLiteSearchStore ? this.store.file : "the entity memory store";
    const parsed = parseStoredJson(json, file, `The relationships of entity "${key}"`, "Delete that entity, or reset entity memory (crewts reset-memories -e).");
    return Array.isArray(parsed) ? parsed.filter((r): r is string => typeof r === "string") : [];
  }

  /** The stored entity of `key` (its document id); a store without get() is searched by name, filtered to the key. */
  private async find(key: string, name: string): Promise<{ entity: Entity; metadata: Record<string, MetadataValue>; createdAt: number } | undefined> {
    const [found] =
      typeof this.store.get === "function" ? await this.store.get([key]) : await this.store.search(name, { mode: "keyword", limit: 1, filter: { [FIELDS.key]: key } });
    if (!found) return undefined;
    const { metadata, createdAt } = splitMetadata(found.metadata);
    const text = (field: string) => (typeof metadata[field] === "string" ? metadata[field] : "");
    const entity: Entity = {
      name: text(FIELDS.name),
      type: text(FIELDS.type),
      description: text(FIELDS.description),
      relationships: this.relationshipsOf(text(FIELDS.relationships) || "[]", key),
    };
    const own = Object.fromEntries(Object.entries(metadata).filter(([field]) => !(Object.values(FIELDS) as string[]).includes(field)));
    return { entity, metadata: own, createdAt };
  }
}
