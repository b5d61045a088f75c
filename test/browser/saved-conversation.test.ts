import { describe, expect, it } from 'vitest';
import { BlockDocument, type BlockEvent } from '../../src/stream/index.ts';
import {
  loadConversation,
  STORAGE_KEY,
  saveConversation,
} from '../../web/src/saved-conversation.ts';
import { transcriptEvents, transcriptText } from '../../web/src/transcript-text.ts';

/** A Storage in memory; `full` makes every write fail as a full quota does. */
function memoryStorage(full = false): Storage & { readonly items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => {
      if (full) throw new DOMException('quota', 'QuotaExceededError');
      items.set(key, value);
    },
  };
}

const RUN: BlockEvent[] = [
  { type: 'meta-init', data: { format: 'xml', user_query: 'q', agent_uuid: 'a', model: 'm' } },
  { type: 'thinking-start' },
  ...'Let me look ]]> <here> & there'
    .split('')
    .map((delta): BlockEvent => ({ type: 'thinking-delta', delta })),
  { type: 'thinking-end' },
  { type: 'tool-call-start', kind: 'client', id: 'c1', name: 'search' },
  { type: 'tool-call-delta', id: 'c1', delta: '{"query":' },
  { type: 'tool-call-delta', id: 'c1', delta: '"login"}' },
  { type: 'tool-call-end', id: 'c1' },
  {
    type: 'tool-result',
    kind: 'client',
    id: 'c1',
    name: 'search',
    content: 'found',
    isError: true,
  },
  { type: 'text-start' },
  { type: 'text-delta', delta: 'See ' },
  { type: 'text-embed', name: 'table', attributes: { title: 'T' }, content: '[1]' },
  { type: 'text-delta', delta: ' and more.' },
  { type: 'text-end' },
  { type: 'awaiting-frontend-tools', tools: [{ tool_use_id: 't1', name: 'ask_user', input: {} }] },
  { type: 'error', error: { type: 'request_error', message: 'refused' } },
  {
    type: 'meta-final',
    data: {
      conversation_history: [{ type: 'user', content: 'q' }],
      stop_reason: 'completed',
      total_steps: 1,
      generated_files: null,
      cost: null,
      cumulative_usage: null,
    },
  },
];

describe('transcript-text', () => {
  it('writes each block once and reads back the same blocks, without the history', () => {
    const shown = new BlockDocument();
    shown.applyAll(RUN);
    const text = transcriptText(shown.blocks);
    const restored = new BlockDocument();
    restored.applyAll(transcriptEvents(text));
    const expected = structuredClone(shown.blocks).map((block) =>
      block.kind === 'meta-final'
        ? { ...block, data: { ...block.data, conversation_history: null } }
        : block.kind === 'tool-call'
          ? { ...block, streamed: false }
          : block,
    );
    expect(restored.blocks).toEqual(expected);
    // One piece of thinking, not one per delta.
    expect(text.split('<![CDATA[').length).toBeLessThan(12);
    expect(text).not.toContain('"user"');
  });

  it('reads any stored text without throwing: what is not a block shows as text', () => {
    for (const text of ['', '<content-block-text>', 'plain', '<meta_final data="{"></meta_final>'])
      expect(() => transcriptEvents(text)).not.toThrow();
    // A text cut short keeps what it has, and says what was wrong.
    const events = transcriptEvents('<content-block-thinking><![CDATA[cut');
    expect(events.some((event) => event.type === 'decode-error')).toBe(true);
    expect(events).toContainEqual({ type: 'thinking-delta', delta: 'cut' });
  });
});

describe('saved-conversation', () => {
  const conversation = {
    history: [{ type: 'user', content: 'q' }],
    turns: [{ question: 'q', transcript: '', ended: true }],
  };

  it('keeps a conversation under a version and reads it back', () => {
    const storage = memoryStorage();
    expect(saveConversation(storage, conversation)).toBe(true);
    expect(JSON.parse(storage.items.get(STORAGE_KEY)!).version).toBe(1);
    expect(loadConversation(storage)).toEqual({ conversation });
  });

  it('discards, with a reason, what is not a saved conversation of this version', () => {
    const bad: [string, RegExp][] = [
      ['{', /not JSON/],
      ['[]', /not an object/],
      ['{"version":2,"history":[],"turns":[]}', /version 2, not 1/],
      ['{"version":1,"history":{},"turns":[]}', /history is not a list/],
      ['{"version":1,"history":[3],"turns":[]}', /not a conversation entry/],
      [
        '{"version":1,"history":[],"turns":[{"question":"q","transcript":1,"ended":true}]}',
        /turn 1/,
      ],
      [
        '{"version":1,"history":[],"turns":[{"question":"q","transcript":"","ended":true,"recording":5}]}',
        /turn 1/,
      ],
    ];
    for (const [text, reason] of bad) {
      const storage = memoryStorage();
      storage.setItem(STORAGE_KEY, text);
      const loaded = loadConversation(storage);
      expect(loaded.conversation, text).toEqual({ history: [], turns: [] });
      expect(loaded.problem, text).toMatch(reason);
      expect(storage.length, text).toBe(0);
    }
  });

  it('says when the browser would not keep it (storage full, or none)', () => {
    expect(saveConversation(memoryStorage(true), conversation)).toBe(false);
    expect(saveConversation(undefined, conversation)).toBe(false);
    expect(loadConversation(undefined)).toEqual({ conversation: { history: [], turns: [] } });
  });
});
