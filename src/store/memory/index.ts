export { formatBytes, RUN_OVERHEAD, utf8Length } from './bytes.ts';
export { InvalidEventIdError, RunExistsError, RunLostError } from './errors.ts';
export { LOG_ENTRY_OVERHEAD } from './memory-log.ts';
export { MemoryResponses } from './memory-responses.ts';
export {
  MemoryRunStore,
  MemoryRunStoreBacking,
  type MemoryRunStoreOptions,
} from './memory-run-store.ts';
export {
  ABORTED_OUTCOME,
  INSTANCE_LOST_OUTCOME,
  tooLargeToPauseOutcome,
  WAITED_TOO_LONG_OUTCOME,
} from './outcomes.ts';
