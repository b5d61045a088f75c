// The HTTP layer's face, shared by serve and proxy (see host-settings.ts).
import { type RunningServer, type ServableApp, startServer } from '../http/index.ts';

interface Output {
  write(text: string): void;
}

/**
 * Starts serving `app`, or says on `err` why it cannot (a port in use names `--port`) and
 * resolves with undefined.
 */
export async function listenOrSay(
  app: ServableApp,
  address: { port: number; host: string },
  err: Output,
): Promise<RunningServer | undefined> {
  try {
    return await startServer(app, address);
  } catch (error) {
    const { port, host } = address;
    const code = (error as { code?: string }).code;
    err.write(
      code === 'EADDRINUSE'
        ? `toolwire: port ${port} on ${host} is in use; pick another with --port\n`
        : `toolwire: cannot listen on ${host}:${port}: ${(error as Error).message}\n`,
    );
    return undefined;
  }
}

/** Resolves at the first SIGINT or SIGTERM: a server command runs until it is stopped. */
export function untilStopped(): Promise<void> {
  return new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Waits for `closing` at most `ms` (a store that does not answer must not keep the process up). */
export async function closeWithin(closing: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((done) => {
    timer = setTimeout(done, ms);
  });
  try {
    await Promise.race([
      closing.then(
        () => {},
        () => {},
      ),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
