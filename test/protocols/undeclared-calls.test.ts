/**
 * A call of a tool the request did not declare, written inside a parameter-tag block, is text,
 * all of it through its closer: nothing in its values is read again, by its own format or by
 * `auto`. Its values may hold another format's call or a page of HTML (issue 20 section 1: xml
 * read an `<html>` inside a MiniMax parameter value as a call to `html`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  autoProtocol,
  type ParseEvent,
  protocolByName,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../../src/index.ts';
import { deepseekProtocol } from '../../src/protocols/deepseek/index.ts';
import { splitAt, streamEvents, TOOLS } from './helpers.ts';

const htmlTool: ToolDefinition = {
  name: 'html',
  inputSchema: { type: 'object', properties: { markup: { type: 'string' } }, required: ['markup'] },
};
const tools = [htmlTool, ...TOOLS];

/** Calls of declared tools, in several formats, that an undeclared call's value may hold. */
const INNER = [
  '<html>hello</html>',
  protocolByName('hermes').formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } }),
  protocolByName('xml').formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } }),
  protocolByName('minimax').formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } }),
];

const FORMATS: [string, ToolCallProtocol][] = [
  ['minimax', protocolByName('minimax')],
  ['qwen3-coder', protocolByName('qwen3-coder')],
  ['seed-oss', protocolByName('seed-oss')],
  ['glm', protocolByName('glm')],
  ['deepseek v3.2', deepseekProtocol({ version: 'v3.2' })],
];

function readings(protocol: ToolCallProtocol, chunks: readonly string[]) {
  const events = streamEvents(protocol, chunks, { tools });
  return {
    calls: events.filter((event) => event.type === 'tool-call').map((event) => event.toolName),
    started: events.some((event) => event.type === 'tool-input-start'),
    text: events
      .filter((event): event is Extract<ParseEvent, { type: 'text-delta' }> => {
        return event.type === 'text-delta';
      })
      .map((event) => event.delta)
      .join(''),
  };
}

describe.each(FORMATS)(
  '%s: an undeclared tool’s call is text through its closer',
  (_name, format) => {
    for (const reader of [
      ['alone', format],
      ['through auto', autoProtocol()],
    ] as const) {
      it(`${reader[0]}: nothing in its values is read, at any split`, () => {
        for (const inner of INNER) {
          const call = format.formatToolCall({
            toolName: 'publish_page',
            input: { body: `Page: ${inner} end` },
          });
          const output = `Publishing.\n${call}\nDone.`;
          fc.assert(
            fc.property(fc.array(fc.nat({ max: output.length }), { maxLength: 4 }), (points) => {
              const read = readings(reader[1], splitAt(output, points));
              expect(read).toEqual({ calls: [], started: false, text: output });
            }),
            { numRuns: 40 },
          );
        }
      });
    }

    it('a declared call after it in the same output still runs', () => {
      const undeclared = format.formatToolCall({
        toolName: 'publish_page',
        input: { body: INNER[0]! },
      });
      const declared = format.formatToolCall({ toolName: 'get_weather', input: { city: 'Rome' } });
      const output = `${undeclared}\n${declared}`;
      for (const protocol of [format, autoProtocol()]) {
        const read = readings(protocol, [output]);
        expect(read.calls).toEqual(['get_weather']);
        expect(read.text).toContain(undeclared);
      }
    });
  },
);

/** Formats whose calls may be written without their block, with the block's markup to strip. */
const BARE: [string, ToolCallProtocol, readonly string[]][] = [
  ['minimax', protocolByName('minimax'), ['<minimax:tool_call>', '</minimax:tool_call>']],
  ['qwen3-coder', protocolByName('qwen3-coder'), ['<tool_call>', '</tool_call>']],
  ['seed-oss', protocolByName('seed-oss'), ['<seed:tool_call>', '</seed:tool_call>']],
];

describe.each(BARE)(
  '%s: an undeclared tool’s call written without its block',
  (_n, format, block) => {
    const bareCall = (toolName: string, input: Record<string, unknown>) => {
      let text = format.formatToolCall({ toolName, input });
      for (const markup of block) text = text.replace(markup, '');
      return text.trim();
    };

    it('is text through its closer when a parameter follows its header, alone and through auto', () => {
      for (const inner of INNER) {
        const output = `Publishing.\n${bareCall('publish_page', { body: `Page: ${inner} end` })}\nDone.`;
        for (const protocol of [format, autoProtocol()]) {
          fc.assert(
            fc.property(fc.array(fc.nat({ max: output.length }), { maxLength: 4 }), (points) => {
              expect(readings(protocol, splitAt(output, points))).toEqual({
                calls: [],
                started: false,
                text: output,
              });
            }),
            { numRuns: 25 },
          );
        }
      }
    });

    it('is a mention when prose follows its header, and a declared bare call still runs', () => {
      const header = bareCall('publish_page', { body: 'x' }).split('\n')[0]!.replace(/>.*$/, '>');
      const mention = `Use ${header} to publish, then ${bareCall('get_weather', { city: 'Rome' })}`;
      const read = readings(format, [mention]);
      expect(read.calls).toEqual(['get_weather']);
      expect(read.text).toContain(`Use ${header} to publish, then `);
    });
  },
);

/** Formats whose calls name their tool in a header before JSON arguments. */
const NAMED_JSON: [string, ToolCallProtocol][] = [
  ['kimi-k2', protocolByName('kimi-k2')],
  ['deepseek', protocolByName('deepseek')],
  ['gpt-oss', protocolByName('gpt-oss')],
];

/** Calls other formats read inside text: a Python list, Mistral's array, a hermes call. */
const INNER_JSON_SAFE = [
  "[get_weather(city='Oslo')]",
  '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
  ...INNER,
];

describe.each(NAMED_JSON)('%s: an undeclared tool’s JSON arguments are text', (_n, format) => {
  it('nothing in them is read, alone or through auto, at any split', () => {
    for (const inner of INNER_JSON_SAFE) {
      const call = format.formatToolCall({
        toolName: 'publish_page',
        input: { body: `Page: ${inner} end` },
      });
      for (const protocol of [format, autoProtocol()]) {
        fc.assert(
          fc.property(fc.array(fc.nat({ max: call.length }), { maxLength: 4 }), (points) => {
            const read = readings(protocol, splitAt(call, points));
            expect({ calls: read.calls, started: read.started }).toEqual({
              calls: [],
              started: false,
            });
          }),
          { numRuns: 25 },
        );
      }
    }
  });
});

describe.each([
  ['mistral', protocolByName('mistral')],
  ['functiongemma', protocolByName('functiongemma')],
] as const)('%s: an undeclared tool’s call is text through its end', (_n, format) => {
  it('nothing in its arguments is read, alone or through auto, at any split', () => {
    for (const inner of INNER_JSON_SAFE) {
      const call = format.formatToolCall({
        toolName: 'publish_page',
        input: { body: `Page: ${inner} end` },
      });
      const output = `Publishing. ${call}`;
      for (const protocol of [format, autoProtocol()]) {
        fc.assert(
          fc.property(fc.array(fc.nat({ max: output.length }), { maxLength: 4 }), (points) => {
            const read = readings(protocol, splitAt(output, points));
            expect({ calls: read.calls, started: read.started }).toEqual({
              calls: [],
              started: false,
            });
          }),
          { numRuns: 25 },
        );
      }
    }
  });
});
