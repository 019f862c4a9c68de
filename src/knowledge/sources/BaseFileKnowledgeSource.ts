import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import {
  BaseKnowledgeSource,
  baseKnowledgeSourceOptionsSchema,
  parseSourceOptions,
  type BaseKnowledgeSourceOptions,
  type KnowledgeDocument,
} from "./BaseKnowledgeSource.js";
import { KnowledgeSourceError } from "./errors.js";

/** CrewAI's knowledge directory: relative file paths resolve under it. */
export const KNOWLEDGE_DIRECTORY = "knowledge";

/** Options of every file-based knowledge source. */
export interface FileKnowledgeSourceOptions extends BaseKnowledgeSourceOptions {
  /** Files to read; relative paths resolve under `knowledgeDirectory`, absolute paths are used as given. */
  filePaths: string | string[];
  /** Directory for relative paths (default `./knowledge`, resolved against the working directory). */
  knowledgeDirectory?: string;
}

const fileSchema = baseKnowledgeSourceOptionsSchema.extend({
  filePaths: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
    error: "filePaths must be a file path or a non-empty list of file paths",
  }),
  knowledgeDirectory: z.string().min(1).default(KNOWLEDGE_DIRECTORY),
});

/** Resolves a knowledge file path: absolute as given, relative under the knowledge directory. */
export function resolveKnowledgePath(filePath: string, knowledgeDirectory: string = KNOWLEDGE_DIRECTORY): string {
  return path.isAbsolute(filePath) ? path.normalize(filePath) : path.resolve(knowledgeDirectory, filePath);
}

/** A source that reads files and turns each into one text document. */
export abstract class BaseFileKnowledgeSource extends BaseKnowledgeSource {
  /** The resolved absolute paths, in the order given. */
  readonly filePaths: readonly string[];
  readonly knowledgeDirectory: string;
  /** What the files are, for error messages ("text", "PDF", ...). */
  protected abstract readonly fileKind: string;

  constructor(options: FileKnowledgeSourceOptions) {
    const parsed = parseSourceOptions(new.target.name, fileSchema, options);
    super(parsed);
    this.knowledgeDirectory = path.resolve(parsed.knowledgeDirectory);
    const given = typeof parsed.filePaths === "string" ? [parsed.filePaths] : parsed.filePaths;
    this.filePaths = given.map((p) => resolveKnowledgePath(p, this.knowledgeDirectory));
  }

  /** Converts one file's bytes to text; throw on a malformed file (the caller adds the path). */
  protected abstract parseFile(data: Buffer, filePath: string): Promise<string>;

  protected override async loadDocuments(): Promise<KnowledgeDocument[]> {
    return Promise.all(this.filePaths.map(async (filePath) => ({ source: filePath, text: await this.readOne(filePath) })));
  }

  private async readOne(filePath: string): Promise<string> {
    let data: Buffer;
    try {
      const info = await stat(filePath);
      if (!info.isFile()) {
        throw new KnowledgeSourceError(`Knowledge path is not a file: ${filePath}. Pass a file, not a directory.`, { filePath });
      }
      data = await readFile(filePath);
    } catch (error) {
      if (error instanceof KnowledgeSourceError) throw error;
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new KnowledgeSourceError(
          `File not found: ${filePath}. Put the file in the knowledge directory (${this.knowledgeDirectory}) and pass its relative path, or pass an absolute path.`,
          { filePath, cause: error },
        );
      }
      throw new KnowledgeSourceError(`Could not read ${this.fileKind} file ${filePath}: ${errorText(error)}`, { filePath, cause: error });
    }
    try {
      return await this.parseFile(data, filePath);
    } catch (error) {
      // A missing optional parser is already a clear error about the installation, not about the file.
      if (error instanceof KnowledgeSourceError) throw error;
      throw new KnowledgeSourceError(
        `Could not parse ${this.fileKind} file ${filePath}: ${errorText(error)}. Check that the file is a valid ${this.fileKind} file.`,
        { filePath, cause: error },
      );
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
