/**
 * The stream engine on its own, with a scripted grammar: calls are `<<NAME ARGS>>` (a `!` in
 * them is a fault), reasoning is `<think>…</think>`. What the engine owes every format: text,
 * reasoning and calls told apart the same way however the output is chunked, openers cut by a
 * chunk's end held back, faults reported with their raw text, the call size cap, calls cut off
 * by the end of the output, where calls start and end, and work linear in the text.
 */
import { describe, expect, it } from 'vitest';
import type { ParseEvent, ParseOptions } from '../../../src/core/index.ts';
import type { CallBody, CallContext } from '../../../src/protocols/engine/call-body.ts';
import {
  checkLiterals,
  createStreamEngine,
  type ProtocolGrammar,
} from '../../../src/protocols/engine/stream-engine.ts';
import { expectLinearEngineWork } from '../../support/growth.ts';
import { contentOf, counterIds } from '../helpers.ts';

/** `<<NAME ARGS>>`: a call of NAME whose input is `{"args": ARGS}`. */
function angleBody(context: CallContext): CallBody {
  let read = '';
  let previous = '';
  return {
    write(text, start, end) {
      for (let index = start; index < end; index++) {
        const char = text[index]!;
        read += char;
        // The last two characters, not `read.endsWith`: that flattens the string every time.
        const closes = previous === '>' && char === '>';
        previous = char;
        if (!closes) continue;
        const inside = read.slice(0, -2);
        if (inside.includes('!')) {
          context.settle({ kind: 'fault', code: 'malformed-call', message: 'a ! in a call' });
        } else {
          const [name = '', ...args] = inside.split(' ');
          context.emit({
            type: 'tool-call',
            toolCallId: context.options.generateId(),
            toolName: name,
            input: JSON.stringify({ args: args.join(' ') }),
          });
          context.settle({ kind: 'call' });
        }
        return index + 1;
      }
      return -1;
    },
    finish() {
      context.settle({ kind: 'fault', code: 'incomplete-call', message: 'cut off' });
    },
    abandon() {},
  };
}

const OPENERS = [{ literal: '<<', delimited: false, data: undefined }] as const;
const grammar: ProtocolGrammar<undefined> = {
  callOpeners: () => OPENERS,
  openCall: (_data, context) => angleBody(context),
  reasoningTags: [{ open: '<think>', close: '</think>' }],
};

function parse(chunks: readonly string[], options: Partial<ParseOptions> = {}) {
  const spans: [number, number][] = [];
  const parser = createStreamEngine(
    grammar,
    { tools: [], generateId: counterIds(), ...options },
    (start, end) => spans.push([start, end]),
    'angle',
  );
  const events: ParseEvent[] = [];
  for (const chunk of chunks) for (const event of parser.push(chunk)) events.push(event);
  for (const event of parser.end()) events.push(event);
  return { events, content: contentOf(events), spans };
}

/** The text whole, one character a push, and cut in two at every place. */
function cuts(text: string): string[][] {
  const all = [[text], [...text]];
  for (let at = 1; at < text.length; at++) all.push([text.slice(0, at), text.slice(at)]);
  return all;
}

const TEXT = 'Look: <<read a.txt>> then <think>maybe <<skip>></think>done.';

describe('the stream engine', () => {
  it('tells text, reasoning and calls apart the same way however the output is chunked', () => {
    const whole = parse([TEXT]);
    expect(whole.content).toEqual([
      { type: 'text', text: 'Look: ' },
      { type: 'tool-call', toolName: 'read', input: '{"args":"a.txt"}' },
      { type: 'text', text: ' then ' },
      // Inside reasoning an opener is the model thinking about a call, not a call.
      { type: 'reasoning', text: 'maybe <<skip>>' },
      { type: 'text', text: 'done.' },
    ]);
    for (const chunks of cuts(TEXT))
      expect(parse(chunks).content, chunks.join('|')).toEqual(whole.content);
  });

  it('reports where each call starts and ends, in offsets of the whole output', () => {
    for (const chunks of cuts(TEXT)) {
      const start = TEXT.indexOf('<<read');
      expect(parse(chunks).spans, chunks.join('|')).toEqual([
        [start, start + '<<read a.txt>>'.length],
      ]);
    }
  });

  it('holds back an opener cut by the end of a push, and gives it back when it was not one', () => {
    const parser = createStreamEngine(grammar, { tools: [], generateId: counterIds() });
    const first = parser.push('a <');
    const deltas = (events: readonly ParseEvent[]) =>
      events.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('');
    expect(deltas(first)).toBe('a ');
    expect(deltas(parser.push('b'))).toBe('<b');
  });

  it('reports a faulty call with its raw text, as text too unless told not to', () => {
    const text = 'x <<bad ! call>> y';
    expect(parse([text]).content).toEqual([
      { type: 'text', text: 'x ' },
      {
        type: 'error',
        error: expect.objectContaining({ code: 'malformed-call', raw: '<<bad ! call>>' }),
      },
      { type: 'text', text: '<<bad ! call>> y' },
    ]);
    expect(parse([text], { emitRawTextOnError: false }).content).toEqual([
      { type: 'text', text: 'x ' },
      { type: 'error', error: expect.objectContaining({ raw: '<<bad ! call>>' }) },
      { type: 'text', text: ' y' },
    ]);
  });

  it('settles a call cut off by the end of the output as incomplete', () => {
    for (const chunks of cuts('go <<read a')) {
      expect(parse(chunks).content, chunks.join('|')).toEqual([
        { type: 'text', text: 'go ' },
        {
          type: 'error',
          error: expect.objectContaining({ code: 'incomplete-call', raw: '<<read a' }),
        },
        { type: 'text', text: '<<read a' },
      ]);
    }
  });

  it('abandons a call longer than maxCallChars and reads the rest as text', () => {
    const long = `<<${'x'.repeat(100)}>> after`;
    const { content } = parse([long], { maxCallChars: 20 });
    expect(content.filter((part) => (part as { type: string }).type === 'tool-call')).toEqual([]);
    expect(content).toContainEqual({
      type: 'error',
      error: expect.objectContaining({ message: expect.stringContaining('maxCallChars (20') }),
    });
    const text = content
      .map((part) => (part as { type: string; text?: string }).text ?? '')
      .join('');
    expect(text).toContain(' after');
  });

  it('refuses an empty opener or reasoning tag, naming the format', () => {
    expect(() => checkLiterals('angle', [{ literal: '', delimited: false, data: 0 }], [])).toThrow(
      "angle: a call opener's literal is empty",
    );
    expect(() => checkLiterals('angle', [], [{ open: '<t>', close: '' }])).toThrow(
      'angle: a reasoning tag has an empty closing literal',
    );
  });

  it('does work linear in the text: openers that fail, calls, and reasoning', () => {
    const run = (text: string) => parse([text]);
    expectLinearEngineWork((count) => '< <x '.repeat(count), run, 1_000);
    expectLinearEngineWork((count) => '<<f a>> text '.repeat(count), run, 1_000);
    expectLinearEngineWork((count) => `<think>${'<< </thin '.repeat(count)}`, run, 1_000);
  });
});
