import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createServerApp,
  DEFAULT_REPLAY_DELAY_MS,
  parseRecording,
} from '../../src/server/index.ts';
import { replayStream } from '../../src/server/replay.ts';

const MESSAGES = Array.from({ length: 40 }, (_, index) => `: message ${index}\n\n`);
const RECORDING = parseRecording(MESSAGES.join(''), 'demo.sse');

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

describe('replayStream', () => {
  it('with a delay of 0 sends every message without setting a single timer', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const outcomes: string[] = [];
    const body = replayStream(RECORDING, 0, new AbortController().signal, (outcome) =>
      outcomes.push(outcome),
    );
    expect(await readAll(body)).toBe(MESSAGES.join(''));
    expect(timers).not.toHaveBeenCalled();
    expect(outcomes).toEqual(['completed']);
  });

  it('waits the delay between messages, and not before the first', async () => {
    vi.useFakeTimers();
    const reader = replayStream(RECORDING, 100, new AbortController().signal, () => {}).getReader();
    const utf8 = new TextDecoder();
    expect(utf8.decode((await reader.read()).value)).toBe(MESSAGES[0]);
    let second: string | undefined;
    const pending = reader.read().then((chunk) => {
      second = utf8.decode(chunk.value);
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(second).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(second).toBe(MESSAGES[1]);
    await reader.cancel();
  });
});

describe('replay delay in the server', () => {
  const post = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'go' }),
  };

  it('honours the delay given, end to end', async () => {
    const short = parseRecording(MESSAGES.slice(0, 4).join(''), 'short.sse');
    const { app } = createServerApp({ replay: { recording: short, delayMs: 60 } });
    const started = performance.now();
    const response = await app.request('/api/runs', post);
    expect(await response.text()).toBe(MESSAGES.slice(0, 4).join(''));
    // Three pauses between four messages.
    expect(performance.now() - started).toBeGreaterThanOrEqual(175);
  });

  it('says its delay in /api/info: the default, or 0', async () => {
    const standard = createServerApp({ replay: { recording: RECORDING } });
    const info = await (await standard.app.request('/api/info')).json();
    expect(info).toMatchObject({ mode: 'replay', replayDelayMs: DEFAULT_REPLAY_DELAY_MS });
    const fast = createServerApp({ replay: { recording: RECORDING, delayMs: 0 } });
    expect(await (await fast.app.request('/api/info')).json()).toMatchObject({ replayDelayMs: 0 });
  });

  it('refuses a delay that is not a whole number of milliseconds', () => {
    for (const delayMs of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31])
      expect(
        () => createServerApp({ replay: { recording: RECORDING, delayMs } }),
        String(delayMs),
      ).toThrow(/replay\.delayMs must be a whole number of milliseconds from 0 to 2147483647/);
  });
});
