/**
 * `auto` never lets one format read inside another's call (issue 20 section 1): once a format's
 * call has begun, its values are that format's, whatever markup they hold. A call of format A
 * whose string argument holds a call rendered by format B (`formatToolCall`) is read through
 * `auto` exactly as A reads it alone, at any chunking, and B's call never comes out of it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  autoProtocol,
  FORMATS,
  type ParseEvent,
  protocolByName,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../../src/index.ts';
import { counterIds, splitAt, TOOLS } from './helpers.ts';

const auto = autoProtocol();

/** A tool whose one parameter takes markup, so xml reads text written directly in its tag. */
const htmlTool: ToolDefinition = {
  name: 'html',
  inputSchema: {
    type: 'object',
    properties: { markup: { type: 'string' } },
    required: ['markup'],
  },
};
const tools = [htmlTool, ...TOOLS];

/** Every declared tool, with an input whose one string argument holds the given text. */
const CARRIERS: readonly [string, (text: string) => Record<string, unknown>][] = [
  ['html', (text) => ({ markup: text })],
  ['write_file', (text) => ({ path: 'a.txt', content: text })],
  ['get_weather', (text) => ({ city: text })],
  ['search', (text) => ({ query: text })],
  ['attempt_completion', (text) => ({ result: text })],
];

/** A call of each declared tool, to be rendered inside another format's value. */
const INNER_INPUTS: Readonly<Record<string, Record<string, unknown>>> = {
  html: { markup: '<b>hi</b>' },
  write_file: { path: 'b.txt', content: 'x' },
  get_weather: { city: 'Oslo', days: 2 },
  search: { query: 'tide' },
  attempt_completion: { result: 'done' },
};

type Read = [toolName: string, input: unknown] | [fault: 'error', code: string];

/** The calls and faults of `chunks` read by `protocol`. */
function readCalls(protocol: ToolCallProtocol, chunks: readonly string[]): Read[] {
  const parser = protocol.createStreamParser({ tools, generateId: counterIds() });
  const events: ParseEvent[] = [];
  for (const chunk of chunks) for (const event of parser.push(chunk)) events.push(event);
  for (const event of parser.end()) events.push(event);
  return events.flatMap((event): Read[] => {
    if (event.type === 'tool-call') return [[event.toolName, JSON.parse(event.input)]];
    if (event.type === 'error') return [['error', event.error.code]];
    return [];
  });
}

interface Nesting {
  readonly outer: string;
  readonly inner: string;
  readonly carrier: string;
  readonly innerTool: string;
  readonly text: string;
}

/**
 * For every pair of formats and every declared tool: a call of the outer format to that tool
 * whose string argument holds the inner format's call of another tool (each tool in turn).
 */
/** The formats auto reads by default (an entry may leave itself out: `inAuto: false`). */
const READ_BY_AUTO = FORMATS.filter((entry) => entry.inAuto !== false);

function nestings(): Nesting[] {
  const all: Nesting[] = [];
  const names = Object.keys(INNER_INPUTS);
  for (const outer of READ_BY_AUTO) {
    const outerProtocol = outer.create();
    for (const [index, inner] of READ_BY_AUTO.entries()) {
      const innerProtocol = inner.create();
      for (const [carrierIndex, [carrier, input]] of CARRIERS.entries()) {
        // Another tool than the carrier, so a call of it can only come from the value.
        const others = names.filter((name) => name !== carrier);
        const innerTool = others[(index + carrierIndex) % others.length]!;
        const shown = innerProtocol.formatToolCall({
          toolName: innerTool,
          input: INNER_INPUTS[innerTool]!,
        });
        all.push({
          outer: outer.name,
          inner: inner.name,
          carrier,
          innerTool,
          text: outerProtocol.formatToolCall({
            toolName: carrier,
            input: input(`Shown: ${shown} (end)`),
          }),
        });
      }
    }
  }
  return all;
}

const NESTINGS = nestings();
const OWN_READING = new Map(
  NESTINGS.map((nesting) => [
    nesting,
    JSON.stringify(readCalls(protocolByName(nesting.outer), [nesting.text])),
  ]),
);

describe('auto: a value of a call is its format’s, whatever markup it holds', () => {
  it.each(READ_BY_AUTO.map((entry) => [entry.name]))(
    '%s: a call holding any format’s call reads as it does alone, whole and a character at a time',
    (outer) => {
      for (const nesting of NESTINGS.filter((candidate) => candidate.outer === outer)) {
        const own = OWN_READING.get(nesting)!;
        const label = `${nesting.outer} holding ${nesting.inner}: ${JSON.stringify(nesting.text)}`;
        const whole = readCalls(auto, [nesting.text]);
        expect(JSON.stringify(whole), label).toBe(own);
        expect(JSON.stringify(readCalls(auto, [...nesting.text])), label).toBe(own);
        // The held call never comes out.
        expect(
          whole.some(([name]) => name === nesting.innerTool),
          label,
        ).toBe(false);
      }
    },
  );

  it('reads the same at any chunking', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...NESTINGS),
        fc.array(fc.nat(), { maxLength: 5 }),
        (nesting, cuts) => {
          expect(JSON.stringify(readCalls(auto, splitAt(nesting.text, cuts)))).toBe(
            OWN_READING.get(nesting),
          );
        },
      ),
      { numRuns: 400 },
    );
  });

  it('does not let xml read <html> in a MiniMax value as a call to html', () => {
    const text =
      '<minimax:tool_call>\n<invoke name="write_file">\n<parameter name="path">index.html</parameter>\n' +
      '<parameter name="content"><html><body>hi</body></html> done</parameter>\n</invoke>\n</minimax:tool_call>';
    for (const chunks of [[text], [...text]]) {
      expect(readCalls(auto, chunks)).toEqual([
        ['write_file', { path: 'index.html', content: '<html><body>hi</body></html> done' }],
      ]);
    }
  });
});
