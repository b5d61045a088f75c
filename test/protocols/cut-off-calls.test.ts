/**
 * A call still open at the end of the output is completed only when nothing but its own closing
 * markup is missing; one cut inside a value, a key or the JSON is reported (`incomplete-call`)
 * with its raw text and never run. An interrupted output (length limit) runs no open call.
 */
import { describe, expect, it } from 'vitest';
import {
  executeProtocol,
  FORMATS,
  hermesProtocol,
  type ToolCallProtocol,
  xmlProtocol,
} from '../../src/index.ts';
import { contentAtEverySplit, weatherTool, writeFileTool } from './helpers.ts';

const tools = [weatherTool, writeFileTool];

type Part = {
  type: string;
  text?: string;
  toolName?: string;
  input?: string;
  error?: { code: string; raw: string; message: string };
};

function outcome(protocol: ToolCallProtocol, text: string, interrupted = false) {
  const content = contentAtEverySplit(protocol, text, { tools }, { interrupted }) as Part[];
  const calls = content.filter((part) => part.type === 'tool-call');
  const errors = content.filter((part) => part.type === 'error').map((part) => part.error!);
  return { calls, errors, content };
}

const CASES: [string, ToolCallProtocol, { complete: string[]; cut: string[] }][] = [
  [
    'xml',
    xmlProtocol(),
    {
      complete: [
        '<get_weather><city>Oslo</city>',
        '<get_weather><city>Oslo</city>\n',
        '<get_weather>\n<city>Oslo</city>\n</get_w',
        '<get_weather><city>Oslo</city><days>2</days></get_weather',
      ],
      cut: [
        '<get_weather><city>Osl',
        '<get_weather><city>Oslo</ci',
        '<get_weather><city>Oslo</city><da',
        '<get_weather><city>Oslo</city><days>2',
        '<write_file><path>a.ts</path><content>export const a = 1;\nexport',
        '<write_file><path>a.ts</path><content><![CDATA[export',
        '<get_weather>{"city": "Os',
      ],
    },
  ],
  [
    'hermes',
    hermesProtocol(),
    {
      complete: [
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_ca',
        "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Oslo'}}",
      ],
      cut: [
        '<tool_call>{"name":"get_weather","argu',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Os',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}',
        "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Os",
        '{"name": "get_weather", "arguments": {"city": "Os',
        '```json\n{"name": "get_weather", "arguments": {"city": "Os',
      ],
    },
  ],
  [
    'execute',
    executeProtocol(),
    {
      complete: ['<execute>[{"name": "get_weather", "args": {"city": "Oslo"}}]'],
      cut: [
        '<execute>[{"name": "get_weather", "args": {"city": "Os',
        '<execute>[{"name":"get_weather","ar',
      ],
    },
  ],
];

describe.each(CASES)('%s: cut-off calls', (_name, protocol, { complete, cut }) => {
  it.each(complete)('completes a call missing only its closing markup: %s', (text) => {
    const { calls, errors } = outcome(protocol, text);
    expect(errors).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.input!)).toMatchObject({ city: 'Oslo' });
  });

  it.each(cut)('reports a call cut inside a value, key or JSON, with its raw text: %s', (text) => {
    const { calls, errors, content } = outcome(protocol, text);
    expect(calls).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.code).toBe('incomplete-call');
    expect(text.endsWith(errors[0]!.raw)).toBe(true);
    expect(errors[0]!.raw.length).toBeGreaterThan(0);
    // Nothing lost: the raw text is shown as text too, by default.
    expect(
      content
        .filter((part) => part.type === 'text')
        .map((part) => part.text)
        .join(''),
    ).toBe(text);
  });

  it.each(complete)('runs no open call when the output was interrupted: %s', (text) => {
    const { calls, errors } = outcome(protocol, text, true);
    expect(calls).toEqual([]);
    expect(errors.map((error) => error.code)).toEqual(['incomplete-call']);
  });
});

describe('cut-off calls in batches and after whole calls', () => {
  it('keeps the calls of a batch that closed before the cut and reports the cut one', () => {
    const text =
      '<execute>[{"name": "get_weather", "args": {"city": "Oslo"}}, {"name": "get_weather", "args": {"city": "Be';
    const { calls, errors } = outcome(executeProtocol(), text);
    expect(calls.map((call) => JSON.parse(call.input!))).toEqual([{ city: 'Oslo' }]);
    expect(errors).toMatchObject([{ code: 'incomplete-call' }]);
    expect(errors[0]!.raw).toBe('{"name": "get_weather", "args": {"city": "Be');
  });

  it('runs a closed call before a cut one, whatever the end', () => {
    const text = '<get_weather><city>Oslo</city></get_weather>\n<get_weather><city>Ber';
    const { calls, errors } = outcome(xmlProtocol(), text, true);
    expect(calls).toHaveLength(1);
    expect(errors.map((error) => error.code)).toEqual(['incomplete-call']);
  });

  it('does not take a hermes call cut inside its name for a call to a shorter tool', () => {
    const tools2 = [
      { name: 'say', inputSchema: { type: 'object' } },
      { name: 'say_hello', inputSchema: { type: 'object' } },
    ];
    const text = '<tool_call>{"name": "say';
    const content = contentAtEverySplit(hermesProtocol(), text, { tools: tools2 }) as Part[];
    expect(content.some((part) => part.type === 'tool-call')).toBe(false);
  });
});

describe('a started call that never comes out is named by its fault', () => {
  // A reader that streamed the call's start (the proxy, a UI) must learn which call failed.
  it.each(FORMATS.map((entry) => [entry.name, entry.create()] as const))(
    '%s: every tool-input-start without its tool-call has a fault with its id',
    (_name, protocol) => {
      const content = 'x'.repeat(40);
      const text = protocol.formatToolCall({
        toolName: 'write_file',
        input: { path: 'a', content },
      });
      const inside = text.indexOf(content) + 20;
      for (const cut of [inside, text.length - 1]) {
        const parser = protocol.createStreamParser({ tools });
        const events = [...parser.push(text.slice(0, cut)), ...parser.end({ interrupted: true })];
        const started = events.flatMap((event) =>
          event.type === 'tool-input-start' ? [event.id] : [],
        );
        const completed = new Set(
          events.flatMap((event) => (event.type === 'tool-call' ? [event.toolCallId] : [])),
        );
        const named = new Set(
          events.flatMap((event) =>
            event.type === 'error' && event.error.toolCallId !== undefined
              ? [event.error.toolCallId]
              : [],
          ),
        );
        for (const id of started)
          if (!completed.has(id)) expect(named.has(id), `cut at ${cut}`).toBe(true);
      }
    },
  );
});
