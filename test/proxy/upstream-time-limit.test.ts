/**
 * Each call to the model server has one time limit, cleared when the call ends: a limit of
 * minutes left pending per request would hold every request's signals (and what listens to
 * them) that long, and the proxy's memory would grow with its request rate.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { joinedChatStream, proxyHarness } from './harness.ts';

const startProxy = proxyHarness();

/** A time limit no other timer in the process uses, so its timers can be told apart. */
const LIMIT_MS = 987_654;

afterEach(() => {
  vi.restoreAllMocks();
});

/** Counts the timers set with the limit and those of them cleared. */
function watchLimitTimers(): { set: number; pending: () => number } {
  const timers = new Set<unknown>();
  const counts = { set: 0 };
  const setTimer = globalThis.setTimeout;
  const clearTimer = globalThis.clearTimeout;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
    callback: () => void,
    ms?: number,
    ...rest: unknown[]
  ) => {
    const timer = (setTimer as (...args: unknown[]) => ReturnType<typeof setTimeout>)(
      callback,
      ms,
      ...rest,
    );
    if (ms === LIMIT_MS) {
      counts.set++;
      timers.add(timer);
    }
    return timer;
  }) as typeof setTimeout);
  vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((timer) => {
    timers.delete(timer);
    clearTimer(timer);
  }) as typeof clearTimeout);
  return {
    get set() {
      return counts.set;
    },
    pending: () => timers.size,
  };
}

const body = (stream: boolean) =>
  JSON.stringify({ model: 'm', stream, messages: [{ role: 'user', content: 'Hi' }] });

describe('the upstream time limit', () => {
  it('is cleared when a call ends: whole, streamed, or failed', async () => {
    const timers = watchLimitTimers();
    const { url } = await startProxy(
      (_, index) => (index === 2 ? { text: '', status: 500 } : { text: `reply ${index}` }),
      { limits: { upstreamTimeoutMs: LIMIT_MS } },
    );
    const post = (stream: boolean) =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(stream),
      });
    const whole = await post(false);
    expect(
      ((await whole.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message
        .content,
    ).toBe('reply 0');
    const streamed = await post(true);
    expect(joinedChatStream(await streamed.text()).content).toBe('reply 1');
    const failed = await post(false);
    expect(failed.status).toBe(500);
    expect(timers.set).toBe(3);
    await expect.poll(() => timers.pending()).toBe(0);
  });
});
