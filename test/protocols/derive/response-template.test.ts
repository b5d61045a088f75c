/**
 * `protocolFromResponseTemplate` / `formatSpecFromResponseTemplate`: how each construct of a
 * response template is read (or refused by name), that calls stream their arguments before the
 * region closes (transformers parses a region only once it closes), that what the protocol
 * writes it reads back, and the ways a template may be given (alone, in a tokenizer_config.json,
 * as a legacy schema). The real templates of transformers' and TRL's tests are in
 * response-template-conformance.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isErrorOfKind, ToolwireError } from '../../../src/core/errors.ts';
import type { ParseEvent, ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import {
  formatSpecFromResponseTemplate,
  protocolFromResponseTemplate,
  ResponseTemplateError,
} from '../../../src/protocols/derive/response-template.ts';
import { markerOf, parsePattern } from '../../../src/protocols/derive/response-template-pattern.ts';
import { callsOf, chunksOf, counterIds } from '../helpers.ts';

type Json = Record<string, unknown>;
const fixture = (
  name: string,
): { templates: Record<string, Json>; schemas?: Record<string, Json> } =>
  JSON.parse(
    readFileSync(new URL(`../../fixtures/response-templates/${name}`, import.meta.url), 'utf8'),
  );
/** The fixtures' templates by name (a missing one fails the test that asks). */
function byName(templates: Record<string, Json> | undefined): Record<string, Json> {
  return new Proxy(templates ?? {}, {
    get(target, key: string) {
      const found = target[key];
      if (found === undefined) throw new Error(`no fixture template ${key}`);
      return found;
    },
  }) as Record<string, Json>;
}
const transformers = byName(fixture('transformers.json').templates);
const trlFixture = fixture('trl.json');
const trl = { templates: byName(trlFixture.templates), schemas: byName(trlFixture.schemas) };

const marker = (source: string) => markerOf(parsePattern(source, 'p'), 'p');

function refusal(run: () => unknown): ResponseTemplateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ResponseTemplateError);
    return error as ResponseTemplateError;
  }
  throw new Error('not refused');
}

/** A template with one `tool_calls` field and the given extra fields. */
function template(toolCalls: Json, fields: Json = {}): Json {
  return { start_anchor: '<|assistant|>', fields: { ...fields, tool_calls: toolCalls } };
}

const JSON_CALLS = {
  open: '<tool_call>',
  close: '</tool_call>',
  content: 'json',
  transform: { type: 'function', function: '{content}' },
};

describe('patterns are read as literals, never run', () => {
  it('reads a literal with escapes, and `\\s*` at either end', () => {
    expect(marker('<\\|im_end\\|>\\s*')).toEqual({
      literals: ['<|im_end|>'],
      atStart: false,
      atEnd: false,
    });
    expect(marker('\\s*</think>\\s*').literals).toEqual(['</think>']);
  });

  it('reads optional parts and alternatives as literal alternatives, longest first', () => {
    expect(marker('\\n?</response>').literals).toEqual(['\n</response>', '</response>']);
    expect(marker('<a>|<bb>').literals).toEqual(['<bb>', '<a>']);
    expect(marker('<think>(?:\\n|</think>)?').literals).toEqual([
      '<think></think>',
      '<think>\n',
      '<think>',
    ]);
  });

  it('reads `^` and `$` / `\\Z` as whole alternatives: the start or the end of the output', () => {
    expect(marker('(?:^|<think>\\s*)')).toEqual({
      literals: ['<think>'],
      atStart: true,
      atEnd: false,
    });
    expect(marker('<\\|user\\|>\\s*|$')).toEqual({
      literals: ['<|user|>'],
      atStart: false,
      atEnd: true,
    });
    expect(marker('\\Z')).toEqual({ literals: [], atStart: false, atEnd: true });
  });

  it('reads `\\s+` between literals as one space', () => {
    expect(marker('commentary\\s+json').literals).toEqual(['commentary json']);
  });

  const refused: [string, string, string][] = [
    ['(?=[\\s\\S]*?</think>)', '`(?=[\\s\\S]*?</think>)`', 'lookahead'],
    ['(?<=x)</think>', '`(?<=x)`', 'lookbehind'],
    ['(?<!x)</think>', '`(?<!x)`', 'lookbehind'],
    ['<(?P<tag>\\w+)>(?P=tag)', '`(?P=tag)`', 'back-reference'],
    ['<x>.*?</x>\\1', '`\\1`', 'back-reference'],
    ['[^<]*<\\|content_text\\|>', '`[^<]*`', 'character class'],
    ['<x>.*?</x>', '`.*?`', 'any text'],
    ['x++', '`x++`', 'possessive'],
    ['\\bEND', '`\\b`', 'word boundary'],
    ['(?i)<end>', '`(?i)`', 'inline flags'],
    ['(?>ab)c', '`(?>ab)`', 'atomic group'],
    ['(x+x+)+y', '`(x+x+)+`', 'repetition'],
    ['(?:ab)+', '`(?:ab)+`', 'repetition'],
    ['<x>{2,}', '`>{2,}`', 'repetition'],
  ];
  for (const [source, construct, word] of refused) {
    it(`refuses ${source} by name (${word})`, () => {
      const error = refusal(() => marker(source));
      expect(error.construct).toBe(construct);
      expect(error.message).toContain(word);
      expect(error.path).toBe('p');
    });
  }

  it('refuses an over-long pattern before reading it', () => {
    const error = refusal(() => parsePattern('a'.repeat(5000), 'p'));
    expect(error.message).toContain('longer than');
  });

  it('names the field and the construct in a template refusal', () => {
    const error = refusal(() =>
      formatSpecFromResponseTemplate(
        template(JSON_CALLS, {
          thinking: { open_pattern: '(?=[\\s\\S]*?</think>)', close: '</think>' },
        }),
      ),
    );
    expect(error.path).toBe('fields.thinking.open_pattern');
    expect(error.message).toMatch(
      /^response template fields\.thinking\.open_pattern: `\(\?=\[\\s\\S\]\*\?<\/think>\)` \(a lookahead\) is not read: /,
    );
  });

  it('is a ToolwireError of kind invalid-format', () => {
    const error = refusal(() => formatSpecFromResponseTemplate({ fields: {} }));
    expect(error).toBeInstanceOf(ToolwireError);
    expect(isErrorOfKind(error, 'invalid-format')).toBe(true);
  });
});

describe('fields as a FormatSpec', () => {
  it('reads literal markers into reasoning, framing and a JSON call form', () => {
    const spec = formatSpecFromResponseTemplate(transformers.smollm);
    expect(spec).toMatchObject({
      spec: 1,
      name: 'response-template',
      reasoning: [{ open: '<think>', close: '</think>' }],
      markup: ['<|im_start|>assistant\n', '<|im_end|>'],
      calls: [
        {
          codec: 'json',
          open: '<tool_call>',
          close: '</tool_call>',
          nameKeys: ['name'],
          argumentKeys: ['arguments'],
        },
      ],
    });
  });

  it('takes the call keys from the transform (`transform_each` over a list, dotted paths)', () => {
    expect(formatSpecFromResponseTemplate(transformers.cohere).calls).toEqual([
      {
        codec: 'json',
        open: '<|START_ACTION|>',
        close: '<|END_ACTION|>',
        nameKeys: ['tool_name'],
        argumentKeys: ['parameters'],
      },
    ]);
    expect(formatSpecFromResponseTemplate(transformers.dotted_paths).calls[0]).toMatchObject({
      nameKeys: ['name'],
      argumentKeys: ['args'],
    });
  });

  it('reads a name captured between literals as a name header before JSON arguments', () => {
    expect(formatSpecFromResponseTemplate(trl.templates.gptoss).calls).toEqual([
      {
        codec: 'json',
        open: 'to=functions.',
        close: '<|call|>',
        nameHeader: { end: '<|channel|>commentary json<|message|>' },
      },
    ]);
  });

  it('reads `\\{"name":\\s*"(?P<name>…)",\\s*"parameters":\\s*` as the start of a JSON call object', () => {
    expect(formatSpecFromResponseTemplate(trl.templates.llama3).calls).toEqual([
      {
        codec: 'json',
        open: '{"name"',
        openHoldsJson: '{"name"',
        certainty: 'speculative',
        close: '<|eot_id|>',
        nameKeys: ['name'],
        argumentKeys: ['parameters'],
      },
    ]);
  });

  it('reads xml-inline as parameter tags (the call tag inferred from `<function=`)', () => {
    expect(formatSpecFromResponseTemplate(transformers.qwen3).calls).toEqual([
      {
        codec: 'tagged',
        open: '<tool_call>',
        close: '</tool_call>',
        syntax: {
          callOpen: '<function',
          callClose: '</function>',
          parameterOpen: '<parameter',
          parameterClose: '</parameter>',
          layout: 'block',
        },
      },
    ]);
    expect(formatSpecFromResponseTemplate(trl.templates.glm4moe).calls[0]).toMatchObject({
      codec: 'tagged',
      syntax: {
        callOpen: '',
        callClose: '',
        parameterOpen: '<arg_key>',
        keyClose: '</arg_key>',
        valueOpen: '<arg_value>',
        parameterClose: '</arg_value>',
        layout: 'exact',
      },
    });
  });

  it('reads `LIST[NAME(` … `)` with keyword tags as Python calls in a list', () => {
    expect(formatSpecFromResponseTemplate(trl.templates.lfm2_2_5).calls).toEqual([
      {
        codec: 'python',
        open: '<|tool_call_start|>[',
        listOpened: true,
        close: '<|tool_call_end|>',
      },
    ]);
  });

  it('reads json with unquoted keys and string delimiters as the dialect codec', () => {
    expect(formatSpecFromResponseTemplate(transformers.gemma4).calls).toEqual([
      {
        codec: 'dialect',
        open: '<|tool_call>',
        namePrefix: 'call:',
        close: '<tool_call|>',
        stringDelimiters: ['<|"|>', '<|"|>'],
      },
    ]);
  });

  it('starts in reasoning when the opener may be the start of the output (`(?:^|<think>\\s*)`)', () => {
    expect(formatSpecFromResponseTemplate(transformers.ernie)).toMatchObject({
      startInReasoning: true,
      reasoning: [{ open: '<think>', close: '</think>' }],
    });
  });

  it('keeps special-token anchors as framing, and plain-word anchors as text', () => {
    expect(formatSpecFromResponseTemplate(transformers.gpt_oss).markup).toContain(
      '<|start|>assistant',
    );
    expect(formatSpecFromResponseTemplate(transformers.ernie).markup ?? []).not.toContain(
      'Assistant:',
    );
  });

  it('refuses a field it has no place for, and a template without tool calls', () => {
    expect(
      refusal(() =>
        formatSpecFromResponseTemplate(
          template(JSON_CALLS, { score: { open: '<n>', close: '</n>', content: 'int' } }),
        ),
      ).path,
    ).toBe('fields.score');
    expect(
      refusal(() => formatSpecFromResponseTemplate(transformers.history_bleed)).message,
    ).toContain('no `tool_calls`');
  });

  it('refuses the call forms it cannot stream, naming them', () => {
    const kv = refusal(() => formatSpecFromResponseTemplate(transformers.kv_lines_tools));
    expect([kv.path, kv.construct]).toEqual(['fields.tool_calls.content', '`kv-lines`']);
    const noTransform = refusal(() =>
      formatSpecFromResponseTemplate(template({ open: '<c>', close: '</c>', content: 'json' })),
    );
    expect(noTransform.message).toContain('has no `transform`');
  });

  it('takes a name', () => {
    expect(formatSpecFromResponseTemplate(transformers.smollm, { name: 'smol' }).name).toBe('smol');
  });
});

describe('where a template comes from', () => {
  it('reads a tokenizer_config.json holding `response_template` or `response_schema`', () => {
    const alone = formatSpecFromResponseTemplate(transformers.smollm);
    expect(
      formatSpecFromResponseTemplate({
        chat_template: '…',
        response_template: transformers.smollm,
      }),
    ).toEqual(alone);
    const legacy = formatSpecFromResponseTemplate(trl.schemas.qwen3);
    expect(formatSpecFromResponseTemplate({ response_schema: trl.schemas.qwen3 })).toEqual(legacy);
  });

  it("reads a legacy schema's markers: reasoning from around its group, calls from the iterator", () => {
    expect(formatSpecFromResponseTemplate(trl.schemas.qwen3)).toMatchObject({
      reasoning: [{ open: '<think>', close: '</think>' }],
      markup: ['<|im_end|>'],
      calls: [{ codec: 'json', open: '<tool_call>', close: '</tool_call>' }],
    });
    expect(formatSpecFromResponseTemplate(trl.schemas.qwen3_5).calls[0]).toMatchObject({
      codec: 'tagged',
      open: '<tool_call>',
      syntax: { callOpen: '<function', parameterOpen: '<parameter', layout: 'block' },
    });
  });

  it('refuses a legacy schema that rewrites the text or transforms by JMESPath', () => {
    expect(refusal(() => formatSpecFromResponseTemplate(trl.schemas.gptoss)).path).toBe(
      'x-regex-substitutions',
    );
    const jmes = structuredClone(trl.schemas.qwen3) as Json;
    const items = ((jmes.properties as Json).tool_calls as Json).items as Json;
    items['x-parser-args'] = { transform: 'function' };
    const error = refusal(() => formatSpecFromResponseTemplate(jmes));
    expect([error.path, error.construct]).toEqual([
      'properties.tool_calls.items.x-parser-args.transform',
      '`function`',
    ]);
  });

  it('names the translated field when a legacy schema is refused past its own keys', () => {
    const schema = structuredClone(trl.schemas.qwen3_5) as Json;
    const args = (
      ((((schema.properties as Json).tool_calls as Json).items as Json).properties as Json)
        .function as Json
    ).properties as Json;
    (args.arguments as Json)['x-regex-key-value'] = '<(?P<key>\\w+)>(?P<value>.*?)</\\1>';
    const error = refusal(() => formatSpecFromResponseTemplate(schema));
    expect(error.path).toBe('fields.tool_calls.content_args.tag_pattern');
    expect(error.message).toContain('back-reference');
    expect(error.message).toContain('the legacy schema translates to');
  });

  it('reads `<tool_call>\\n<function=NAME>` with the line break as layout', () => {
    const spec = formatSpecFromResponseTemplate(
      template({
        open_pattern: '<tool_call>\\n<function=(?P<name>\\w+)>',
        close: '</tool_call>',
        content: 'xml-inline',
        content_args: {
          tag_pattern: '<parameter=(?P<key>\\w+)>\\s*(?P<value>.*?)\\s*</parameter>',
        },
        transform: { type: 'function', function: { name: '{name}', arguments: '{content}' } },
      }),
    );
    expect(spec.calls[0]).toMatchObject({
      codec: 'tagged',
      open: '<tool_call>',
      syntax: { callOpen: '<function' },
    });
  });

  it('refuses what is neither', () => {
    expect(refusal(() => formatSpecFromResponseTemplate({ chat_template: 'x' })).message).toContain(
      'neither',
    );
    expect(refusal(() => formatSpecFromResponseTemplate('text')).message).toContain('JSON object');
  });
});

const WEATHER: ToolDefinition = {
  name: 'get_weather',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' }, note: { type: 'string' } },
  },
};

function eventsOf(protocol: ToolCallProtocol, chunks: readonly string[]): ParseEvent[][] {
  const parser = protocol.createStreamParser({ tools: [WEATHER], generateId: counterIds() });
  return [...chunks.map((chunk) => parser.push(chunk)), parser.end()];
}

describe('arguments stream (transformers parses a region only when it closes)', () => {
  for (const [label, source, call] of [
    [
      'json',
      transformers.smollm,
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo", "note": "a long note"}}</tool_call>',
    ],
    [
      'tagged',
      transformers.qwen3,
      '<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=note>\na long note\n</parameter>\n</function>\n</tool_call>',
    ],
  ] as const) {
    it(`${label}: input deltas arrive while the last argument is still being written`, () => {
      const protocol = protocolFromResponseTemplate(source);
      const midLastValue = call.indexOf('a long note') + 'a long'.length;
      const perChunk = eventsOf(protocol, chunksOf(call, 1));
      const sofar = perChunk.slice(0, midLastValue).flat();
      const deltas = sofar.filter((event) => event.type === 'tool-input-delta');
      expect(deltas.length).toBeGreaterThan(0);
      expect(sofar.some((event) => event.type === 'tool-call')).toBe(false);
      const calls = perChunk.flat().filter((event) => event.type === 'tool-call');
      expect(calls).toHaveLength(1);
    });
  }
});

describe('what a template-built protocol writes, it reads back', () => {
  const built = [
    ['transformers/cohere', transformers.cohere],
    ['transformers/smollm', transformers.smollm],
    ['transformers/qwen3', transformers.qwen3],
    ['transformers/dotted_paths', transformers.dotted_paths],
    ['trl/qwen3_5', trl.templates.qwen3_5],
    ['trl/glm4moe', trl.templates.glm4moe],
    ['trl/llama3', trl.templates.llama3],
    ['trl/gptoss', trl.templates.gptoss],
    ['trl/lfm2_2_5', trl.templates.lfm2_2_5],
    ['trl-legacy/qwen3', trl.schemas.qwen3],
  ] as [string, Json][];
  const calls = [
    {
      toolName: 'get_weather',
      input: { city: 'Oslo', days: 3, note: 'a "quoted" <tag> & ü\nsecond line' },
    },
    { toolName: 'get_weather', input: { city: 'Bergen' } },
  ];
  for (const [id, source] of built) {
    it(id, () => {
      const protocol = protocolFromResponseTemplate(source);
      const one = protocol.formatToolCall(calls[0] as (typeof calls)[number]);
      expect(callsOf(protocol, one, [WEATHER])).toEqual([
        { toolName: 'get_weather', input: calls[0]?.input },
      ]);
      if (id === 'trl/llama3') return; // one call per turn, as its template writes
      const two = protocol.formatToolCall(calls);
      expect(callsOf(protocol, two, [WEATHER])).toEqual(
        calls.map((call) => ({ toolName: call.toolName, input: call.input })),
      );
    });
  }
});
