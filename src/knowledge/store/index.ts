export { reciprocalRankFusion, RRF_K, SearchStoreError, type MetadataValue, type SearchDocument, type SearchOptions, type SearchResult, type SearchStore, type UpsertReport } from "./SearchStore.js";
export { contentHash, SEARCH_STORE_DB_FILE, SQLiteSearchStore, type SQLiteSearchStoreOptions } from "./SQLiteSearchStore.js";
