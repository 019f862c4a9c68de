import { KnowledgeSourceError } from "./errors.js";

/**
 * Loads a file parser that crewts lists as an optional peer dependency (unpdf, csv-parse,
 * read-excel-file): most crews never read such files, so the parsers stay out of every install until
 * a project needs one. A missing parser is a clear error saying what to install.
 */
export async function loadOptionalParser<T>(load: () => Promise<T>, install: string, files: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new KnowledgeSourceError(`Reading ${files} needs the optional package ${install.replace(/@[~^]?[\d.]+$/, "")}: run \`npm install ${install}\` in your project.`, {
        cause: error,
      });
    }
    throw error;
  }
}
