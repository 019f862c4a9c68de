export type {
  AgentProgress,
  Checkpoint,
  CheckpointConfig,
  CheckpointFilter,
  CheckpointInfo,
  CheckpointKind,
  CheckpointStore,
  CheckpointTaskRecord,
  CrewProgress,
  FlowJournalEntry,
  FlowProgress,
} from "./types.js";
export { SQLiteCheckpointStore, CHECKPOINTS_DB_FILE } from "./SQLiteCheckpointStore.js";
export { JSONCheckpointStore } from "./JSONCheckpointStore.js";
export { checkpointStoreFor, listCheckpoints, listCheckpointInfos, loadCheckpoint, DEFAULT_CHECKPOINT_LOCATION } from "./checkpointStores.js";
export { checkpointNow } from "./CheckpointRecorder.js";
export { forkCheckpoint, type ForkOptions } from "./forkCheckpoint.js";
export { CheckpointError } from "./errors.js";
