export { Knowledge, knowledgeContext, DEFAULT_KNOWLEDGE_CONFIG, KNOWLEDGE_DIRS, type KnowledgeConfig, type KnowledgeOptions, type KnowledgeResult } from "./Knowledge.js";
export * from "./embedders/index.js";
export {
  reciprocalRankFusion,
  RRF_K,
  SearchStoreError,
  SQLiteSearchStore,
  InMemorySearchStore,
  SEARCH_STORE_DB_FILE,
  type MetadataValue,
  type SearchDocument,
  type SearchOptions,
  type SearchResult,
  type SearchStore,
  type StoredDocument,
  type UpsertReport,
  type SQLiteSearchStoreOptions,
  type InMemorySearchStoreOptions,
} from "./store/index.js";
export {
  BaseKnowledgeSource,
  BaseFileKnowledgeSource,
  KNOWLEDGE_DIRECTORY,
  StringKnowledgeSource,
  TextFileKnowledgeSource,
  PDFKnowledgeSource,
  CSVKnowledgeSource,
  JSONKnowledgeSource,
  ExcelKnowledgeSource,
  KnowledgeSourceError,
  type BaseKnowledgeSourceOptions,
  type FileKnowledgeSourceOptions,
  type StringKnowledgeSourceOptions,
  type KnowledgeChunk,
  type KnowledgeChunkMetadata,
  type KnowledgeDocument,
} from "./sources/index.js";
export { chunkText, ChunkingOptionsError, DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, type ChunkTextOptions, type TextChunk, type TextChunkMetadata } from "./chunking/TextChunker.js";
