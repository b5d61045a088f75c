import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { stepCountIs, streamText, wrapLanguageModel } from 'ai';
import {
  convertArrayToReadableStream,
  convertReadableStreamToArray,
  MockLanguageModelV4,
} from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  createToolMiddleware,
  hermesProtocol,
  type ProtocolFault,
  type ToolMiddlewareOptions,
  xmlProtocol,
} from '../../src/ai-sdk/index.ts';
import {
  chunksOf,
  STOP,
  textStream,
  USAGE,
  WEATHER_FUNCTION_TOOLS,
  weatherTools,
} from './support.ts';

type Part = LanguageModelV4StreamPart;

const CALL_OPTIONS: LanguageModelV4CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'Weather in Seoul?' }] }],
  tools: WEATHER_FUNCTION_TOOLS,
};

/** The wrapped model's doStream over a provider stream, collected; plus what onError received. */
async function run(
  source: ReadableStream<Part> | Part[],
  options: Partial<ToolMiddlewareOptions> = {},
  callOptions: LanguageModelV4CallOptions = CALL_OPTIONS,
): Promise<{ parts: Part[]; faults: ProtocolFault[]; seen: LanguageModelV4CallOptions[] }> {
  const faults: ProtocolFault[] = [];
  const seen: LanguageModelV4CallOptions[] = [];
  const model = new MockLanguageModelV4({
    doStream: async (call) => {
      seen.push(call);
      return {
        stream: Array.isArray(source) ? convertArrayToReadableStream(source) : source,
      };
    },
  });
  const wrapped = wrapLanguageModel({
    model,
    middleware: createToolMiddleware({
      protocol: xmlProtocol(),
      onError: (fault) => faults.push(fault),
      ...options,
    }),
  });
  const { stream } = await wrapped.doStream(callOptions);
  return { parts: await convertReadableStreamToArray(stream), faults, seen };
}

const CALL = '<get_weather>\n  <city>Seoul</city>\n</get_weather>';

function types(parts: readonly Part[]): string[] {
  return parts.map((part) => part.type);
}

/** Part types with runs of deltas of one block counted once (how many depends on timing). */
function shape(parts: readonly Part[]): string[] {
  return types(parts).filter(
    (type, index, all) => !(type.endsWith('-delta') && all[index - 1] === type),
  );
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
}

describe('wrapStream', () => {
  it('turns text into text and tool parts; other parts pass through in order', async () => {
    const source: Part[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: 'r1', modelId: 'm' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'provider reasoning' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-start', id: 'provider-text' },
      { type: 'text-delta', id: 'provider-text', delta: 'Checking.\n<get_wea' },
      { type: 'raw', rawValue: { chunk: 1 } },
      {
        type: 'text-delta',
        id: 'provider-text',
        delta: 'ther>\n  <city>Seoul</city>\n</get_weather>',
      },
      { type: 'text-end', id: 'provider-text' },
      { type: 'finish', finishReason: STOP, usage: USAGE },
    ];
    const { parts, faults } = await run(source);
    expect(faults).toEqual([]);
    expect(shape(parts)).toEqual([
      'stream-start',
      'response-metadata',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'raw',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'finish',
    ]);
    // The provider's own text block is replaced, never duplicated.
    expect(parts.some((part) => 'id' in part && part.id === 'provider-text')).toBe(false);
    expect(textOf(parts)).toBe('Checking.\n');
    const call = parts.find((part) => part.type === 'tool-call')!;
    expect(call).toEqual({
      type: 'tool-call',
      toolCallId: expect.any(String),
      toolName: 'get_weather',
      input: '{"city":"Seoul"}',
    });
    // tool-input-* carry the call's id, and their deltas add up to its input.
    const inputs = parts.filter((part) => part.type.startsWith('tool-input'));
    expect(new Set(inputs.map((part) => ('id' in part ? part.id : '')))).toEqual(
      new Set([call.type === 'tool-call' ? call.toolCallId : '']),
    );
    expect(
      inputs.map((part) => (part.type === 'tool-input-delta' ? part.delta : '')).join(''),
    ).toBe('{"city":"Seoul"}');
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'stop' },
      usage: USAGE,
    });
  });

  it('joins the deltas of text the provider already delivered', async () => {
    const text = `${'Some text. '.repeat(20)}${CALL}`;
    const { parts } = await run(textStream(chunksOf(text, 1)));
    const deltas = parts.filter((part) => part.type.endsWith('-delta'));
    expect(deltas.length).toBeLessThan(10);
    expect(textOf(parts)).toBe('Some text. '.repeat(20));
  });

  it('parses text the provider already delivered in one push, keeping other parts in place', async () => {
    const protocol = xmlProtocol();
    const pushed: string[] = [];
    const counting = {
      ...protocol,
      createStreamParser: (options: Parameters<typeof protocol.createStreamParser>[0]) => {
        const parser = protocol.createStreamParser(options);
        return {
          push: (chunk: string) => {
            pushed.push(chunk);
            return parser.push(chunk);
          },
          end: () => parser.end(),
        };
      },
    };
    const before = 'Checking. <get_weather><city>Os';
    const after = 'lo</city></get_weather> Done.';
    const { parts } = await run(
      [
        { type: 'stream-start', warnings: [] },
        ...chunksOf(before, 3).map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'provider reasoning' },
        { type: 'reasoning-end', id: 'r' },
        ...chunksOf(after, 3).map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
        { type: 'finish', finishReason: STOP, usage: USAGE },
      ],
      { protocol: counting },
    );
    // One push per run of text deltas: the reasoning part between them is handled in its place.
    expect(pushed).toEqual([before, after]);
    expect(shape(parts)).toEqual([
      'stream-start',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
      input: '{"city":"Oslo"}',
    });
  });

  it('hands out each piece as soon as it arrives when the provider is slower than the reader', async () => {
    // The provider sends the next piece only when told to: the reader must get every piece
    // before the next one exists (nothing is held back waiting for more).
    const pieces = ['Hello', ' there', '. <get_weather><city>Oslo', '</city></get_weather>'];
    let release: () => void = () => {};
    let sent = 0;
    const source = new ReadableStream<Part>({
      async pull(controller) {
        if (sent === 0) controller.enqueue({ type: 'stream-start', warnings: [] });
        if (sent > 0) await new Promise<void>((resolve) => (release = resolve));
        if (sent < pieces.length) {
          controller.enqueue({ type: 'text-delta', id: 't', delta: pieces[sent]! });
        } else {
          controller.enqueue({ type: 'finish', finishReason: STOP, usage: USAGE });
          controller.close();
        }
        sent++;
      },
    });
    const model = new MockLanguageModelV4({ doStream: async () => ({ stream: source }) });
    const wrapped = wrapLanguageModel({
      model,
      middleware: createToolMiddleware({ protocol: xmlProtocol() }),
    });
    const reader = (await wrapped.doStream(CALL_OPTIONS)).stream.getReader();
    const readUntil = async (type: string) => {
      const got: Part[] = [];
      for (;;) {
        const next = await reader.read();
        if (next.done) throw new Error('ended early');
        got.push(next.value);
        if (next.value.type === type) return got;
      }
    };
    expect(types(await readUntil('text-delta'))).toEqual([
      'stream-start',
      'text-start',
      'text-delta',
    ]);
    release();
    expect(await readUntil('text-delta')).toEqual([
      { type: 'text-delta', id: expect.any(String), delta: ' there' },
    ]);
    release();
    expect(types(await readUntil('tool-input-delta'))).toEqual([
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
    ]);
    release();
    expect(types(await readUntil('tool-call')).slice(-1)).toEqual(['tool-call']);
    release();
    expect(types(await readUntil('finish'))).toEqual(['finish']);
  });

  it('keeps the finish part as it is when no call was found', async () => {
    const { parts } = await run(textStream(['Just ', 'text.']));
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: STOP, usage: USAGE });
    expect(textOf(parts)).toBe('Just text.');
  });

  it('gives each call its own id, also across several tools', async () => {
    const text = `${CALL}\nand\n${CALL.replaceAll('Seoul', 'Paris')}`;
    const { parts } = await run(textStream(chunksOf(text, 5)));
    const calls = parts.filter((part) => part.type === 'tool-call');
    expect(calls.map((part) => part.input)).toEqual(['{"city":"Seoul"}', '{"city":"Paris"}']);
    expect(new Set(calls.map((part) => part.toolCallId)).size).toBe(2);
    const starts = parts.filter((part) => part.type === 'tool-input-start');
    expect(starts.map((part) => part.id)).toEqual(calls.map((part) => part.toolCallId));
  });

  it('extracts <think> reasoning written in the text', async () => {
    const { parts } = await run(textStream(chunksOf(`<think>Use the tool.</think>${CALL}`, 3)));
    expect(types(parts).slice(2, 4)).toEqual(['reasoning-start', 'reasoning-delta']);
    expect(parts.map((part) => (part.type === 'reasoning-delta' ? part.delta : '')).join('')).toBe(
      'Use the tool.',
    );
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
  });

  it('attaches schema problems to the call as providerMetadata.toolwire.problems', async () => {
    const { parts } = await run(
      textStream(['<get_weather><city>Oslo</city><unit>kelvin</unit></get_weather>']),
    );
    const call = parts.find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({
      input: '{"city":"Oslo","unit":"kelvin"}',
      providerMetadata: {
        toolwire: { problems: [{ path: '/unit', keyword: 'enum', message: expect.any(String) }] },
      },
    });
  });
});

describe('wrapStream with toolChoice retry', () => {
  it('when the retry itself fails, its error is passed on before the finish', async () => {
    const failure = new Error('server gone');
    let calls = 0;
    const model = new MockLanguageModelV4({
      doStream: async () => {
        calls++;
        if (calls > 1) throw failure;
        return { stream: convertArrayToReadableStream(textStream(['No tools.'])) };
      },
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: createToolMiddleware({ protocol: xmlProtocol(), toolChoiceRetry: true }),
    });
    const { stream } = await wrapped.doStream({
      ...CALL_OPTIONS,
      toolChoice: { type: 'required' },
    });
    const parts = await convertReadableStreamToArray(stream);
    expect(calls).toBe(2);
    expect(textOf(parts)).toBe('No tools.');
    expect(parts.slice(-2)).toEqual([
      { type: 'error', error: failure },
      { type: 'finish', finishReason: STOP, usage: USAGE },
    ]);
  });

  it('a retry that calls the tool continues the same stream, with one stream-start', async () => {
    const outputs = ['Hmm.', '<get_time><city>Oslo</city></get_time>'];
    const seen: LanguageModelV4CallOptions[] = [];
    const model = new MockLanguageModelV4({
      doStream: async (options) => {
        seen.push(options);
        return {
          stream: convertArrayToReadableStream(textStream(chunksOf(outputs[seen.length - 1]!, 3))),
        };
      },
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: createToolMiddleware({ protocol: xmlProtocol(), toolChoiceRetry: true }),
    });
    const { stream } = await wrapped.doStream({
      ...CALL_OPTIONS,
      toolChoice: { type: 'tool', toolName: 'get_time' },
    });
    const parts = await convertReadableStreamToArray(stream);
    expect(types(parts).filter((type) => type === 'stream-start')).toHaveLength(1);
    expect(types(parts).filter((type) => type === 'finish')).toHaveLength(1);
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
      toolName: 'get_time',
      input: '{"city":"Oslo"}',
    });
    expect(parts.at(-1)).toMatchObject({
      finishReason: { unified: 'tool-calls' },
      usage: { inputTokens: { total: 20 }, outputTokens: { total: 10 } },
    });
    expect(seen[1]!.prompt.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'text', text: expect.stringContaining('call the tool "get_time"') }],
    });
  });
});

describe('wrapStream when the output is cut off', () => {
  const cut = 'Checking.\n<get_weather>\n  <city>Seo';

  it('reports a call open at an error part with its raw text, and never passes it on as valid', async () => {
    const failure = new Error('upstream broke');
    const source: Part[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      ...chunksOf(cut, 4).map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
      { type: 'error', error: failure },
      { type: 'finish', finishReason: { unified: 'error', raw: undefined }, usage: USAGE },
    ];
    const { parts, faults } = await run(source);
    expect(faults).toEqual([
      expect.objectContaining({
        code: 'incomplete-call',
        raw: '<get_weather>\n  <city>Seo',
        toolName: 'get_weather',
      }),
    ]);
    // The provider's error is passed on; the cut call comes out as an invalid call whose input
    // is its raw text (not JSON: the SDK never runs it).
    expect(parts.find((part) => part.type === 'error')).toEqual({ type: 'error', error: failure });
    const call = parts.find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({
      toolName: 'get_weather',
      input: '<get_weather>\n  <city>Seo',
      providerMetadata: { toolwire: { fault: { code: 'incomplete-call' } } },
    });
    expect(() => JSON.parse(call?.type === 'tool-call' ? call.input : '')).toThrow();
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'error' } });
  });

  it("with malformedCalls: 'text', the cut call's raw text comes out as text", async () => {
    const { parts, faults } = await run(
      textStream(chunksOf(cut, 4), { unified: 'length', raw: 'length' }),
      { malformedCalls: 'text' },
    );
    expect(faults.map((fault) => fault.raw)).toEqual(['<get_weather>\n  <city>Seo']);
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    expect(textOf(parts)).toBe(cut);
    expect(parts.at(-1)).toMatchObject({ finishReason: { unified: 'length' } });
  });

  it('a stream that fails mid-call delivers the raw text, then fails with the same error', async () => {
    const failure = new Error('connection reset');
    let sent = 0;
    const pieces = chunksOf(cut, 4);
    const source = new ReadableStream<Part>({
      pull(controller) {
        if (sent === 0) controller.enqueue({ type: 'stream-start', warnings: [] });
        if (sent < pieces.length)
          controller.enqueue({ type: 'text-delta', id: 't', delta: pieces[sent]! });
        else controller.error(failure);
        sent++;
      },
    });
    const faults: ProtocolFault[] = [];
    const model = new MockLanguageModelV4({ doStream: async () => ({ stream: source }) });
    const wrapped = wrapLanguageModel({
      model,
      middleware: createToolMiddleware({
        protocol: xmlProtocol(),
        malformedCalls: 'text',
        onError: (fault) => faults.push(fault),
      }),
    });
    const { stream } = await wrapped.doStream(CALL_OPTIONS);
    const reader = stream.getReader();
    const parts: Part[] = [];
    let error: unknown;
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        parts.push(next.value);
      }
    } catch (caught) {
      error = caught;
    }
    expect(error).toBe(failure);
    expect(textOf(parts)).toBe(cut);
    expect(types(parts).at(-1)).toBe('text-end');
    expect(faults).toEqual([expect.objectContaining({ raw: '<get_weather>\n  <city>Seo' })]);
  });

  it('a stream that ends without a finish part is treated as cut off', async () => {
    const source = textStream(chunksOf(cut, 4)).filter((part) => part.type !== 'finish');
    const { parts, faults } = await run(source);
    expect(faults).toHaveLength(1);
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      expect.objectContaining({ input: '<get_weather>\n  <city>Seo' }),
    ]);
  });

  it('a call left unclosed when the model stopped by itself (a stop sequence) is completed', async () => {
    const { parts, faults } = await run(textStream(chunksOf(`${CALL.slice(0, -15)}`, 4)));
    expect(faults).toEqual([]);
    expect(parts.find((part) => part.type === 'tool-call')).toMatchObject({
      input: '{"city":"Seoul"}',
    });
  });

  it('cancelling the output cancels the provider stream', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<Part>({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hello' });
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const model = new MockLanguageModelV4({ doStream: async () => ({ stream: source }) });
    const wrapped = wrapLanguageModel({
      model,
      middleware: createToolMiddleware({ protocol: hermesProtocol() }),
    });
    const { stream } = await wrapped.doStream(CALL_OPTIONS);
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel('stop');
    expect(cancelled).toBe('stop');
  });
});

describe('aborting a streamText run mid-call', () => {
  it('ends the run cleanly: nothing runs, the open call is reported with its raw text', async () => {
    const controller = new AbortController();
    const pieces = ['Checking.\n', '<get_weather>\n  <city>Seo'];
    const model = new MockLanguageModelV4({
      doStream: async ({ abortSignal }) => {
        let sent = 0;
        return {
          stream: new ReadableStream<Part>({
            async pull(stream) {
              if (sent < pieces.length) {
                if (sent === 0) stream.enqueue({ type: 'stream-start', warnings: [] });
                stream.enqueue({ type: 'text-delta', id: 't', delta: pieces[sent++]! });
                return;
              }
              // The provider waits for more tokens until the request is aborted.
              await new Promise<void>((resolve) => {
                abortSignal?.addEventListener('abort', () => resolve(), { once: true });
              });
              stream.error(abortSignal?.reason);
            },
          }),
        };
      },
    });
    const faults: ProtocolFault[] = [];
    const ran: { toolName: string; input: unknown }[] = [];
    const result = streamText({
      model: wrapLanguageModel({
        model,
        middleware: createToolMiddleware({
          protocol: xmlProtocol(),
          onError: (fault) => faults.push(fault),
        }),
      }),
      prompt: 'Weather in Seoul?',
      tools: weatherTools(ran),
      stopWhen: stepCountIs(5),
      abortSignal: controller.signal,
    });
    const seen: string[] = [];
    for await (const part of result.fullStream) {
      seen.push(part.type);
      if (part.type === 'tool-input-delta') controller.abort();
    }
    expect(seen).toContain('abort');
    expect(seen).not.toContain('tool-call');
    expect(ran).toEqual([]);
    expect(faults).toEqual([
      expect.objectContaining({ code: 'incomplete-call', raw: '<get_weather>\n  <city>Seo' }),
    ]);
  });
});
