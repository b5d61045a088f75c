import type {
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { isStepCount, jsonSchema, streamText, type TextStreamPart, type ToolSet, tool } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  encodeFullStream,
  FullStreamAdapter,
  fullStreamToBlocks,
} from '../../src/ai-sdk/full-stream-blocks.ts';
import { type BlockEvent, SSE_HEADERS } from '../../src/stream/index.ts';
import { decodeChunks, problemsOf } from '../stream/helpers.ts';

type Part = TextStreamPart<ToolSet>;

/** Parts as the AI SDK sends them; only the fields the adapter reads are filled. */
function parts(...list: object[]): Part[] {
  return list as Part[];
}

function adapt(list: Part[], options: ConstructorParameters<typeof FullStreamAdapter>[0] = {}) {
  const adapter = new FullStreamAdapter(options);
  const events = list.flatMap((part) => adapter.push(part));
  events.push(...adapter.end());
  return { adapter, events };
}

const usage = {
  inputTokens: 12,
  inputTokenDetails: { noCacheTokens: 10, cacheReadTokens: 2, cacheWriteTokens: undefined },
  outputTokens: 7,
  outputTokenDetails: { textTokens: 5, reasoningTokens: 2 },
  totalTokens: 19,
};

describe('FullStreamAdapter: parts to blocks', () => {
  it('streams reasoning and text as they come, skipping empty deltas and empty blocks', () => {
    const { events } = adapt(
      parts(
        { type: 'start' },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', text: 'hmm' },
        { type: 'reasoning-end', id: 'r' },
        { type: 'text-start', id: 't0' },
        { type: 'text-end', id: 't0' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', text: '' },
        { type: 'text-delta', id: 't', text: 'Hel' },
        { type: 'text-delta', id: 't', text: 'lo' },
        { type: 'text-end', id: 't' },
      ),
    );
    expect(events).toEqual([
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 'hmm' },
      { type: 'thinking-end' },
      { type: 'text-start' },
      { type: 'text-delta', delta: 'Hel' },
      { type: 'text-delta', delta: 'lo' },
      { type: 'text-end' },
    ]);
  });

  it('streams a call’s input; a final input equal in value adds nothing, a different one is sent whole', () => {
    const { events } = adapt(
      parts(
        { type: 'tool-input-start', id: 'a', toolName: 'get_weather' },
        { type: 'tool-input-delta', id: 'a', delta: '{"city": ' },
        { type: 'tool-input-delta', id: 'a', delta: '"Oslo"}' },
        { type: 'tool-input-end', id: 'a' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'get_weather', input: { city: 'Oslo' } },
        { type: 'tool-input-start', id: 'b', toolName: 'search', providerExecuted: true },
        { type: 'tool-input-delta', id: 'b', delta: '{"q":"x"' },
        { type: 'tool-input-end', id: 'b' },
        {
          type: 'tool-call',
          toolCallId: 'b',
          toolName: 'search',
          input: { q: 'x' },
          providerExecuted: true,
        },
      ),
    );
    expect(events).toEqual([
      { type: 'tool-call-start', kind: 'client', id: 'a', name: 'get_weather' },
      { type: 'tool-call-delta', id: 'a', delta: '{"city": ' },
      { type: 'tool-call-delta', id: 'a', delta: '"Oslo"}' },
      { type: 'tool-call-end', id: 'a' },
      { type: 'tool-call-start', kind: 'server', id: 'b', name: 'search' },
      { type: 'tool-call-delta', id: 'b', delta: '{"q":"x"' },
      { type: 'tool-call-end', id: 'b' },
      // The streamed text was not valid JSON; the SDK repaired it: the final arguments follow.
      { type: 'tool-call', kind: 'server', id: 'b', name: 'search', arguments: '{"q":"x"}' },
    ]);
  });

  it('when blocks interleave, the open one closes; a call cut short gets its arguments whole', () => {
    const { events } = adapt(
      parts(
        { type: 'tool-input-start', id: 'a', toolName: 'f' },
        { type: 'tool-input-delta', id: 'a', delta: '{"x":' },
        { type: 'tool-input-start', id: 'b', toolName: 'g' },
        { type: 'tool-input-delta', id: 'b', delta: '{}' },
        { type: 'text-delta', id: 't', text: 'meanwhile' },
        { type: 'tool-input-delta', id: 'a', delta: '1}' },
        { type: 'tool-input-end', id: 'a' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'f', input: { x: 1 } },
        { type: 'tool-call', toolCallId: 'b', toolName: 'g', input: {} },
        { type: 'text-delta', id: 't', text: ' again' },
      ),
    );
    expect(events).toEqual([
      { type: 'tool-call-start', kind: 'client', id: 'a', name: 'f' },
      { type: 'tool-call-delta', id: 'a', delta: '{"x":' },
      { type: 'tool-call-end', id: 'a' },
      { type: 'text-start' },
      { type: 'text-delta', delta: 'meanwhile' },
      { type: 'text-end' },
      { type: 'tool-call', kind: 'client', id: 'a', name: 'f', arguments: '{"x":1}' },
      { type: 'tool-call', kind: 'client', id: 'b', name: 'g', arguments: '{}' },
      { type: 'text-start' },
      { type: 'text-delta', delta: ' again' },
      { type: 'text-end' },
    ]);
  });

  it('results: text as is, values as JSON, content parts with images; errors and denials flagged', () => {
    const { events } = adapt(
      parts(
        { type: 'tool-result', toolCallId: 'a', toolName: 'f', input: {}, output: 'plain' },
        {
          type: 'tool-result',
          toolCallId: 'b',
          toolName: 'f',
          input: {},
          output: { n: 1 },
          preliminary: true,
        },
        { type: 'tool-result', toolCallId: 'b', toolName: 'f', input: {}, output: { n: 2 } },
        {
          type: 'tool-result',
          toolCallId: 'c',
          toolName: 'shot',
          input: {},
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'here' },
              {
                type: 'file',
                mediaType: 'image/png',
                data: { type: 'data', data: new Uint8Array([1, 2, 3]) },
              },
              {
                type: 'file',
                mediaType: 'image/jpeg',
                data: { type: 'url', url: 'https://x/y.jpg' },
              },
              { type: 'custom' },
            ],
          },
        },
        {
          type: 'tool-error',
          toolCallId: 'd',
          toolName: 'f',
          input: {},
          error: new Error('disk full'),
        },
        { type: 'tool-output-denied', toolCallId: 'e', toolName: 'rm' },
        {
          type: 'tool-result',
          toolCallId: 's',
          toolName: 'web',
          input: {},
          output: 'r',
          providerExecuted: true,
        },
      ),
    );
    expect(events).toEqual([
      { type: 'tool-result', kind: 'client', id: 'a', name: 'f', content: 'plain' },
      { type: 'tool-result', kind: 'client', id: 'b', name: 'f', content: '{"n":2}' },
      {
        type: 'tool-result',
        kind: 'client',
        id: 'c',
        name: 'shot',
        content: [
          { type: 'text', text: 'here' },
          { type: 'image', src: 'data:image/png;base64,AQID', mediaType: 'image/png' },
          { type: 'image', src: 'https://x/y.jpg', mediaType: 'image/jpeg' },
          { type: 'text', text: '{"type":"custom"}' },
        ],
      },
      {
        type: 'tool-result',
        kind: 'client',
        id: 'd',
        name: 'f',
        content: 'disk full',
        isError: true,
      },
      {
        type: 'tool-result',
        kind: 'client',
        id: 'e',
        name: 'rm',
        content: 'The tool call was denied.',
        isError: true,
      },
      { type: 'tool-result', kind: 'server', id: 's', name: 'web', content: 'r' },
    ]);
  });

  it('sources and text citations become citations; files become meta_files', () => {
    const { events, adapter } = adapt(
      parts(
        { type: 'text-delta', id: 't', text: 'Grass is green.' },
        {
          type: 'text-end',
          id: 't',
          citations: [
            {
              source: {
                type: 'source',
                sourceType: 'url',
                id: 's1',
                url: 'https://g.example',
                title: 'G',
              },
              citedText: 'green',
              startIndex: 9,
              endIndex: 14,
            },
          ],
        },
        {
          type: 'source',
          sourceType: 'document',
          id: 'd1',
          mediaType: 'application/pdf',
          title: 'Botany',
          filename: 'botany.pdf',
        },
        { type: 'file', file: { mediaType: 'image/png', base64: 'AAAA' } },
        { type: 'finish', finishReason: 'stop', totalUsage: usage },
      ),
    );
    expect(events.slice(3)).toEqual([
      {
        type: 'citations',
        citations: [
          {
            type: 'web_search_result_location',
            url: 'https://g.example',
            title: 'G',
            citedText: 'green',
          },
        ],
      },
      {
        type: 'citations',
        citations: [
          {
            type: 'other',
            citationType: 'document',
            attributes: {
              source_id: 'd1',
              document_title: 'Botany',
              media_type: 'application/pdf',
              filename: 'botany.pdf',
            },
            citedText: '',
          },
        ],
      },
      {
        type: 'meta-files',
        files: [
          {
            file_id: 'file_1',
            media_type: 'image/png',
            storage_location: 'data:image/png;base64,AAAA',
          },
        ],
      },
    ]);
    expect(adapter.metaFinal({ cost: 0.5 })).toEqual({
      type: 'meta-final',
      data: {
        conversation_history: null,
        stop_reason: 'stop',
        total_steps: 0,
        generated_files: [
          {
            file_id: 'file_1',
            media_type: 'image/png',
            storage_location: 'data:image/png;base64,AAAA',
          },
        ],
        cost: 0.5,
        cumulative_usage: {
          input_tokens: 12,
          output_tokens: 7,
          total_tokens: 19,
          cache_read_input_tokens: 2,
          reasoning_tokens: 2,
        },
      },
    });
  });

  it('a run is complete after finish, unless aborted or a front-end tool waits', () => {
    const finished = adapt(
      parts({ type: 'finish-step' }, { type: 'finish', finishReason: 'stop', totalUsage: usage }),
    );
    expect(finished.adapter.completed).toBe(true);
    expect(finished.adapter.summary?.steps).toBe(1);

    const aborted = adapt(
      parts(
        { type: 'text-delta', id: 't', text: 'par' },
        { type: 'abort', reason: 'user pressed stop' },
        { type: 'finish', finishReason: 'stop', totalUsage: usage },
      ),
    );
    expect(aborted.adapter.completed).toBe(false);
    expect(aborted.events.slice(-2)).toEqual([
      { type: 'text-end' },
      { type: 'error', error: { type: 'aborted', message: 'user pressed stop' } },
    ]);

    const waiting = adapt(
      parts(
        { type: 'tool-call', toolCallId: 'q', toolName: 'confirm', input: { question: 'Go?' } },
        { type: 'tool-call', toolCallId: 'w', toolName: 'weather', input: {} },
        { type: 'tool-result', toolCallId: 'w', toolName: 'weather', input: {}, output: 'sun' },
        { type: 'error', error: 'model overloaded' },
        { type: 'finish', finishReason: 'tool-calls', totalUsage: usage },
      ),
      { frontendTools: ['confirm'] },
    );
    expect(waiting.adapter.completed).toBe(false);
    expect(waiting.events.slice(-2)).toEqual([
      { type: 'error', error: { type: 'error', message: 'model overloaded' } },
      {
        type: 'awaiting-frontend-tools',
        tools: [{ tool_use_id: 'q', name: 'confirm', input: { question: 'Go?' } }],
      },
    ]);
  });
});

// ── with streamText ─────────────────────────────────────────────────────────────────────────

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** A model that answers each call with the next list of stream parts. */
function scripted(steps: LanguageModelV4StreamPart[][]): MockLanguageModelV4 {
  let call = 0;
  return new MockLanguageModelV4({
    doStream: async (_options: LanguageModelV4CallOptions) => ({
      stream: convertArrayToReadableStream([
        { type: 'stream-start', warnings: [] },
        ...(steps[call++] ?? []),
      ]),
    }),
  });
}

const firstStep: LanguageModelV4StreamPart[] = [
  { type: 'reasoning-start', id: 'r' },
  { type: 'reasoning-delta', id: 'r', delta: 'Need the weather.' },
  { type: 'reasoning-end', id: 'r' },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'Checking <Oslo> & co…' },
  { type: 'text-end', id: 't' },
  { type: 'tool-input-start', id: 'call-1', toolName: 'weather' },
  { type: 'tool-input-delta', id: 'call-1', delta: '{"city":' },
  { type: 'tool-input-delta', id: 'call-1', delta: '"Oslo ]]> \\"x\\""}' },
  { type: 'tool-input-end', id: 'call-1' },
  {
    type: 'tool-call',
    toolCallId: 'call-1',
    toolName: 'weather',
    input: '{"city":"Oslo ]]> \\"x\\""}',
  },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
];

const weatherTool = tool({
  description: 'weather for a city',
  inputSchema: jsonSchema<{ city: string }>({
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  }),
  execute: async ({ city }) => ({ city, sky: 'clear', note: 'a]]>b\r\nc' }),
});

async function readBody(body: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = body.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) return chunks;
    chunks.push(next.value);
  }
}

describe('encodeFullStream with streamText', () => {
  it('serves a two-step run as SSE that decodes to the same blocks, ending with meta_final', async () => {
    const result = streamText({
      model: scripted([
        firstStep,
        [
          { type: 'text-start', id: 't2' },
          { type: 'text-delta', id: 't2', delta: 'Clear in Oslo.' },
          { type: 'text-end', id: 't2' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE },
        ],
      ]),
      prompt: 'Weather in Oslo?',
      tools: { weather: weatherTool },
      stopWhen: isStepCount(3),
    });
    const response = new Response(
      encodeFullStream(result.fullStream, {
        meta: { format: 'xml', user_query: 'Weather in Oslo?', agent_uuid: 'run-1', model: 'mock' },
        finalData: async () => ({
          conversation_history: [{ role: 'user', content: 'Weather in Oslo?' }],
        }),
      }),
      { headers: SSE_HEADERS },
    );
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = decodeChunks(await readBody(response.body!));
    expect(problemsOf(events)).toEqual([]);
    expect(events).toEqual([
      {
        type: 'meta-init',
        data: { format: 'xml', user_query: 'Weather in Oslo?', agent_uuid: 'run-1', model: 'mock' },
      },
      { type: 'thinking-start' },
      { type: 'thinking-delta', delta: 'Need the weather.' },
      { type: 'thinking-end' },
      { type: 'text-start' },
      { type: 'text-delta', delta: 'Checking <Oslo> & co…' },
      { type: 'text-end' },
      { type: 'tool-call-start', kind: 'client', id: 'call-1', name: 'weather' },
      { type: 'tool-call-delta', id: 'call-1', delta: '{"city":' },
      { type: 'tool-call-delta', id: 'call-1', delta: '"Oslo ]]> \\"x\\""}' },
      { type: 'tool-call-end', id: 'call-1' },
      {
        type: 'tool-result',
        kind: 'client',
        id: 'call-1',
        name: 'weather',
        content: '{"city":"Oslo ]]> \\"x\\"","sky":"clear","note":"a]]>b\\r\\nc"}',
      },
      { type: 'text-start' },
      { type: 'text-delta', delta: 'Clear in Oslo.' },
      { type: 'text-end' },
      {
        type: 'meta-final',
        data: {
          conversation_history: [{ role: 'user', content: 'Weather in Oslo?' }],
          stop_reason: 'stop',
          total_steps: 2,
          generated_files: null,
          cost: null,
          cumulative_usage: expect.objectContaining({ input_tokens: 20, output_tokens: 10 }),
        },
      },
    ]);
  });

  it('a front-end tool pauses the run: awaiting_frontend_tools, and no meta_final', async () => {
    const result = streamText({
      model: scripted([
        [
          {
            type: 'tool-call',
            toolCallId: 'ask-1',
            toolName: 'confirm',
            input: '{"question":"Delete 3 files?"}',
          },
          {
            type: 'finish',
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage: USAGE,
          },
        ],
      ]),
      prompt: 'Clean up',
      tools: {
        confirm: tool({
          inputSchema: jsonSchema<{ question: string }>({
            type: 'object',
            properties: { question: { type: 'string' } },
          }),
        }),
      },
    });
    const events: BlockEvent[] = [];
    for await (const event of fullStreamToBlocks(result.fullStream, { frontendTools: ['confirm'] }))
      events.push(event);
    expect(events).toEqual([
      {
        type: 'tool-call',
        kind: 'client',
        id: 'ask-1',
        name: 'confirm',
        arguments: '{"question":"Delete 3 files?"}',
      },
      {
        type: 'awaiting-frontend-tools',
        tools: [{ tool_use_id: 'ask-1', name: 'confirm', input: { question: 'Delete 3 files?' } }],
      },
    ]);
  });

  it('a stream that throws ends with its open block closed and an error block', async () => {
    async function* failing(): AsyncGenerator<Part> {
      yield { type: 'text-delta', id: 't', text: 'partial' } as Part;
      throw new TypeError('connection reset');
    }
    const events = decodeChunks(await readBody(encodeFullStream(failing())));
    expect(events).toEqual([
      { type: 'text-start' },
      { type: 'text-delta', delta: 'partial' },
      { type: 'text-end' },
      { type: 'error', error: { type: 'error', name: 'TypeError', message: 'connection reset' } },
    ]);
  });
});
