/** A wait that a signal ends: the proxy's one race of a promise against an abort. */

/**
 * `promise`, or a rejection with the signal's reason as soon as `signal` aborts (at once when it
 * already has). The promise itself is not stopped: the caller hangs up on what it brings late.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}
