export {
  MemoryRunStore,
  MemoryRunStoreBacking,
  type MemoryRunStoreOptions,
} from './memory-run-store.ts';
