/**
 * The engine's event sink: with one, each event goes to it as it is emitted (joined deltas
 * included) and `push`/`end` return none; `parseGeneratedText` folds the events so, keeping no
 * list of every event to the end of a whole text (what made 100k calls cost 17x 10k).
 */
import { describe, expect, it } from 'vitest';
import type { ParseEvent } from '../../../src/core/index.ts';
import { FORMATS, protocolByName } from '../../../src/index.ts';
import { grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import type { CallBody } from '../../../src/protocols/engine/call-body.ts';
import { ContentFolder, collectContent } from '../../../src/protocols/engine/collect-content.ts';
import {
  createStreamEngine,
  type ProtocolGrammar,
} from '../../../src/protocols/engine/stream-engine.ts';
import { counterIds, TOOLS } from '../helpers.ts';

const CALLS = [
  { toolName: 'get_weather', input: { city: 'Paris', days: 2 } },
  { toolName: 'search', input: { query: 'a "quoted" query' } },
];

/** Text, two calls and text again, in `name`'s own markup. */
function sampleText(name: string): string {
  const protocol = protocolByName(name);
  return [
    'Let me look.\n',
    protocol.formatToolCall(CALLS[0]!),
    '\nand then\n',
    protocol.formatToolCall(CALLS[1]!),
    '\nthat is all',
  ].join('');
}

function eventsWithoutSink(name: string, chunks: readonly string[]): ParseEvent[] {
  const grammar = grammarOf(protocolByName(name))!;
  const parser = createStreamEngine(grammar, { tools: TOOLS, generateId: counterIds() });
  const events: ParseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());
  return events;
}

function eventsThroughSink(name: string, chunks: readonly string[], withoutInputStream = false) {
  const grammar = grammarOf(protocolByName(name))!;
  const sunk: ParseEvent[] = [];
  const parser = createStreamEngine(
    grammar,
    { tools: TOOLS, generateId: counterIds() },
    undefined,
    name,
    { sink: (event) => sunk.push(event), withoutInputStream },
  );
  const returned: ParseEvent[] = [];
  for (const chunk of chunks) returned.push(...parser.push(chunk));
  returned.push(...parser.end());
  return { sunk, returned };
}

const SPEC_FORMATS = FORMATS.map((entry) => entry.name).filter(
  (name) => grammarOf(protocolByName(name)) !== undefined,
);

describe('an engine with a sink', () => {
  it.each(SPEC_FORMATS)('%s: the sink gets the events push and end return without one', (name) => {
    const text = sampleText(name);
    for (const size of [text.length, 7, 1]) {
      const chunks: string[] = [];
      for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
      const { sunk, returned } = eventsThroughSink(name, chunks);
      expect(returned).toEqual([]);
      expect(sunk).toEqual(eventsWithoutSink(name, chunks));
    }
  });

  it('hands each event on before the next call is read, not at the end of the push', () => {
    const sunk: ParseEvent[] = [];
    const callsSunkAtOpen: number[] = [];
    const grammar: ProtocolGrammar<undefined> = {
      callOpeners: () => OPENERS,
      reasoningTags: [],
      openCall: (_data, context): CallBody => {
        callsSunkAtOpen.push(sunk.filter((event) => event.type === 'tool-call').length);
        return {
          write(text, start, end) {
            const close = text.indexOf(']', start);
            if (close === -1 || close >= end) return -1;
            context.emit({
              type: 'tool-call',
              toolCallId: context.options.generateId(),
              toolName: 'get_weather',
              input: JSON.stringify({ city: text.slice(start, close) }),
            });
            context.settle({ kind: 'call' });
            return close + 1;
          },
          finish: () => context.settle({ kind: 'not-a-call' }),
          abandon: () => {},
        };
      },
    };
    const parser = createStreamEngine(grammar, { tools: TOOLS }, undefined, 'test', {
      sink: (event) => sunk.push(event),
    });
    parser.push('a [Paris] b [Lima] c [Oslo] d');
    // The first call was handed on before the second opened, the second before the third.
    expect(callsSunkAtOpen).toEqual([0, 1, 2]);
    parser.end();
    expect(sunk.filter((event) => event.type === 'tool-call')).toHaveLength(3);
  });

  it.each(SPEC_FORMATS)(
    '%s: without the input stream, the same events but tool-input-*',
    (name) => {
      const text = `${sampleText(name)}\n${protocolByName(name).formatToolCall(CALLS[0]!).slice(0, -3)}`;
      for (const size of [text.length, 5]) {
        const chunks: string[] = [];
        for (let at = 0; at < text.length; at += size) chunks.push(text.slice(at, at + size));
        const { sunk } = eventsThroughSink(name, chunks, true);
        const all = eventsWithoutSink(name, chunks);
        expect(sunk).toEqual(all.filter((event) => !event.type.startsWith('tool-input-')));
        expect(sunk.filter((event) => event.type === 'tool-call').length).toBeGreaterThan(0);
      }
    },
  );

  it('without the input stream, a call in reasoning still ends the reasoning block it stands in', () => {
    // kimi-k2's section token is read inside reasoning; the block's parts stay apart.
    const text =
      '<think>plan<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city":"Oslo"}<|tool_call_end|><|tool_calls_section_end|>more</think>done';
    const { sunk } = eventsThroughSink('kimi-k2', [text], true);
    expect(sunk.map((event) => event.type)).toEqual([
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'tool-call',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'text-start',
      'text-delta',
      'text-end',
    ]);
    expect(sunk).toEqual(
      eventsWithoutSink('kimi-k2', [text]).filter((event) => !event.type.startsWith('tool-input-')),
    );
  });

  it('joins deltas that follow each other within one push, as without a sink', () => {
    // Each `<` here begins no call: it is text, and a push's text is one delta.
    const { sunk } = eventsThroughSink('hermes', ['a<b<c<d', '<e']);
    expect(sunk.filter((event) => event.type === 'text-delta')).toEqual(
      eventsWithoutSink('hermes', ['a<b<c<d', '<e']).filter((event) => event.type === 'text-delta'),
    );
    expect(sunk.filter((event) => event.type === 'text-delta').length).toBeLessThanOrEqual(3);
  });
});

const OPENERS = [{ literal: '[', delimited: false, data: undefined }] as const;

describe('parseGeneratedText', () => {
  it.each(SPEC_FORMATS)('%s: folds the same parts as collecting every event first', (name) => {
    const text = sampleText(name);
    const parts = protocolByName(name).parseGeneratedText(text, {
      tools: TOOLS,
      generateId: counterIds(),
    });
    // Through the protocol's own stream parser: some protocols set options (startInReasoning).
    const parser = protocolByName(name).createStreamParser({
      tools: TOOLS,
      generateId: counterIds(),
    });
    const events = [...parser.push(text), ...parser.end()];
    expect(parts).toEqual(collectContent(events));
  });

  it('a ContentFolder fed one event at a time gives what collectContent gives', () => {
    const events = eventsWithoutSink('hermes', [sampleText('hermes')]);
    const folder = new ContentFolder();
    for (const event of events) folder.take(event);
    expect(folder.content()).toEqual(collectContent(events));
    expect(folder.content().filter((part) => part.type === 'tool-call')).toHaveLength(2);
  });
});
