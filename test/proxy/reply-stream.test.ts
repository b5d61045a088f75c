/**
 * What the proxy writes for any model output, in every format: the streamed chunks and events a
 * client accumulates give the same reply as the whole (non-streamed) answer, however the model
 * server split the text; argument pieces always concatenate to the call's JSON; nothing the model
 * wrote is lost.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { FORMATS, type ToolCallProtocol, type ToolDefinition } from '../../src/index.ts';
import { specOf } from '../../src/protocols/spec/define.ts';
import { MessageBuilder, MessageEvents } from '../../src/proxy/anthropic-response.ts';
import { ChatCompletionBuilder, ChatCompletionChunks } from '../../src/proxy/openai-response.ts';
import { type ReplyEvent, ReplyReader } from '../../src/proxy/reply-events.ts';
import type { ReplyEnd } from '../../src/proxy/reply-run.ts';
import { counterIds, splitAt } from '../protocols/helpers.ts';

const TOOLS: ToolDefinition[] = [
  {
    name: 'get_weather',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city'],
    },
  },
  {
    name: 'write_file',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
];

const END: ReplyEnd = { finishReason: 'stop', calls: 0, usage: undefined };

/**
 * What a model whose template opens reasoning writes first (Kimi K3, Apriel): some reasoning
 * and its closer, so the text after it is the answer. Nothing for other formats.
 */
function reasoningFirst(protocol: ToolCallProtocol): string {
  const spec = specOf(protocol);
  const close = spec?.reasoning?.[0]?.close;
  return spec?.startInReasoning && close ? `Thinking.${close}` : '';
}

function read(protocol: ToolCallProtocol, chunks: readonly string[]): ReplyEvent[][] {
  const reader = new ReplyReader(protocol, { tools: TOOLS, generateId: counterIds() });
  const batches: ReplyEvent[][] = [];
  for (const chunk of chunks) {
    const out: ReplyEvent[] = [];
    reader.push(chunk, out);
    batches.push(out);
  }
  const out: ReplyEvent[] = [];
  reader.end(false, out);
  batches.push(out);
  return batches;
}

interface Accumulated {
  content: string;
  reasoning: string;
  calls: { id: string; name: string; arguments: string }[];
}

/** What a chat completions client builds from the stream (as the openai client's helpers do). */
function accumulateChunks(sse: string): Accumulated {
  const out: Accumulated = { content: '', reasoning: '', calls: [] };
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6));
    const delta = chunk.choices[0]?.delta ?? {};
    out.content += delta.content ?? '';
    out.reasoning += delta.reasoning_content ?? '';
    for (const call of delta.tool_calls ?? []) {
      if (call.id !== undefined) {
        expect(call.index).toBe(out.calls.length);
        expect(call.type).toBe('function');
        out.calls.push({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      } else {
        expect(Object.keys(call).sort()).toEqual(['function', 'index']);
        out.calls[call.index]!.arguments += call.function.arguments;
      }
    }
  }
  return out;
}

/** What a Messages client builds from the events. */
function accumulateEvents(sse: string): unknown[] {
  const blocks: Record<string, unknown>[] = [];
  const json: string[] = [];
  let open = -1;
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = JSON.parse(line.slice(6));
    if (event.type === 'content_block_start') {
      expect(open).toBe(-1);
      expect(event.index).toBe(blocks.length);
      open = event.index;
      blocks.push({ ...event.content_block });
      json.push('');
    } else if (event.type === 'content_block_delta') {
      expect(event.index).toBe(open);
      const block = blocks[open]!;
      if (event.delta.type === 'text_delta') block.text += event.delta.text;
      else if (event.delta.type === 'thinking_delta') block.thinking += event.delta.thinking;
      else json[open] += event.delta.partial_json;
    } else if (event.type === 'content_block_stop') {
      expect(event.index).toBe(open);
      if (blocks[open]!.type === 'tool_use') blocks[open]!.input = parseJsonText(json[open]!);
      open = -1;
    }
  }
  expect(open).toBe(-1);
  return blocks;
}

const PROSE = ['Hello', ' ', '\n', 'é', '😀', '<', '{', '"', 'a', '[', ']', '}', '>', '\\'];

/** Outputs of one format: prose and the format's own calls, whole or cut in the middle. */
function outputs(protocol: ToolCallProtocol) {
  const value = fc.string({ maxLength: 12 });
  const call = fc.oneof(
    fc.record({
      toolName: fc.constant('get_weather'),
      input: fc.record({ city: value, days: fc.nat(99) }),
    }),
    fc.record({
      toolName: fc.constant('write_file'),
      input: fc.record({ path: value, content: value }),
    }),
  );
  const piece = fc.oneof(
    fc.constantFrom(...PROSE),
    fc.array(call, { minLength: 1, maxLength: 2 }).map((calls) => protocol.formatToolCall(calls)),
  );
  return fc.array(piece, { maxLength: 6 }).map((pieces) => pieces.join(''));
}

describe.each(FORMATS.map((entry) => [entry.name, entry.create()] as const))(
  'the proxy writing %s replies',
  (_name, protocol) => {
    it('streamed chunks accumulate to the whole chat completion, at every split', () => {
      fc.assert(
        fc.property(outputs(protocol), fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
          const batches = read(protocol, splitAt(text, cuts));
          const chunks = new ChatCompletionChunks({ id: 'c', model: 'm', created: 1 });
          const sse =
            batches.map((batch) => chunks.encode(batch)).join('') + chunks.finish(END, false);
          const streamed = accumulateChunks(sse);
          const whole = new ChatCompletionBuilder();
          for (const batch of read(protocol, [text])) whole.add(batch);
          const message = whole.build({ id: 'c', model: 'm', created: 1 }, END).choices[0].message;
          const calls = (message.tool_calls ?? []).map((call) => ({
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          }));
          const abandoned = batches.flat().some((event) => event.type === 'call-abandoned');
          if (!abandoned) expect(streamed.calls).toEqual(calls);
          for (const call of streamed.calls.slice(0, calls.length))
            expect(() => parseJsonText(call.arguments)).not.toThrow();
          // No content (null) only when calls came with nothing but space around them.
          if (message.content === null) expect(streamed.content.trim()).toBe('');
          else expect(streamed.content).toBe(message.content);
          expect(streamed.reasoning).toBe(message.reasoning_content ?? '');
        }),
        { numRuns: 150 },
      );
    });

    it('streamed events accumulate to the whole Messages content, at every split', () => {
      fc.assert(
        fc.property(outputs(protocol), fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
          const batches = read(protocol, splitAt(text, cuts));
          if (batches.flat().some((event) => event.type === 'call-abandoned')) return;
          const events = new MessageEvents({ id: 'msg', model: 'm' });
          const sse =
            events.start() +
            batches.map((batch) => events.encode(batch)).join('') +
            events.finish(END);
          const whole = new MessageBuilder();
          for (const batch of read(protocol, [text])) whole.add(batch);
          const content = whole.build({ id: 'msg', model: 'm' }, END).content;
          const streamed = accumulateEvents(sse).filter(
            (block) =>
              (block as { type: string }).type !== 'text' ||
              (block as { text: string }).text.trim() !== '',
          );
          expect(streamed).toEqual(content);
        }),
        { numRuns: 150 },
      );
    });

    it('a rendered call is read back with its name and arguments, in both APIs', () => {
      const input = { path: 'a/"b".txt', content: 'line 1\n</tool_call> & <b>\n' };
      const text = `${reasoningFirst(protocol)}Writing it.\n${protocol.formatToolCall({ toolName: 'write_file', input })}`;
      const whole = new ChatCompletionBuilder();
      for (const batch of read(protocol, [text])) whole.add(batch);
      const message = whole.build({ id: 'c', model: 'm', created: 1 }, { ...END, calls: 1 })
        .choices[0].message;
      expect(message.tool_calls).toHaveLength(1);
      expect(message.tool_calls![0]!.function.name).toBe('write_file');
      expect(parseJsonText(message.tool_calls![0]!.function.arguments)).toEqual(input);
      expect(message.content?.trim()).toBe('Writing it.');
      const messages = new MessageBuilder();
      for (const batch of read(protocol, [text])) messages.add(batch);
      const content = messages.build({ id: 'msg', model: 'm' }, { ...END, calls: 1 }).content;
      const answer = reasoningFirst(protocol) === '' ? content : content.slice(1);
      if (answer !== content) expect(content[0]?.type).toBe('thinking');
      expect(answer.map((block) => block.type)).toEqual(['text', 'tool_use']);
      expect(answer[1]).toMatchObject({ name: 'write_file', input });
    });
  },
);

describe('the proxy writing a call it could not finish', () => {
  it('closes the started call and sends its raw text as content: nothing is lost', () => {
    const protocol = FORMATS.find((entry) => entry.name === 'hermes')!.create();
    const reader = new ReplyReader(protocol, { tools: TOOLS, generateId: counterIds() });
    const out: ReplyEvent[] = [];
    const raw =
      '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.txt", "content": "hal';
    reader.push(raw, out);
    reader.end(true, out);
    const types = out.map((event) => event.type);
    expect(types).toContain('call-start');
    expect(types).toContain('call-abandoned');
    expect(types).not.toContain('call-end');
    const text = out.flatMap((event) => (event.type === 'text' ? [event.delta] : [])).join('');
    expect(text).toBe(raw);
    const events = new MessageEvents({ id: 'msg', model: 'm' });
    const sse = events.start() + events.encode(out) + events.finish(END);
    const starts = sse.match(/content_block_start/g)!.length;
    expect(sse.match(/content_block_stop/g)!.length).toBe(starts);
  });
});
