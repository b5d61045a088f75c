/**
 * Before Gemma 4 is registered, the rule "a tool result can never be read back as a call" held
 * for its parser against every registered format: the results each format writes for a reader of
 * every format (prompt-safe JSON bodies), and its own results when they are JSON, are read by
 * Gemma 4's parser as no call, whatever they hold (Gemma 4's calls, its fallbacks, every
 * format's calls as they write them).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolResponseToFormat } from '../../../src/core/index.ts';
import { FORMATS } from '../../../src/index.ts';
import { formatResultsForAnyReader } from '../../../src/protocols/define/define-protocol.ts';
import { gemma4Protocol } from '../../../src/protocols/formats/gemma4.ts';
import { streamEvents, TOOLS } from '../helpers.ts';

const gemma = gemma4Protocol();
const renderers = [...FORMATS.map((entry) => entry.create()), gemma];

const CALLS = renderers.map((protocol) =>
  protocol.formatToolCall([
    { toolName: 'get_weather', input: { city: 'Oslo', days: 7 } },
    { toolName: 'write_file', input: { path: 'a.txt', content: 'hi' } },
  ]),
);

const GEMMA4_MARKUP = [
  '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>',
  '<|tool_call>:call:get_weather{city:<|"|>Oslo<|"|>}',
  'call:get_weather{city:<|"|>Oslo<|"|>}',
  'call:get_weather{city:Oslo}',
  'call:get_weather{}',
  '<call>get_weather{city:Oslo}',
  '<|tool_call>call:get_weather(city="Oslo")',
  'call:get_weather(city="Oslo")',
  '```tool_code\nget_weather(city="Oslo")\n```',
];

const piece = fc.constantFrom(...GEMMA4_MARKUP, ...CALLS, 'call:', 'get_weather', '{', '\n', ' ');
const text = fc.array(piece, { maxLength: 5 }).map((pieces) => pieces.join(''));
const output = fc.oneof(
  text,
  fc.dictionary(fc.oneof(text, fc.constantFrom('value', 'name')), text, { maxKeys: 2 }),
  fc.array(text, { maxLength: 2 }),
);
const result: fc.Arbitrary<ToolResponseToFormat> = fc.record({
  toolCallId: fc.oneof(fc.constant('call_1'), text),
  toolName: fc.oneof(fc.constantFrom('get_weather', 'write_file'), text),
  output,
  isError: fc.boolean(),
});

function readsACall(rendered: string): boolean {
  return streamEvents(gemma, [rendered], { tools: TOOLS }).some(
    (event) => event.type === 'tool-input-start' || event.type === 'tool-call',
  );
}

describe("Gemma 4's parser reads no call in any format's results", () => {
  it.each(renderers.map((protocol) => [protocol.name, protocol] as const))(
    '%s',
    (_name, protocol) => {
      fc.assert(
        fc.property(fc.array(result, { minLength: 1, maxLength: 2 }), (results) => {
          const rendered = formatResultsForAnyReader(protocol, results);
          expect({ rendered, read: readsACall(rendered) }).toEqual({ rendered, read: false });
        }),
        { numRuns: 60 },
      );
    },
  );
});

describe("no format's parser reads a call in Gemma 4's results for a reader of every format", () => {
  const parsers = FORMATS.map((entry) => entry.create());
  it('whatever they hold', () => {
    fc.assert(
      fc.property(fc.array(result, { minLength: 1, maxLength: 2 }), (results) => {
        const rendered = formatResultsForAnyReader(gemma, results);
        const readBy = parsers
          .filter((parser) =>
            streamEvents(parser, [rendered], { tools: TOOLS }).some(
              (event) => event.type === 'tool-input-start' || event.type === 'tool-call',
            ),
          )
          .map((parser) => parser.name);
        expect({ rendered, readBy }).toEqual({ rendered, readBy: [] });
      }),
      { numRuns: 100 },
    );
  });
});
