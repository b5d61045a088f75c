/**
 * Built-ins that were hand-written and are specs now: each protocol gives its spec back, and the
 * spec features they brought (string arguments, call-id headers, markup inside reasoning) work
 * for a spec that is nobody's, whole and in any chunking.
 */
import { describe, expect, it } from 'vitest';
import { FORMATS, type ToolDefinition } from '../../../src/index.ts';
import { apertusProtocol } from '../../../src/protocols/apertus/index.ts';
import { deepseekProtocol } from '../../../src/protocols/deepseek/index.ts';
import { grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import { MarkupBody } from '../../../src/protocols/engine/markup-body.ts';
import { resolveParseOptions } from '../../../src/protocols/engine/stream-engine.ts';
import { arrowCallsProtocol } from '../../../src/protocols/formats/arrow-calls.ts';
import { functionaryProtocol } from '../../../src/protocols/functionary/index.ts';
import { functionGemmaProtocol } from '../../../src/protocols/functiongemma/index.ts';
import {
  GPT_OSS_HEADER,
  gptOssProtocol,
  gptOssSpec,
} from '../../../src/protocols/gpt-oss/index.ts';
import { graniteProtocol } from '../../../src/protocols/granite/index.ts';
import { hermesProtocol } from '../../../src/protocols/hermes/index.ts';
import { kimiK2Protocol } from '../../../src/protocols/kimi-k2/index.ts';
import { llama3Protocol } from '../../../src/protocols/llama3/index.ts';
import { mistralProtocol } from '../../../src/protocols/mistral/index.ts';
import { pythonicProtocol } from '../../../src/protocols/pythonic/index.ts';
import {
  defineFormat,
  FormatSpecError,
  readFormatSpec,
  specOf,
} from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';
import { xlamProtocol } from '../../../src/protocols/xlam/index.ts';
import { xmlProtocol } from '../../../src/protocols/xml/index.ts';
import { callsOf, chunksOf, contentOf, streamEvents, textOf } from '../helpers.ts';

const TOOLS: ToolDefinition[] = [
  {
    name: 'get_weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

describe('converted built-ins are specs', () => {
  it.each([
    ['kimi-k2', kimiK2Protocol],
    ['xlam', xlamProtocol],
    ['xlam', () => xlamProtocol({ genericJson: false })],
    ['pythonic', pythonicProtocol],
    ['pythonic', () => pythonicProtocol({ promptStyle: 'lfm2', bareLists: false })],
    ['granite', graniteProtocol],
    ['granite', () => graniteProtocol({ bareArrays: false })],
    ['apertus', apertusProtocol],
    ['apertus', () => apertusProtocol({ bareArrays: false })],
    ['arrow-calls', arrowCallsProtocol],
    ['functiongemma', functionGemmaProtocol],
    ['hermes', hermesProtocol],
    ['hermes', () => hermesProtocol({ callTag: 'call', fencedCalls: false })],
    ['llama3', llama3Protocol],
    ['llama3', () => llama3Protocol({ codeTool: 'python' })],
    ['mistral', mistralProtocol],
    ['deepseek', deepseekProtocol],
    ['gpt-oss', gptOssProtocol],
    ['xml', xmlProtocol],
    ['functionary', functionaryProtocol],
    ['functionary', () => functionaryProtocol({ version: 'v3.1' })],
    ['deepseek', () => deepseekProtocol({ version: 'v3.2' })],
    ['mistral', () => mistralProtocol({ style: 'pre-v11', strippedTokens: false })],
  ] as const)('%s', (name, create) => {
    expect(specOf(create())?.name).toBe(name);
  });

  it('every built-in is a spec', () => {
    const handWritten = FORMATS.filter((entry) => specOf(entry.create()) === undefined).map(
      (entry) => entry.name,
    );
    expect(handWritten).toEqual([]);
    expect(FORMATS.length).toBeGreaterThanOrEqual(37);
  });
});

/** Calls numbered by id, arguments possibly a string, a section token that is framing. */
const STRING_SPEC: FormatSpec = {
  spec: 1,
  name: 'test-string-arguments',
  reasoning: [{ open: '<r>', close: '</r>' }],
  markup: ['<<section>>'],
  markupInReasoning: true,
  calls: [
    {
      codec: 'json',
      open: '<<c>>',
      close: '<</c>>',
      inReasoning: true,
      nameHeader: { end: '=>', namePrefixes: ['fn.'], nameEnds: 'index' },
      argumentsAsString: true,
    },
  ],
  write: { call: '<<c>>fn.{name}:{index}=>{arguments}<</c>>' },
  results: { each: '{output}' },
};

function everyChunking(text: string): unknown[] {
  const whole = contentOf(streamEvents(defineFormat(STRING_SPEC), [text], { tools: TOOLS }));
  for (let size = 1; size < 8; size++) {
    const chunked = streamEvents(defineFormat(STRING_SPEC), chunksOf(text, size), { tools: TOOLS });
    expect(contentOf(chunked), `chunks of ${size}`).toEqual(whole);
  }
  return whole;
}

describe('argumentsAsString, nameEnds: index, markupInReasoning', () => {
  const protocol = defineFormat(STRING_SPEC);

  it('reads arguments written as an object or as a string holding one', () => {
    const object = '<<c>>fn.get_weather:0=>{"city": "Oslo"}<</c>>';
    const string = '<<c>>fn.get_weather:1=>"{\\"city\\": \\"Bergen\\"}" <</c>>';
    expect(callsOf(protocol, object + string, TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'get_weather', input: { city: 'Bergen' } },
    ]);
    everyChunking(object + string);
  });

  it('fails a call whose string holds no object, naming the tool', () => {
    const content = everyChunking('<<c>>fn.get_weather:0=>"Oslo"<</c>>');
    expect(content).toContainEqual(
      expect.objectContaining({
        type: 'error',
        error: expect.objectContaining({ code: 'malformed-call', toolName: 'get_weather' }),
      }),
    );
  });

  it('reads the name only from a call id: the name, `:` and digits', () => {
    expect(callsOf(protocol, '<<c>>get_weather:12=>{"city": "Oslo"}<</c>>', TOOLS)).toHaveLength(1);
    for (const id of ['fn.get_weather', 'fn.get_weather:', 'fn.get_weather:x', 'a:b:0']) {
      expect(callsOf(protocol, `<<c>>${id}=>{"city": "Oslo"}<</c>>`, TOOLS), id).toEqual([]);
    }
  });

  it('drops markup and reads calls inside reasoning', () => {
    const content = everyChunking(
      '<r>thinking<<section>><<c>>fn.get_weather:0=>{"city": "Oslo"}<</c>>more</r>',
    );
    expect(content.filter((part) => (part as { type: string }).type === 'tool-call')).toHaveLength(
      1,
    );
    const reasoning = content
      .filter((part) => (part as { type: string }).type === 'reasoning')
      .map((part) => (part as { text: string }).text)
      .join('');
    expect(reasoning).toBe('thinkingmore');
  });

  it('needs a name header and a closer', () => {
    const { nameHeader: _header, ...headless } = STRING_SPEC.calls[0] as unknown as Record<
      string,
      unknown
    >;
    expect(() => readFormatSpec({ ...STRING_SPEC, calls: [headless] })).toThrow(FormatSpecError);
    const { close: _close, ...open } = STRING_SPEC.calls[0] as unknown as Record<string, unknown>;
    expect(() => readFormatSpec({ ...STRING_SPEC, calls: [open] })).toThrow(
      /calls\[0\]\.argumentsAsString/,
    );
  });
});

describe('a readers hook', () => {
  const protocol = defineFormat(
    {
      spec: 1,
      name: 'test-readers',
      calls: [{ codec: 'json', open: '<c>', close: '</c>' }],
      write: { call: '<c>{"name": {name_json}, "arguments": {arguments}}</c>' },
      results: { each: '{output}' },
    },
    {
      readers: [
        { name: 'framing', open: ['<<drop>>'], read: (context) => new MarkupBody(context) },
      ],
    },
  );

  it("reads beside the spec's call forms, and the spec is still the protocol's", () => {
    const text = 'a<<drop>>b<c>{"name": "get_weather", "arguments": {"city": "Oslo"}}</c>';
    expect(textOf(protocol, text, TOOLS)).toBe('ab');
    expect(callsOf(protocol, text, TOOLS)).toHaveLength(1);
    expect(specOf(protocol)?.name).toBe('test-readers');
  });
});

describe('a python form with jsonFallback', () => {
  const spec: FormatSpec = {
    spec: 1,
    name: 'test-python-json',
    calls: [{ codec: 'python', open: '<py>', close: '</py>', jsonFallback: true }],
    write: { call: '<py>[{name}({arguments})]</py>' },
    results: { each: '{output}' },
  };
  const protocol = defineFormat(spec);

  it('reads a Python list or JSON calls in the block', () => {
    expect(callsOf(protocol, '<py>[get_weather(city="Oslo")]</py>', TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(
      callsOf(protocol, '<py>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</py>', TOOLS),
    ).toEqual([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('needs a closer', () => {
    expect(() =>
      readFormatSpec({ ...spec, calls: [{ codec: 'python', open: '<py>', jsonFallback: true }] }),
    ).toThrow(/calls\[0\]\.jsonFallback/);
  });
});

describe('perTool: a form opened once per declared tool', () => {
  const spec: FormatSpec = {
    spec: 1,
    name: 'test-per-tool',
    calls: [
      { codec: 'json', open: '<c>', close: '</c>' },
      {
        codec: 'json',
        open: '{{name_json}',
        openHoldsJson: '{{name_json}',
        perTool: true,
        certainty: 'speculative',
        nameAsKey: true,
      },
      { codec: 'python', open: '\n{name}(', perTool: true, certainty: 'speculative', lines: true },
    ],
    write: { call: '<c>{"name": {name_json}, "arguments": {arguments}}</c>' },
    results: { each: '{output}' },
  };
  const protocol = defineFormat(spec);

  it('opens a bare call by the declared name it begins with', () => {
    const json = 'Here: {"get_weather": {"city": "Oslo"}}';
    expect(callsOf(protocol, json, TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
    everyChunkingOf(protocol, json);
    expect(callsOf(protocol, '{"get_time": {"zone": "CET"}}', TOOLS)).toEqual([]);
    expect(callsOf(protocol, 'get_weather(city="Oslo")', TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
    // A line opener: only at the start of the output.
    expect(callsOf(protocol, 'Run get_weather(city="Oslo") first', TOOLS)).toEqual([]);
  });

  it('is refused without the name in its opener', () => {
    expect(() =>
      readFormatSpec({
        ...spec,
        calls: [{ codec: 'python', open: '\nf(', perTool: true }],
      }),
    ).toThrow(/calls\[0\]\.open/);
  });
});

function everyChunkingOf(protocol: ReturnType<typeof defineFormat>, text: string): void {
  const whole = contentOf(streamEvents(protocol, [text], { tools: TOOLS }));
  for (let size = 1; size < 8; size++) {
    expect(contentOf(streamEvents(protocol, chunksOf(text, size), { tools: TOOLS }))).toEqual(
      whole,
    );
  }
}

describe('a callBody hook', () => {
  const spec: FormatSpec = {
    spec: 1,
    name: 'test-call-body',
    calls: [
      { codec: 'json', open: '<own>', close: '</own>' },
      { codec: 'json', open: '<c>', close: '</c>' },
    ],
    write: { call: '<c>{"name": {name_json}, "arguments": {arguments}}</c>' },
    results: { each: '{output}' },
  };
  const protocol = defineFormat(spec, {
    // `<own>` is framing read by a body of the format's own; `<c>` is left to the json codec.
    callBody: (form, context) => (form.open === '<own>' ? new MarkupBody(context) : undefined),
  });

  it('declares the kind of a hooked opener, which its data no longer shows (auto reads it)', () => {
    const openers = grammarOf(protocol)?.callOpeners(resolveParseOptions({ tools: TOOLS }));
    expect(openers?.map((opener) => [opener.literal, opener.kind])).toEqual([
      ['<own>', 'call'],
      ['<c>', 'call'],
    ]);
    const arrow = grammarOf(arrowCallsProtocol())?.callOpeners(
      resolveParseOptions({ tools: TOOLS }),
    );
    expect(new Set(arrow?.map((opener) => opener.kind))).toEqual(new Set(['speculative']));
  });

  it('reads the forms it takes, and leaves the others to their codec', () => {
    const text = 'a<own>b<c>{"name": "get_weather", "arguments": {"city": "Oslo"}}</c>';
    expect(textOf(protocol, text, TOOLS)).toBe('ab');
    expect(callsOf(protocol, text, TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
  });
});

describe('dialect forms: wholeOutput and parenthesisCalls', () => {
  const spec: FormatSpec = {
    spec: 1,
    name: 'test-dialect',
    calls: [
      {
        codec: 'dialect',
        open: '<fn>',
        namePrefix: 'call:',
        close: '</fn>',
        stringDelimiters: ['<s>', '<s>'],
        parenthesisCalls: false,
      },
      {
        codec: 'dialect',
        open: '\ncall:',
        certainty: 'speculative',
        wholeOutput: true,
        stringDelimiters: ['<s>', '<s>'],
      },
    ],
    write: { call: '<fn>call:{name}{arguments}</fn>' },
    results: { each: '{output}' },
  };
  const protocol = defineFormat(spec);
  const errorCodes = (text: string) =>
    protocol
      .parseGeneratedText(text, { tools: TOOLS })
      .flatMap((part) => (part.type === 'error' ? [part.error.code] : []));

  it('reads bare calls that are the whole output, one after another', () => {
    const text = 'call:get_weather{city:Oslo} call:get_weather{city:<s>Bergen<s>}';
    expect(callsOf(protocol, text, TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'get_weather', input: { city: 'Bergen' } },
    ]);
    everyChunkingOf(protocol, text);
  });

  it('fails the block, running none, when anything else follows a declared call', () => {
    for (const text of [
      'call:get_weather{city:Oslo} and more',
      'call:get_weather{city:"Oslo"}',
      'call:get_weather{city:Oslo} call:nobody{}',
    ]) {
      expect(callsOf(protocol, text, TOOLS), text).toEqual([]);
      expect(errorCodes(text), text).toEqual(['malformed-call']);
    }
  });

  it('leaves a block that names no declared tool as text', () => {
    expect(errorCodes('call:nobody{x:1}')).toEqual([]);
    expect(textOf(protocol, 'call:nobody{x:1}', TOOLS)).toBe('call:nobody{x:1}');
  });

  it('fails a parenthesis call where parenthesisCalls is false', () => {
    const text = '<fn>call:get_weather(city="Oslo")</fn>';
    expect(callsOf(protocol, text, TOOLS)).toEqual([]);
    expect(errorCodes(text)).toEqual(['malformed-call']);
    const lenient = defineFormat({
      ...spec,
      calls: [{ ...(spec.calls[0] as object), parenthesisCalls: true } as FormatSpec['calls'][0]],
    });
    expect(callsOf(lenient, text, TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
  });
});

describe('json forms: fenceHoldsForms, strayClose, quoted and attribute names', () => {
  const spec: FormatSpec = {
    spec: 1,
    name: 'test-fence',
    calls: [
      { codec: 'json', open: '<call>', close: '</call>' },
      {
        codec: 'json',
        open: '<fn=',
        close: '</fn>',
        certainty: 'speculative',
        nameHeader: { end: '>', nameQuoted: true },
      },
      {
        codec: 'json',
        open: '<fn ',
        close: '</fn>',
        certainty: 'speculative',
        nameHeader: { end: '>', nameAttribute: 'name' },
      },
      { codec: 'json', open: '```', close: '```', certainty: 'speculative', fenceHoldsForms: true },
      {
        codec: 'json',
        open: '{"name"',
        openHoldsJson: '{"name"',
        certainty: 'speculative',
        strayClose: '</call>',
      },
    ],
    write: { call: '<call>{"name": {name_json}, "arguments": {arguments}}</call>' },
    results: { each: '{output}' },
  };
  const protocol = defineFormat(spec);
  const oslo = { toolName: 'get_weather', input: { city: 'Oslo' } };

  it('reads a fence holding JSON or a tagged call, and leaves other fences as text', () => {
    const json = '```json\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n```';
    const tagged =
      '```xml\n<call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</call>\n```';
    expect(callsOf(protocol, json, TOOLS)).toEqual([oslo]);
    expect(callsOf(protocol, tagged, TOOLS)).toEqual([oslo]);
    expect(textOf(protocol, tagged, TOOLS)).toBe('');
    everyChunkingOf(protocol, tagged);
    expect(textOf(protocol, '```js\nlet x = 1;\n```', TOOLS)).toBe('```js\nlet x = 1;\n```');
  });

  it('drops a stray closer after bare JSON', () => {
    const text = '{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</call>';
    expect(callsOf(protocol, text, TOOLS)).toEqual([oslo]);
    expect(textOf(protocol, text, TOOLS)).toBe('');
  });

  it('reads a name in quotes, or as an attribute', () => {
    for (const open of [
      '<fn=get_weather>',
      '<fn="get_weather">',
      "<fn='get_weather'>",
      '<fn name="get_weather">',
      '<fn  name = "get_weather">',
    ]) {
      expect(callsOf(protocol, `${open}{"city": "Oslo"}</fn>`, TOOLS), open).toEqual([oslo]);
    }
    for (const open of ['<fn=get weather>', '<fn name=get_weather>', '<fn title="get_weather">']) {
      expect(callsOf(protocol, `${open}{"city": "Oslo"}</fn>`, TOOLS), open).toEqual([]);
    }
  });
});

describe('argumentsOnly: a per-tool opener names the tool, the JSON is its arguments', () => {
  const spec: FormatSpec = {
    spec: 1,
    name: 'test-arguments-only',
    calls: [
      { codec: 'json', open: '<c>', close: '</c>' },
      { codec: 'json', open: '\n{name}:', perTool: true, argumentsOnly: true },
      {
        codec: 'json',
        open: '\n{name}{',
        openHoldsJson: '{',
        perTool: true,
        argumentsOnly: true,
        certainty: 'speculative',
      },
    ],
    write: { call: '<c>{"name": {name_json}, "arguments": {arguments}}</c>' },
    results: { each: '{output}' },
  };
  const protocol = defineFormat(spec);

  it('reads the arguments after the opener, and after its brace, at every chunking', () => {
    for (const text of ['get_weather: {"city": "Oslo"}', 'get_weather{"city": "Oslo"}']) {
      const whole = contentOf(streamEvents(protocol, [text], { tools: TOOLS }));
      for (let size = 1; size < 6; size++) {
        const chunked = streamEvents(protocol, chunksOf(text, size), { tools: TOOLS });
        expect(contentOf(chunked), `${text} in chunks of ${size}`).toEqual(whole);
      }
      expect(callsOf(protocol, text, TOOLS), text).toEqual([
        { toolName: 'get_weather', input: { city: 'Oslo' } },
      ]);
    }
  });

  it('keeps a speculative opener as text unless well-formed arguments follow', () => {
    expect(textOf(protocol, 'get_weather{city} is a template', TOOLS)).toBe(
      'get_weather{city} is a template',
    );
  });

  it('needs perTool', () => {
    expect(() =>
      readFormatSpec({
        ...spec,
        calls: [{ codec: 'json', open: '<c>', argumentsOnly: true }],
      }),
    ).toThrow(/calls\[0\]\.argumentsOnly/);
  });
});

describe("holdCalls: none of a block's calls runs before the block is whole", () => {
  const spec: FormatSpec = {
    spec: 1,
    name: 'test-hold-calls',
    calls: [{ codec: 'json', open: '<<calls>>', holdCalls: true, bareArrays: ['name'] }],
    write: { call: '<<calls>>[{"name": {name_json}, "arguments": {arguments}}]' },
    results: { each: '{output}' },
  };
  const protocol = defineFormat(spec);
  const two =
    '[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_weather", "arguments": {"city": "Rome"}}';

  it('runs the calls of a whole list, or of one that ended with only ] missing', () => {
    expect(callsOf(protocol, `<<calls>>${two}] done`, TOOLS)).toHaveLength(2);
    expect(callsOf(protocol, `<<calls>>${two}`, TOOLS)).toHaveLength(2);
  });

  it('runs none of a list cut off, with or without its opener, and reports it whole', () => {
    for (const text of [`<<calls>>${two}, {"na`, two.slice(0, -20)]) {
      const content = contentOf(streamEvents(protocol, [text], { tools: TOOLS }));
      expect(content.filter((part) => (part as { type: string }).type === 'tool-call')).toEqual([]);
      expect(content).toContainEqual(
        expect.objectContaining({
          type: 'error',
          error: expect.objectContaining({ code: 'incomplete-call', raw: text }),
        }),
      );
    }
  });
});

describe('a callBody hook reads perTool forms too', () => {
  it('is called with the filled form and the tool its opener named', () => {
    const seen: [string, string | undefined][] = [];
    const protocol = defineFormat(
      {
        spec: 1,
        name: 'test-per-tool-hook',
        calls: [
          { codec: 'json', open: '<c>', close: '</c>' },
          { codec: 'json', open: '\n{name}:', perTool: true, argumentsOnly: true },
        ],
        write: { call: '<c>{"name": {name_json}, "arguments": {arguments}}</c>' },
        results: { each: '{output}' },
      },
      {
        callBody: (form, context, toolName) => {
          seen.push([form.open, toolName]);
          return form.perTool ? new MarkupBody(context) : undefined;
        },
      },
    );
    const text = 'get_weather:<c>{"name": "get_weather", "arguments": {"city": "Oslo"}}</c>';
    expect(callsOf(protocol, text, TOOLS)).toHaveLength(1);
    expect(textOf(protocol, text, TOOLS)).toBe('');
    expect(seen).toContainEqual(['\nget_weather:', 'get_weather']);
    expect(seen).toContainEqual(['<c>', undefined]);
  });
});

describe('header: a harmony header mode given as spec data', () => {
  const withHeader = defineFormat({ ...gptOssSpec, header: GPT_OSS_HEADER });
  const text =
    '<|channel|>analysis<|message|>I\'m thinking<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>';

  it('reads the messages with no hook, as the readers hook reads them', () => {
    expect(callsOf(withHeader, text, TOOLS)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
    ]);
    expect(contentOf(streamEvents(withHeader, chunksOf(text, 3), { tools: TOOLS }))).toEqual(
      contentOf(streamEvents(gptOssProtocol(), [text], { tools: TOOLS })),
    );
  });

  it('is checked, its problem named by path', () => {
    expect(() => readFormatSpec({ ...gptOssSpec, header: { ...GPT_OSS_HEADER, typo: 1 } })).toThrow(
      /header\.typo/,
    );
  });
});
