import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BlockDocument,
  type BlockEvent,
  blockEventsToSse,
  createBlockDecoderStream,
  createBlockEncoderStream,
  type DecodedEvent,
  encodeBlocks,
  iterableToStream,
} from '../../src/stream/index.ts';
import { decodeChunks } from './helpers.ts';

describe('BlockDocument: the stream as blocks a page renders', () => {
  it('grows streamed blocks in place and says which block changed', () => {
    const document = new BlockDocument();
    const changes = (
      [
        {
          type: 'meta-init',
          data: { format: 'xml', user_query: 'q', agent_uuid: 'u', model: 'm' },
        },
        { type: 'thinking-start' },
        { type: 'thinking-delta', delta: 'a' },
        { type: 'thinking-delta', delta: 'b' },
        { type: 'thinking-end' },
        { type: 'text-start' },
        { type: 'text-delta', delta: 'See ' },
        { type: 'text-embed', name: 'chart', attributes: {}, content: '{}' },
        { type: 'text-delta', delta: 'and ' },
        { type: 'text-delta', delta: 'more' },
        { type: 'text-end' },
      ] satisfies DecodedEvent[]
    ).map((event) => document.apply(event));
    expect(changes).toEqual([0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2]);
    expect(document.version).toBe(11);
    expect(document.blocks).toEqual([
      { kind: 'meta-init', data: { format: 'xml', user_query: 'q', agent_uuid: 'u', model: 'm' } },
      { kind: 'thinking', text: 'ab', open: false },
      {
        kind: 'text',
        segments: ['See ', { name: 'chart', attributes: {}, content: '{}' }, 'and more'],
        open: false,
      },
    ]);
  });

  it('fills a call’s arguments as they stream; a whole call with its id gives the final ones', () => {
    const document = new BlockDocument();
    document.applyAll([
      { type: 'tool-call-start', kind: 'client', id: 'a', name: 'f' },
      { type: 'tool-call-delta', id: 'a', delta: '{"x":' },
    ]);
    expect(document.call('a')).toMatchObject({ arguments: '{"x":', open: true, streamed: true });
    const index = document.applyAll([
      { type: 'tool-call-end', id: 'a' },
      { type: 'tool-call', kind: 'client', id: 'a', name: 'f', arguments: '{"x":1}' },
      { type: 'tool-call', kind: 'server', id: 'b', name: 'g', arguments: '{}' },
    ]);
    expect(index).toBe(0);
    expect(document.blocks).toEqual([
      {
        kind: 'tool-call',
        toolKind: 'client',
        id: 'a',
        name: 'f',
        arguments: '{"x":1}',
        open: false,
        streamed: true,
      },
      {
        kind: 'tool-call',
        toolKind: 'server',
        id: 'b',
        name: 'g',
        arguments: '{}',
        open: false,
        streamed: false,
      },
    ]);
    // A second whole call with an id already used is a call of its own.
    document.apply({ type: 'tool-call', kind: 'server', id: 'b', name: 'g', arguments: '{"y":2}' });
    expect(document.blocks).toHaveLength(3);
  });

  it('keeps results, citations and the rest as blocks; stray text pieces join; deltas with no block change nothing', () => {
    const document = new BlockDocument();
    expect(document.apply({ type: 'text-delta', delta: 'orphan' })).toBe(-1);
    document.applyAll([
      { type: 'stray-text', text: '<x>' },
      { type: 'stray-text', text: '</x>' },
      {
        type: 'tool-result',
        kind: 'server',
        id: 's',
        name: 'n',
        content: 'r',
        tag: 'y_tool_result',
      },
      { type: 'tool-result', kind: 'client', id: 'c', name: 'n', content: 'bad', isError: true },
      { type: 'citations', citations: [] },
      { type: 'awaiting-frontend-tools', tools: [] },
      { type: 'meta-files', files: [] },
      { type: 'error', error: 'x' },
      { type: 'decode-error', problem: { code: 'sse', message: 'm', offset: 0 } },
      {
        type: 'meta-final',
        data: {
          conversation_history: null,
          stop_reason: 'stop',
          total_steps: 1,
          generated_files: null,
          cost: null,
          cumulative_usage: null,
        },
      },
    ]);
    expect(document.blocks.map((block) => block.kind)).toEqual([
      'stray-text',
      'tool-result',
      'tool-result',
      'citations',
      'awaiting-frontend-tools',
      'meta-files',
      'error',
      'decode-error',
      'meta-final',
    ]);
    expect(document.blocks[0]).toEqual({ kind: 'stray-text', text: '<x></x>' });
    expect(document.blocks[1]).toEqual({
      kind: 'tool-result',
      toolKind: 'server',
      id: 's',
      name: 'n',
      content: 'r',
      isError: false,
      tag: 'y_tool_result',
    });
    expect(document.blocks[2]).toMatchObject({ isError: true });
  });
});

const EVENTS: BlockEvent[] = [
  { type: 'text-start' },
  { type: 'text-delta', delta: 'héllo ' },
  { type: 'text-delta', delta: '😀 ]]> world' },
  { type: 'text-end' },
  { type: 'tool-call', kind: 'client', id: 'a', name: 'f', arguments: '{"q":"<&>"}' },
];

async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) return out;
    out.push(next.value);
  }
}

describe('web streams', () => {
  it('events → SSE bytes → Response → decoder stream gives the events back', async () => {
    const body = blockEventsToSse(EVENTS);
    const response = new Response(body);
    const decoded = await collect(response.body!.pipeThrough(createBlockDecoderStream()));
    expect(decoded).toEqual(EVENTS);
  });

  it('the encoder stream closes a block left open when its input ends', async () => {
    const bytes = await collect(
      iterableToStream<BlockEvent>([
        { type: 'thinking-start' },
        { type: 'thinking-delta', delta: 'x' },
      ]).pipeThrough(createBlockEncoderStream()),
    );
    expect(decodeChunks(bytes)).toEqual([
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 'x' },
      { type: 'thinking-end' },
    ]);
    expect(new TextDecoder().decode(bytes.at(-1))).toBe('data: </content-block-thinking>\n\n');
  });

  it('pulls lazily, and cancelling the body ends the source (a client that disconnects)', async () => {
    let produced = 0;
    let finished = false;
    async function* source(): AsyncGenerator<BlockEvent> {
      try {
        yield { type: 'text-start' };
        for (;;) {
          produced++;
          yield { type: 'text-delta', delta: `${produced} ` };
        }
      } finally {
        finished = true;
      }
    }
    const reader = blockEventsToSse(source()).getReader();
    await reader.read();
    await reader.read();
    expect(produced).toBeLessThan(5);
    await reader.cancel('client went away');
    // The cancel travels up the pipe asynchronously; the source must end within a few ticks.
    for (let tick = 0; tick < 20 && !finished; tick++)
      await new Promise((resolve) => setTimeout(resolve, 1));
    expect(finished).toBe(true);
  });

  it('the same text decodes the same from a string', () => {
    expect(decodeChunks([encodeBlocks(EVENTS)])).toEqual(EVENTS);
  });
});

describe('the stream core runs in browsers and edge runtimes', () => {
  it('imports nothing from Node and uses no Node globals', () => {
    const folder = new URL('../../src/stream/', import.meta.url);
    const files = readdirSync(folder).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(5);
    for (const name of files) {
      const source = readFileSync(new URL(name, folder), 'utf8');
      expect(source, name).not.toMatch(/from ['"]node:|require\(|\bBuffer\b|\bprocess\./);
      // Only type imports from the AI SDK: the adapter needs no runtime from it.
      for (const line of source.split('\n').filter((text) => /from ['"]ai['"]/.test(text)))
        expect(line, name).toMatch(/^import type /);
    }
  });
});
