export { contentHash, ftsQuery, reciprocalRankFusion, RRF_K, SearchStoreError, type MetadataValue, type SearchDocument, type SearchOptions, type SearchResult, type SearchStore, type StoredDocument, type UpsertReport } from "./SearchStore.js";
export { SEARCH_STORE_DB_FILE, SQLiteSearchStore, type SQLiteSearchStoreOptions } from "./SQLiteSearchStore.js";
export { InMemorySearchStore, type InMemorySearchStoreOptions } from "./InMemorySearchStore.js";
