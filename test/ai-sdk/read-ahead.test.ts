import { describe, expect, it } from 'vitest';
import { ReadAhead } from '../../src/ai-sdk/output/read-ahead.ts';

/** A stream whose parts the test delivers by hand. */
function manualStream<T>() {
  let controller!: ReadableStreamDefaultController<T>;
  const stream = new ReadableStream<T>({
    start(c) {
      controller = c;
    },
  });
  return { stream, controller };
}

describe('ReadAhead', () => {
  it('gives every part in order, then done, whether taken as arrived or awaited', async () => {
    const parts = Array.from({ length: 50 }, (_, index) => index);
    const stream = new ReadableStream<number>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    });
    const reader = new ReadAhead(stream.getReader());
    const seen: number[] = [];
    for (let turn = 0; ; turn++) {
      const result = turn % 3 === 0 ? await reader.next() : await reader.arrived();
      expect(result).toBeDefined();
      if (result!.done) break;
      seen.push(result!.value);
    }
    expect(seen).toEqual(parts);
  });

  it('says nothing has arrived rather than waiting, and the part comes later in order', async () => {
    const { stream, controller } = manualStream<string>();
    const reader = new ReadAhead(stream.getReader());
    expect(await reader.arrived()).toBeUndefined();
    controller.enqueue('a');
    controller.enqueue('b');
    expect(await reader.next()).toEqual({ done: false, value: 'a' });
    // 'b' filled a read asked for ahead: it is there without waiting for the stream.
    expect(await reader.arrived()).toEqual({ done: false, value: 'b' });
    const waiting = reader.next();
    controller.enqueue('c');
    expect(await waiting).toEqual({ done: false, value: 'c' });
  });

  it('passes a failure of the stream on from next, after the parts delivered before it', async () => {
    const { stream, controller } = manualStream<string>();
    const reader = new ReadAhead(stream.getReader());
    controller.enqueue('a');
    expect(await reader.arrived()).toEqual({ done: false, value: 'a' });
    controller.error(new Error('connection reset'));
    expect(await reader.arrived()).toBeUndefined();
    await expect(reader.next()).rejects.toThrow('connection reset');
  });
});
