import { z } from "zod";
import { MemoryValueError } from "./errors.js";

/** A person, place, organisation or concept a crew came across (CrewAI's EntityMemoryItem). */
export interface Entity {
  name: string;
  /** E.g. "person", "organization", "concept". */
  type: string;
  description: string;
  /** Free-text relations, e.g. "works at Acme". */
  relationships: string[];
}

/** The schema of an entity; type and relationships may be left out. */
export const entitySchema = z.object({
  name: z.string().trim().min(1, "must be a non-empty string"),
  type: z.string().trim().default("entity"),
  description: z.string().trim().default(""),
  relationships: z.array(z.string().trim()).default([]),
});

/** Validates an entity or a list of them; a bad one is a MemoryValueError. */
export function parseEntities(value: unknown): Entity[] {
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  return list.map((item, index) => {
    const parsed = entitySchema.safeParse(item);
    if (parsed.success) return { ...parsed.data, relationships: parsed.data.relationships.filter((r) => r !== "") };
    const where = Array.isArray(value) ? ` at index ${index}` : "";
    const problems = parsed.error.issues.map((i) => `${i.path.length > 0 ? i.path.join(".") : "(value)"}: ${i.message}`).join("; ");
    throw new MemoryValueError(`Entity memory saves entities { name, type, description, relationships }; the value${where} is invalid: ${problems}.`);
  });
}

/** The key entities are merged by: the name, trimmed, case-insensitive, inner spaces collapsed. */
export function entityKey(name: string): string {
  return name.trim().replace(/\s+/g, " ").toLowerCase();
}

/**
 * `newer` merged into `older` (same name): the newer name spelling and type (unless empty), the longer
 * description (the newer when equally long), the union of relationships (case-insensitive, first spelling kept).
 */
export function mergeEntities(older: Entity, newer: Entity): Entity {
  const relationships = [...older.relationships];
  const known = new Set(relationships.map((r) => r.toLowerCase()));
  for (const r of newer.relationships) {
    if (!known.has(r.toLowerCase())) {
      known.add(r.toLowerCase());
      relationships.push(r);
    }
  }
  return {
    name: newer.name,
    type: newer.type !== "" && newer.type !== "entity" ? newer.type : older.type,
    description: newer.description.length >= older.description.length ? newer.description : older.description,
    relationships,
  };
}

/** The searchable text of an entity: "Name (type): description. Relationships: a; b". */
export function entityText(entity: Entity): string {
  let text = `${entity.name} (${entity.type})`;
  if (entity.description !== "") text += `: ${entity.description.replace(/\.\s*$/, "")}.`;
  if (entity.relationships.length > 0) text += ` Relationships: ${entity.relationships.join("; ")}`;
  return text;
}
