import { z } from "zod";
import type { CheckpointStore } from "./types.js";

const isStore = (v: unknown): v is CheckpointStore =>
  typeof v === "object" && v !== null && ["save", "load", "list", "prune"].every((m) => typeof (v as Record<string, unknown>)[m] === "function");

/** Validates `checkpoint: true | CheckpointConfig` once, at construction. */
export const checkpointOptionSchema = z.union([
  z.boolean(),
  z
    .object({
      location: z.string().min(1).optional(),
      onEvents: z.array(z.string().min(1)).min(1, "onEvents needs at least one event name (or \"*\" for all)").optional(),
      provider: z.union([z.enum(["json", "sqlite"]), z.custom<CheckpointStore>(isStore, "must be \"json\", \"sqlite\" or a CheckpointStore (save, load, list, prune)")]).optional(),
      maxCheckpoints: z.number().int().positive().optional(),
    })
    .strict(),
]);
