export { LOG_ENTRY_OVERHEAD } from './memory-log.ts';
export { MemoryResponses } from './memory-responses.ts';
export {
  MemoryRunStore,
  MemoryRunStoreBacking,
  type MemoryRunStoreOptions,
} from './memory-run-store.ts';
