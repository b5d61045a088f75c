/**
 * The run store: where runs, their event logs and the proxy's stored Responses live, in memory
 * (one process) or in Redis (any number of instances). See run-store.ts for the contract.
 */
export {
  createRunStore,
  parseRunStoreSpec,
  type RunStoreOptions,
  type RunStoreSpec,
  RunStoreSpecError,
} from './create-run-store.ts';
export { InvalidEventIdError, RunExistsError, RunLostError } from './errors.ts';
export {
  compareEventIds,
  type EventId,
  formatEventId,
  nextEventId,
  parseEventId,
} from './event-id.ts';
export {
  MemoryRunStore,
  MemoryRunStoreBacking,
  type MemoryRunStoreOptions,
} from './memory/index.ts';
export { ABORTED_OUTCOME, INSTANCE_LOST_OUTCOME, WAITED_TOO_LONG_OUTCOME } from './outcomes.ts';
export {
  DEFAULT_RUN_STORE_LIMITS,
  type LeaseNews,
  type LogEnd,
  type LogEntry,
  type LogItem,
  type NewRun,
  type PauseAnswer,
  type PauseClosing,
  type PausedClaim,
  type RunLease,
  type RunStatus,
  type RunStore,
  type RunStoreLimits,
  type RunStoreStats,
  type RunWire,
  type StoredResponses,
  type StoredRun,
} from './run-store.ts';
