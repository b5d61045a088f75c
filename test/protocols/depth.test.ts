/**
 * Nesting deeper than `maxDepth` (JSON or XML) is reported as `too-deep` with the raw text, for
 * every protocol and every way of parsing; nothing throws, however deep.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  executeProtocol,
  hermesProtocol,
  type ParseEvent,
  type ToolCallProtocol,
  type ToolDefinition,
  xmlProtocol,
} from '../../src/index.ts';
import { chunksOf, streamEvents } from './helpers.ts';

const dataTool: ToolDefinition = {
  name: 'store',
  inputSchema: {
    type: 'object',
    properties: { key: { type: 'string' }, data: {} },
    required: ['key'],
  },
};
const treeTool: ToolDefinition = {
  name: 'tree',
  inputSchema: {
    type: 'object',
    properties: { root: { type: 'object' } },
    required: ['root'],
  },
};
const tools = [dataTool, treeTool];

const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const elements = (depth: number) => `${'<a>'.repeat(depth)}x${'</a>'.repeat(depth)}`;

const CALLS: [string, ToolCallProtocol, (json: string) => string][] = [
  ['xml', xmlProtocol(), (json) => `<store>{"key": "k", "data": ${json}}</store>`],
  [
    'hermes',
    hermesProtocol(),
    (json) =>
      `<tool_call>{"name": "store", "arguments": {"key": "k", "data": ${json}}}</tool_call>`,
  ],
  [
    'execute',
    executeProtocol(),
    (json) => `<execute>[{"name": "store", "args": {"key": "k", "data": ${json}}}]</execute>`,
  ],
];

function outcome(events: readonly ParseEvent[]) {
  return {
    calls: events.filter((event) => event.type === 'tool-call'),
    errors: events.flatMap((event) => (event.type === 'error' ? [event.error] : [])),
  };
}

describe.each(CALLS)('%s: nesting depth', (_name, protocol, call) => {
  it.each([
    ['arrays', arrays],
    ['objects', objects],
  ])('reports JSON %s 100,000 deep as too-deep, whole and streamed', (_kind, nest) => {
    const text = call(nest(100_000));
    for (const chunks of [[text], chunksOf(text, 4096)]) {
      const { calls, errors } = outcome(streamEvents(protocol, chunks, { tools }));
      expect(calls).toEqual([]);
      expect(errors.map((error) => error.code)).toEqual(['too-deep']);
      expect(errors[0]!.raw).toBe(text);
      expect(errors[0]!.message).toMatch(/maxDepth|deeper/);
    }
    expect(() => protocol.parseGeneratedText(text, { tools })).not.toThrow();
  });

  it('reads nesting up to maxDepth and reports one level more', () => {
    const within = outcome(streamEvents(protocol, [call(arrays(9))], { tools, maxDepth: 12 }));
    expect(within.calls).toHaveLength(1);
    expect(within.errors).toEqual([]);
    const beyond = outcome(streamEvents(protocol, [call(arrays(20))], { tools, maxDepth: 12 }));
    expect(beyond.calls).toEqual([]);
    expect(beyond.errors.map((error) => error.code)).toEqual(['too-deep']);
  });

  it('reads the default depth of 1,000 (a value nested 990 deep)', () => {
    const { calls, errors } = outcome(streamEvents(protocol, [call(arrays(990))], { tools }));
    expect(errors).toEqual([]);
    expect(calls).toHaveLength(1);
  });

  it('does not throw when the deep JSON is cut off', () => {
    const text = call(arrays(100_000)).slice(0, 150_000);
    const { calls, errors } = outcome(streamEvents(protocol, chunksOf(text, 1000), { tools }));
    expect(calls).toEqual([]);
    expect(errors).toHaveLength(1);
  });
});

describe('xml: nested elements', () => {
  it('reports elements nested 100,000 deep in a held value as too-deep', () => {
    const text = `<tree><root>${elements(100_000)}</root></tree>`;
    for (const chunks of [[text], chunksOf(text, 4096)]) {
      const { calls, errors } = outcome(streamEvents(xmlProtocol(), chunks, { tools }));
      expect(calls).toEqual([]);
      expect(errors.map((error) => error.code)).toEqual(['too-deep']);
      expect(errors[0]!.raw).toBe(text);
    }
  });

  it('reads elements nested within maxDepth', () => {
    const text = `<tree><root>${elements(5)}</root></tree>`;
    const { calls } = outcome(streamEvents(xmlProtocol(), [text], { tools, maxDepth: 10 }));
    expect(calls).toHaveLength(1);
  });

  it('takes a string value nested any depth as text: nothing is built from it', () => {
    const text = `<store><key>${elements(50_000)}</key></store>`;
    const { calls, errors } = outcome(streamEvents(xmlProtocol(), [text], { tools }));
    expect(errors).toEqual([]);
    expect(JSON.parse(calls[0]!.input).key).toBe(elements(50_000));
  });
});

describe('total at any depth', () => {
  it('never throws for nesting of any kind up to 100,000 levels, in any protocol', () => {
    const nesting = fc
      .tuple(
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom('[', '{"a":', '{', "['", '<a>', '<![CDATA['),
        fc.boolean(),
      )
      .map(([depth, opener, closed]) => {
        const close = opener === '<a>' ? '</a>' : opener.startsWith('{') ? '}' : ']';
        return opener.repeat(depth) + (closed ? close.repeat(depth) : '');
      });
    fc.assert(
      fc.property(nesting, fc.integer({ min: 1, max: 5000 }), (nested, chunk) => {
        for (const [, protocol, call] of CALLS) {
          for (const text of [call(nested), `<tree><root>${nested}</root></tree>`, nested]) {
            expect(() => streamEvents(protocol, chunksOf(text, chunk), { tools })).not.toThrow();
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
