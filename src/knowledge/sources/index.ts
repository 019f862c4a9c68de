export { contentHash } from "../store/SearchStore.js";
export {
  BaseKnowledgeSource,
  type BaseKnowledgeSourceOptions,
  type KnowledgeChunk,
  type KnowledgeChunkMetadata,
  type KnowledgeDocument,
} from "./BaseKnowledgeSource.js";
export {
  BaseFileKnowledgeSource,
  KNOWLEDGE_DIRECTORY,
  resolveKnowledgePath,
  type FileKnowledgeSourceOptions,
} from "./BaseFileKnowledgeSource.js";
export { StringKnowledgeSource, type StringKnowledgeSourceOptions } from "./StringKnowledgeSource.js";
export { TextFileKnowledgeSource } from "./TextFileKnowledgeSource.js";
export { PDFKnowledgeSource } from "./PDFKnowledgeSource.js";
export { CSVKnowledgeSource } from "./CSVKnowledgeSource.js";
export { JSONKnowledgeSource, jsonToText } from "./JSONKnowledgeSource.js";
export { ExcelKnowledgeSource } from "./ExcelKnowledgeSource.js";
export { KnowledgeSourceError } from "./errors.js";
