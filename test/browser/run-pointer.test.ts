import { describe, expect, it } from 'vitest';
import type { DecodedEvent } from '../../src/stream/index.ts';
import {
  forgetRunPointer,
  loadRunPointer,
  RUN_POINTER_KEY,
  saveRunPointer,
} from '../../web/src/run-pointer.ts';
import { endsStream, RunStreamReader } from '../../web/src/stream-reader.ts';

/** A Storage in memory; `refuse` makes every call throw, as a sandboxed page's storage does. */
function memoryStorage(refuse = false): Storage & { readonly items: Map<string, string> } {
  const items = new Map<string, string>();
  const guard = <T>(value: () => T): T => {
    if (refuse) throw new DOMException('refused', 'SecurityError');
    return value();
  };
  return {
    items,
    get length() {
      return items.size;
    },
    clear: () => guard(() => items.clear()),
    getItem: (key) => guard(() => items.get(key) ?? null),
    key: (index) => guard(() => [...items.keys()][index] ?? null),
    removeItem: (key) => guard(() => void items.delete(key)),
    setItem: (key, value) => guard(() => void items.set(key, value)),
  };
}

describe('page: the run a reload reads again (run-pointer)', () => {
  it('keeps, reads back and forgets {runId, turn}', () => {
    const storage = memoryStorage();
    expect(loadRunPointer(storage)).toBeUndefined();
    saveRunPointer(storage, { runId: 'r1', turn: 2 });
    expect(loadRunPointer(storage)).toEqual({ runId: 'r1', turn: 2 });
    saveRunPointer(storage, { runId: 'r2', turn: 0 });
    expect(loadRunPointer(storage)).toEqual({ runId: 'r2', turn: 0 });
    forgetRunPointer(storage);
    expect(storage.items.has(RUN_POINTER_KEY)).toBe(false);
  });

  it('removes what is kept under its key and is not a pointer', () => {
    for (const text of [
      'not json',
      'null',
      '[]',
      '{"runId":"","turn":0}',
      '{"runId":"r","turn":-1}',
      '{"runId":"r","turn":1.5}',
      '{"runId":7,"turn":0}',
      '{"turn":0}',
    ]) {
      const storage = memoryStorage();
      storage.items.set(RUN_POINTER_KEY, text);
      expect(loadRunPointer(storage), text).toBeUndefined();
      expect(storage.items.has(RUN_POINTER_KEY), text).toBe(false);
    }
  });

  it('a storage that refuses, or none, keeps nothing and throws nothing', () => {
    const refusing = memoryStorage(true);
    saveRunPointer(refusing, { runId: 'r', turn: 0 });
    expect(loadRunPointer(refusing)).toBeUndefined();
    forgetRunPointer(refusing);
    saveRunPointer(undefined, { runId: 'r', turn: 0 });
    expect(loadRunPointer(undefined)).toBeUndefined();
  });
});

describe('page: when a stream is over (endsStream)', () => {
  it('meta_final, awaiting_frontend_tools and a run error end it; a malformed call does not', () => {
    const ends = (event: DecodedEvent) => endsStream(event);
    expect(
      ends({
        type: 'meta-final',
        data: {
          conversation_history: [],
          stop_reason: 'end_turn',
          total_steps: 1,
          generated_files: null,
          cost: null,
          cumulative_usage: null,
        },
      }),
    ).toBe(true);
    expect(ends({ type: 'awaiting-frontend-tools', tools: [] })).toBe(true);
    expect(ends({ type: 'error', error: { type: 'aborted', message: 'stopped' } })).toBe(true);
    expect(ends({ type: 'error', error: 'a bare message' })).toBe(true);
    expect(
      ends({ type: 'error', error: { type: 'malformed_call', message: 'not closed', raw: '<a' } }),
    ).toBe(false);
    expect(ends({ type: 'text-delta', delta: 'x' })).toBe(false);
  });
});

/** A response whose body gives `chunks`, then breaks when `breaks` (as a dropped connection). */
function response(chunks: readonly string[], breaks = false): Response {
  const bytes = chunks.map((chunk) => new TextEncoder().encode(chunk));
  let index = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (index < bytes.length) controller.enqueue(bytes[index++]!);
        else if (breaks) controller.error(new TypeError('network error'));
        else controller.close();
      },
    }),
  );
}

describe('page: one reader across a run’s responses (RunStreamReader)', () => {
  it('a broken body, then the rest after lastEventId: the events of one unbroken read', async () => {
    const reader = new RunStreamReader();
    const events: DecodedEvent[] = [];
    const onEvents = (more: DecodedEvent[]) => events.push(...more);
    const first = await reader.read(
      response(['id: 1-0\ndata: <content-block-text>\n\nid: 1-1\ndata: a\n\nid: 1-2\nda'], true),
      onEvents,
    );
    expect(first).toEqual({ broken: true, reason: 'network error' });
    expect(reader.lastEventId).toBe('1-1');
    reader.dropPartialMessage();
    const second = await reader.read(
      response(['id: 1-2\ndata: b\n\nid: 1-3\ndata: </content-block-text>\n\n']),
      onEvents,
    );
    expect(second).toEqual({ broken: false });
    reader.end(onEvents);
    expect(events).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'a' },
      { type: 'text-delta', delta: 'b' },
      { type: 'text-end' },
    ]);
    expect(reader.lastEventId).toBe('1-3');
  });
});
