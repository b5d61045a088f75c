/**
 * `auto`: every registered format read from the text alone, the same as through its own
 * protocol, whatever the chunking; formats that share an opener told apart by what follows.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  autoProtocol,
  FORMATS,
  formatEntry,
  hermesProtocol,
  protocolByName,
  xmlProtocol,
} from '../../src/index.ts';
import {
  callsOf,
  contentAtEverySplit,
  contentOf,
  splitAt,
  streamEvents,
  TOOLS,
  weatherTool,
} from './helpers.ts';

const auto = autoProtocol();

describe('auto reads each format as its own protocol does', () => {
  for (const entry of FORMATS.filter((format) => format.inAuto !== false)) {
    it(`${entry.name}: a call and a batch, at every split`, () => {
      const named = entry.create();
      const text = `Checking.\n${named.formatToolCall({
        toolName: 'get_weather',
        input: { city: 'Oslo', days: 3 },
      })}\nand\n${named.formatToolCall([
        { toolName: 'get_weather', input: { city: 'Lima' } },
        { toolName: 'search', input: { query: 'tide "tables"' } },
      ])}`;
      // auto reads from text; a format whose template opens reasoning is compared reading from text too.
      const expected = contentOf(
        streamEvents(named, [text], { tools: TOOLS, startInReasoning: false }),
      );
      const calls = expected.filter((part) => (part as { type: string }).type === 'tool-call');
      expect(calls.length).toBeGreaterThanOrEqual(2);
      expect(contentAtEverySplit(auto, text, { tools: TOOLS })).toEqual(expected);
    });
  }
});

describe('auto: shared openers', () => {
  it('reads JSON, a Qwen3-Coder function or a GLM name after <tool_call> by what follows', () => {
    for (const text of [
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>',
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>',
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>',
    ]) {
      expect(contentAtEverySplit(auto, text, { tools: [weatherTool] }), text).toEqual([
        { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
      ]);
    }
  });

  it('reads MiniCPM and hermes after the same <function name="…"> by what follows it', () => {
    expect(FORMATS.filter((format) => format.inAuto === false).map((f) => f.name)).toEqual([]);
    const minicpm = '<function name="get_weather"><param name="city">Oslo</param></function>';
    const hermes = '<function name="get_weather">\n{"city": "Oslo"}\n</function>';
    for (const text of [minicpm, hermes, `Hi ${minicpm}\n${hermes} bye`]) {
      const content = contentAtEverySplit(auto, text, { tools: TOOLS }) as { type: string }[];
      expect(
        content.filter((part) => part.type === 'tool-call'),
        text,
      ).toEqual(
        text.startsWith('Hi')
          ? [
              { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
              { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
            ]
          : [{ type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' }],
      );
      expect(content.some((part) => part.type === 'error')).toBe(false);
    }
    // The tokenizer's spellings of MiniCPM's opener read too.
    const spelled =
      '<function\u0120name="get_weather"><param\u0120name="city">Oslo</param></function>';
    expect(callsOf(auto, spelled, TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
  });

  it('reads a hermes call as hermes with MiniCPM among the formats', () => {
    const text =
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>';
    expect(contentAtEverySplit(auto, text, { tools: TOOLS })).toEqual(
      contentAtEverySplit(hermesProtocol(), text, { tools: TOOLS }),
    );
  });

  it('leaves text that no format reads as text, exactly', () => {
    const text = 'Use <b>tags</b>, [brackets], {"braces": 1}, f(x=1) and `code` freely.';
    expect(contentAtEverySplit(auto, text, { tools: TOOLS })).toEqual([{ type: 'text', text }]);
  });

  it('is chunk-invariant on mixtures of every format’s calls', () => {
    const pieces = FORMATS.filter((entry) => entry.inAuto !== false).map((entry) =>
      entry.create().formatToolCall({ toolName: 'get_weather', input: { city: 'Rome', days: 2 } }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...pieces), fc.constantFrom('x', '\n', ' ', '<', '[')), {
          maxLength: 8,
        }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (parts, cuts) => {
          const text = parts.join('');
          const whole = contentOf(streamEvents(auto, [text], { tools: TOOLS }));
          expect(contentOf(streamEvents(auto, splitAt(text, cuts), { tools: TOOLS }))).toEqual(
            whole,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('auto: prompting', () => {
  it('teaches hermes by default, or the format it is told', () => {
    const tools = [weatherTool];
    expect(auto.formatTools(tools)).toBe(hermesProtocol().formatTools(tools));
    expect(autoProtocol({ prompt: 'xml' }).formatTools(tools)).toBe(
      xmlProtocol().formatTools(tools),
    );
    expect(protocolByName('auto').name).toBe('auto');
  });

  it('reads only the formats it is given, when given a list', () => {
    const onlyXml = autoProtocol({ formats: ['xml'] });
    const text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>';
    expect(onlyXml.parseGeneratedText(text, { tools: [weatherTool] })).toEqual([
      { type: 'text', text },
    ]);
  });

  it('names an unknown format and one it cannot combine', () => {
    expect(() => autoProtocol({ prompt: 'nope' })).toThrow(/unknown format "nope"/);
    const handMade = { ...hermesProtocol(), name: 'hand-made' };
    expect(() => autoProtocol({ formats: [handMade] })).toThrow(/not made with defineProtocol/);
  });
});

describe('auto: one opener, several formats', () => {
  const tools = [weatherTool];

  it('reads <function=NAME> with JSON as Hermes/Llama do, and with parameter tags as Qwen3-Coder does', () => {
    const json = '<function=get_weather>{"city": "Oslo", "days": 2}</function>';
    const tags =
      '<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n2\n</parameter>\n</function>';
    for (const text of [json, tags]) {
      expect(contentAtEverySplit(auto, text, { tools })).toEqual([
        { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo","days":2}' },
      ]);
    }
  });

  it('reads a longer opener that begins with a shorter one ([TOOL_CALLS] after a bare [)', () => {
    const text = 'Sure.[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}';
    expect(contentAtEverySplit(auto, text, { tools })).toEqual([
      { type: 'text', text: 'Sure.' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
    ]);
  });

  it.runIf(formatEntry('gpt-oss') !== undefined)(
    'reads each family’s reasoning, even where its tag begins a call opener of another',
    () => {
      const text = '[THINK]plan[/THINK]<|channel|>analysis<|message|>more<|end|>done';
      const content = contentAtEverySplit(auto, text, { tools }) as {
        type: string;
        text?: string;
      }[];
      expect(content.filter((part) => part.type === 'reasoning').map((part) => part.text)).toEqual([
        'plan',
        'more',
      ]);
      expect(content.filter((part) => part.type === 'text').map((part) => part.text)).toEqual([
        'done',
      ]);
    },
  );
});

describe('auto: malformed blocks several formats fault on', () => {
  it('reports the fault of the format first in precedence, however the text is chunked', () => {
    const text = '<tool_call>\n<function=get_"}}\n</tool_call>';
    const content = contentAtEverySplit(auto, text, { tools: TOOLS }) as {
      type: string;
      error?: { code: string; raw: string };
    }[];
    expect(content.filter((part) => part.type === 'error').map((part) => part.error?.raw)).toEqual([
      text,
    ]);
  });
});
