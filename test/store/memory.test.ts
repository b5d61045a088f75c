import { MemoryRunStoreBacking } from '../../src/store/index.ts';
import { runStoreContract } from './contract.ts';

runStoreContract('memory', async (limits) => {
  const backing = new MemoryRunStoreBacking({ limits });
  return { open: async (instanceId) => backing.open(instanceId), dispose: async () => {} };
});
