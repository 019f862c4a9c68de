import { z } from "zod";
import {
  BaseKnowledgeSource,
  baseKnowledgeSourceOptionsSchema,
  parseSourceOptions,
  type BaseKnowledgeSourceOptions,
  type KnowledgeDocument,
} from "./BaseKnowledgeSource.js";

/** Options of StringKnowledgeSource. */
export interface StringKnowledgeSourceOptions extends BaseKnowledgeSourceOptions {
  content: string;
  /** Name recorded as the chunks' `metadata.source` (default "string"). */
  source?: string;
}

const schema = baseKnowledgeSourceOptionsSchema.extend({
  content: z.string({ error: "content must be a string" }),
  source: z.string().min(1).default("string"),
});

/** Knowledge given directly as text. */
export class StringKnowledgeSource extends BaseKnowledgeSource {
  readonly content: string;
  readonly source: string;

  constructor(options: StringKnowledgeSourceOptions) {
    const parsed = parseSourceOptions("StringKnowledgeSource", schema, options);
    super(parsed);
    this.content = parsed.content;
    this.source = parsed.source;
  }

  protected override async loadDocuments(): Promise<KnowledgeDocument[]> {
    return [{ source: this.source, text: this.content }];
  }
}
