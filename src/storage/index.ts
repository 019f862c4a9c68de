export { storageDir, storagePath } from "./storageDir.js";
export {
  InMemoryTaskOutputStore,
  TaskOutputStoreError,
  type NewStoredTaskOutput,
  type StoredTaskOutput,
  type StoredTaskOutputPatch,
  type TaskOutputStore,
} from "./TaskOutputStore.js";
export { SQLiteTaskOutputStore, TASK_OUTPUTS_DB_FILE } from "./SQLiteTaskOutputStore.js";
export { IN_MEMORY_DB, SQLiteDatabase, type SQLiteStatement } from "./SQLiteDatabase.js";
export { parseStoredJson, StorageError, type StorageErrorCode } from "./StorageError.js";
