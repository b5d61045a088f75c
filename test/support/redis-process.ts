/**
 * What starting a throwaway `redis-server` takes, with nothing of vitest: the tests'
 * redis-server.ts and the store bench (plain Node) both start theirs from here.
 */
import { createServer } from 'node:net';

export const REDIS_SERVER_PATH = '/usr/bin/redis-server';

/** A port free on loopback now (another process may take it before it is used: retry then). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A redis-server on loopback `port` that writes nothing to disk, in the foreground. */
export function redisServerArgs(port: number, extra: readonly string[] = []): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
    ...extra,
  ];
}
