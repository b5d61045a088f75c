/**
 * The whole-call reader of parameter-tag formats (readWholeParameterCall): on any call it reads,
 * the same events as the streaming reader (ParameterTagsBody fed one character at a time); on
 * anything else it declines and emits nothing. Also the one-pass value layout (layoutValueText)
 * against the streaming one (ValueLayout).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../../src/core/parse-json.ts';
import type { ParseEvent, ToolDefinition } from '../../../../src/index.ts';
import {
  ParameterTagsBody,
  type ParameterTagsOpener,
  type ParameterTagsSyntax,
} from '../../../../src/protocols/codecs/tagged/parameter-tags-body.ts';
import {
  tagLiteralsOf,
  writeName,
} from '../../../../src/protocols/codecs/tagged/parameter-tags-syntax.ts';
import {
  layoutValueText,
  ValueLayout,
} from '../../../../src/protocols/codecs/tagged/parameter-tags-value.ts';
import {
  DECLINED,
  readWholeParameterCall,
} from '../../../../src/protocols/codecs/tagged/parameter-tags-whole-call.ts';
import { defineProtocol } from '../../../../src/protocols/define/define-protocol.ts';
import type { CallContext, CallOutcome } from '../../../../src/protocols/engine/call-body.ts';
import { THINK_TAGS } from '../../../../src/protocols/engine/reasoning-tags.ts';
import { contentAtEverySplit, counterIds } from '../../helpers.ts';

const QWEN: ParameterTagsSyntax = {
  callOpen: '<function',
  callClose: '</function>',
  parameterOpen: '<parameter',
  parameterClose: '</parameter>',
  layout: 'block',
};
const MINIMAX: ParameterTagsSyntax = {
  callOpen: '<invoke',
  callClose: '</invoke>',
  parameterOpen: '<parameter',
  parameterClose: '</parameter>',
  layout: 'inline',
};
const DSML: ParameterTagsSyntax = {
  callOpen: '<｜DSML｜invoke',
  callClose: '</｜DSML｜invoke>',
  parameterOpen: '<｜DSML｜parameter',
  parameterClose: '</｜DSML｜parameter>',
  layout: 'inline',
};

type Format = {
  readonly label: string;
  readonly opener: ParameterTagsOpener;
  /** A call or parameter tag header naming `name`. */
  readonly header: (name: string, string?: boolean) => string;
};

const FORMATS: readonly Format[] = [
  {
    label: 'qwen3-coder',
    opener: { syntax: QWEN, blockClose: '</tool_call>' },
    header: (name) => `=${writeName(name)}`,
  },
  {
    label: 'minimax',
    opener: { syntax: MINIMAX, blockClose: '</minimax:tool_call>' },
    header: (name) => ` name="${writeName(name)}"`,
  },
  {
    label: 'dsml',
    opener: { syntax: DSML, blockClose: '</｜DSML｜function_calls>' },
    header: (name, string) =>
      ` name="${writeName(name)}"${string === undefined ? '' : ` string="${string}"`}`,
  },
];

const typed: ToolDefinition = {
  name: 'typed',
  inputSchema: {
    type: 'object',
    properties: {
      s: { type: 'string' },
      n: { type: 'integer' },
      x: { type: 'number' },
      b: { type: 'boolean' },
      o: { type: 'object', properties: { k: { type: 'integer' } } },
      a: { type: 'array', items: { type: 'string' } },
      e: { type: 'string', enum: ['red', 'green'] },
      sn: { type: ['string', 'number'] },
    },
    required: ['s'],
    additionalProperties: false,
  },
};
/** No schema for its parameters: values are typed by how they look. */
const open: ToolDefinition = { name: 'open', inputSchema: { type: 'object' } };
const TOOLS = [typed, open];

/** A CallContext that records what a reader emits and how it settles. */
function recordingContext() {
  const events: ParseEvent[] = [];
  const outcomes: CallOutcome[] = [];
  let fed = '';
  const context: CallContext = {
    options: {
      tools: TOOLS,
      toolsByName: new Map(TOOLS.map((tool) => [tool.name, tool])),
      maxCallChars: Number.MAX_SAFE_INTEGER,
      emitRawTextOnError: true,
      startInReasoning: false,
      validate: true,
      generateId: counterIds(),
      maxDepth: 64,
    },
    emit: (event) => events.push(event),
    inputDelta: (id, delta) => {
      const last = events.at(-1);
      // Deltas that follow each other are one event, as the engine joins them within a push.
      if (last?.type === 'tool-input-delta' && last.id === id) {
        events[events.length - 1] = { ...last, delta: last.delta + delta };
      } else events.push({ type: 'tool-input-delta', id, delta });
    },
    emitText: (text) => events.push({ type: 'text-delta', id: 'text', delta: text }),
    reportFault: (fault) =>
      events.push({
        type: 'error',
        error: { code: fault.code, message: fault.message, raw: fault.raw },
      } as ParseEvent),
    get callLength() {
      return fed.length;
    },
    callText: (start, end) => fed.slice(start, end),
    settle: (outcome) => outcomes.push(outcome),
  };
  return { context, events, outcomes, feed: (text: string) => (fed += text) };
}

/**
 * `block` (what follows the block opener: calls, then the block closer) read by the streaming
 * reader one character at a time, up to the end of its first call. The whole-call reader is
 * tried by the body too, but never has a whole call in one character.
 */
function streamFirstCall(format: Format, block: string) {
  const recording = recordingContext();
  const body = new ParameterTagsBody(recording.context, format.opener);
  // Only the first call: stop once it is emitted or has failed.
  for (const character of block) {
    recording.feed(character);
    if (body.write(character, 0, character.length) !== -1) break;
    if (recording.outcomes.length > 0) break;
  }
  return recording;
}

/** The whole-call reader on `block`, whose first call starts at its start. */
function readWhole(format: Format, block: string) {
  const recording = recordingContext();
  recording.feed(block);
  const syntax = format.opener.syntax;
  const end = readWholeParameterCall(
    recording.context,
    syntax,
    tagLiteralsOf(format.opener),
    block,
    syntax.callOpen.length,
    block.length,
  );
  return { ...recording, end };
}

type Parameter = { name: string; raw: string; string?: boolean };

function callText(format: Format, tool: string, parameters: readonly Parameter[], gap = '\n') {
  const syntax = format.opener.syntax;
  let text = `${syntax.callOpen}${format.header(tool)}>${gap}`;
  for (const parameter of parameters) {
    text += `${syntax.parameterOpen}${format.header(parameter.name, parameter.string)}>${parameter.raw}${syntax.parameterClose}${gap}`;
  }
  return `${text}${syntax.callClose}`;
}

/** Text of values: prose, markup that is not the call's, JSON pieces, layout white space. */
const PLAIN_PIECE = fc.oneof(
  fc.constantFrom(
    'a',
    'word ',
    ' ',
    '  ',
    '\t',
    '\n',
    '\r\n',
    '\r',
    '<',
    'a < b',
    '<div>',
    '</div>',
    '<br/>',
    '&amp;',
    '&',
    'é',
    '😀',
    '"',
    '1',
    '-2.5',
    'true',
    'null',
    '{',
    '}',
    '[',
    ']',
    '{"k": 1}',
    '["x"]',
    'red',
  ),
  fc.string({ maxLength: 3 }),
);
/** Everything above, and the tags of the call itself (which may end a value, or be content). */
const ANY_PIECE = fc.oneof(
  { weight: 4, arbitrary: PLAIN_PIECE },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'TAG_PARAMETER_CLOSE',
      'TAG_PARAMETER_OPEN',
      'TAG_CALL_CLOSE',
      'TAG_BLOCK_CLOSE',
      'TAG_CALL_OPEN',
      '\n',
    ),
  },
);

function rawValueOf(pieces: readonly string[], format: Format): string {
  const syntax = format.opener.syntax;
  const tags: Record<string, string> = {
    TAG_PARAMETER_CLOSE: syntax.parameterClose,
    TAG_PARAMETER_OPEN: `${syntax.parameterOpen}${format.header('s')}>`,
    TAG_CALL_CLOSE: syntax.callClose,
    TAG_BLOCK_CLOSE: format.opener.blockClose!,
    TAG_CALL_OPEN: `${syntax.callOpen}${format.header('open')}>`,
  };
  return pieces.map((piece) => tags[piece] ?? piece).join('');
}

const NAME = fc.constantFrom('s', 'n', 'x', 'b', 'o', 'a', 'e', 'sn', 'other', '__proto__', 'k y');

function parametersArbitrary(piece: fc.Arbitrary<string>) {
  return fc.array(
    fc.record({
      name: NAME,
      pieces: fc.array(piece, { maxLength: 8 }),
      string: fc.constantFrom(undefined, true, false),
    }),
    { maxLength: 5 },
  );
}

const CASE = (piece: fc.Arbitrary<string>) =>
  fc.record({
    format: fc.constantFrom(...FORMATS),
    tool: fc.constantFrom('typed', 'open'),
    parameters: parametersArbitrary(piece),
    gap: fc.constantFrom('\n', '', ' \n  '),
    after: fc.constantFrom('\n', '', 'text', '\n<function=open>'),
  });

function blockOf(generated: {
  format: Format;
  tool: string;
  parameters: { name: string; pieces: string[]; string: boolean | undefined }[];
  gap: string;
  after: string;
}) {
  const { format } = generated;
  const parameters = generated.parameters.map((parameter) => ({
    name: parameter.name,
    raw: rawValueOf(parameter.pieces, format),
    // Only DSML writes the `string` attribute.
    ...(format.label === 'dsml' && parameter.string !== undefined
      ? { string: parameter.string }
      : {}),
  }));
  const call = callText(format, generated.tool, parameters, generated.gap);
  return { call, block: `${call}${generated.after}${format.opener.blockClose}` };
}

describe('readWholeParameterCall', () => {
  it('emits exactly what the streaming reader emits for every call it reads', () => {
    let read = 0;
    fc.assert(
      fc.property(CASE(ANY_PIECE), (generated) => {
        const { block } = blockOf(generated);
        const whole = readWhole(generated.format, block);
        if (whole.end === DECLINED) {
          expect(whole.events).toEqual([]);
          expect(whole.outcomes).toEqual([]);
          return;
        }
        read++;
        const streamed = streamFirstCall(generated.format, block);
        expect(whole.events).toEqual(streamed.events);
        expect(whole.outcomes).toEqual(streamed.outcomes);
        // It ends where the streaming reader's call ends: just after the call's closer.
        expect(whole.end).toBe(streamed.context.callLength);
      }),
      { numRuns: 600 },
    );
    // Most generated calls are read (those whose values hold a tag of the call are often not).
    expect(read).toBeGreaterThan(150);
  });

  it('reads every call whose values hold no tag of the call, with each parameter given once', () => {
    fc.assert(
      fc.property(CASE(PLAIN_PIECE), (generated) => {
        const names = generated.parameters.map((parameter) => parameter.name);
        fc.pre(new Set(names).size === names.length);
        const { call, block } = blockOf(generated);
        const whole = readWhole(generated.format, block);
        expect(whole.end).toBe(call.length);
        const events = whole.events.map((event) => event.type);
        expect(events).toEqual([
          'tool-input-start',
          'tool-input-delta',
          'tool-input-end',
          'tool-call',
        ]);
        expect(whole.events).toEqual(streamFirstCall(generated.format, block).events);
      }),
      { numRuns: 400 },
    );
  });

  it('types values as the streaming reader does', () => {
    const qwen = FORMATS[0]!;
    const dsml = FORMATS[2]!;
    const inputOf = (format: Format, tool: string, parameters: Parameter[]) => {
      const { events, end } = readWhole(format, `${callText(format, tool, parameters)}\n`);
      expect(end).not.toBe(DECLINED);
      const call = events.find((event) => event.type === 'tool-call');
      return call?.type === 'tool-call' ? parseJsonText(call.input) : undefined;
    };
    expect(
      inputOf(qwen, 'typed', [
        { name: 's', raw: '\n  indented\n' },
        { name: 'n', raw: '\n42\n' },
        { name: 'x', raw: ' 2.5 ' },
        { name: 'b', raw: '\ntrue\n' },
        { name: 'o', raw: '\n{"k": "7"}\n' },
        { name: 'a', raw: '\n["p", "q"]\n' },
        { name: 'sn', raw: '\n12\n' },
      ]),
      // `sn` admits strings and numbers: text that is a JSON number is the number (coerceText).
    ).toEqual({ s: '  indented', n: 42, x: 2.5, b: true, o: { k: 7 }, a: ['p', 'q'], sn: 12 });
    expect(
      inputOf(qwen, 'open', [
        { name: 'n', raw: '\n42\n' },
        { name: 't', raw: '\n"quoted"\n' },
        { name: 'l', raw: '\n[1, "a"]\n' },
        { name: 'w', raw: '\n3 apples\n' },
      ]),
    ).toEqual({ n: 42, t: '"quoted"', l: [1, 'a'], w: '3 apples' });
    expect(
      inputOf(dsml, 'open', [
        { name: 'r', raw: '42', string: true },
        { name: 'j', raw: '{"x": [1, 2]}', string: false },
      ]),
    ).toEqual({ r: '42', j: { x: [1, 2] } });
  });

  it('reads a closing tag that no tag of the call follows as content, like the streaming reader', () => {
    const qwen = FORMATS[0]!;
    const raw = '\nif (a < b) x = "</parameter> and <div>";\n</parameter>?\n';
    const block = `${callText(qwen, 'typed', [{ name: 's', raw }])}\n</tool_call>`;
    const whole = readWhole(qwen, block);
    expect(whole.end).not.toBe(DECLINED);
    expect(whole.events).toEqual(streamFirstCall(qwen, block).events);
    const call = whole.events.find((event) => event.type === 'tool-call');
    expect(call?.type === 'tool-call' && (parseJsonText(call.input) as { s: unknown }).s).toBe(
      'if (a < b) x = "</parameter> and <div>";\n</parameter>?',
    );
  });

  it('declines calls that are cut off, and emits nothing', () => {
    for (const format of FORMATS) {
      const call = callText(format, 'typed', [
        { name: 's', raw: '\nhello </b> world\n' },
        { name: 'n', raw: '\n3\n' },
      ]);
      for (let cut = format.opener.syntax.callOpen.length; cut < call.length; cut++) {
        const whole = readWhole(format, call.slice(0, cut));
        expect(whole.end, `${format.label} cut at ${cut}`).toBe(DECLINED);
        expect(whole.events).toEqual([]);
        expect(whole.outcomes).toEqual([]);
      }
      expect(readWhole(format, call).end).toBe(call.length);
    }
  });

  it('declines malformed and unusual calls, and emits nothing', () => {
    const cases = [
      // The value's closer is missing before the call's closer.
      '<function=typed>\n<parameter=s>\nx\n</function>\n',
      // The call's closer is missing.
      '<function=typed>\n<parameter=s>\nx\n</parameter>\n</tool_call>',
      // The next parameter at the start of a line closes the value.
      '<function=typed>\n<parameter=s>\nx\n<parameter=n>\n1\n</parameter>\n</function>',
      // A parameter given twice.
      '<function=typed>\n<parameter=s>\nx\n</parameter>\n<parameter=s>\ny\n</parameter>\n</function>',
      // Stray text or tags between parameters.
      '<function=typed>\nnote\n<parameter=s>\nx\n</parameter>\n</function>',
      '<function=typed>\n<parameters>\n<parameter=s>\nx\n</parameter>\n</function>',
      // Undeclared tool; a header broken by a line break; a parameter header that is not one.
      '<function=nope>\n<parameter=s>\nx\n</parameter>\n</function>',
      '<function=ty\nped>\n<parameter=s>\nx\n</parameter>\n</function>',
      '<function=typed>\n<parameter s>\nx\n</parameter>\n</function>',
      // The call's closer in a value, followed by a line break or a tag of the call: the call
      // ends there.
      '<function=typed>\n<parameter=s>\nx</function>\ny\n</parameter>\n</function>',
      '<function=typed>\n<parameter=s>\nx</function> <parameter=n>\n1\n</parameter>\n</function>',
    ];
    const qwen = FORMATS[0]!;
    for (const text of cases) {
      const whole = readWhole(qwen, `${text}</tool_call>`);
      expect(whole.end, text).toBe(DECLINED);
      expect(whole.events).toEqual([]);
      expect(whole.outcomes).toEqual([]);
    }
  });

  it('gives the same content at every split, with calls read whole and streamed in one block', () => {
    const openers = [
      { literal: '<tool_call>', delimited: false, data: FORMATS[0]!.opener },
    ] as const;
    const protocol = defineProtocol<ParameterTagsOpener>({
      name: 'test',
      grammar: {
        reasoningTags: THINK_TAGS,
        callOpeners: () => openers,
        openCall: (opener, context) => new ParameterTagsBody(context, opener),
      },
      formatTools: () => '',
      formatToolCall: () => '',
      formatToolResponse: () => '',
    });
    const text =
      'Before <tool_call>\n<function=typed>\n<parameter=s>\na </parameter> b\n</parameter>\n<parameter=n>\n4\n</parameter>\n</function>\n' +
      '<function=open>\n<parameter=v>\n[1]\n</parameter>\n<parameter=v>\n2\n</parameter>\n</function>\n' +
      '<function=typed>\n<parameter=s>\nlast\n</parameter>\n</tool_call> after';
    const content = contentAtEverySplit(protocol, text, { tools: TOOLS }) as {
      type: string;
      input?: string;
    }[];
    expect(
      content.filter((part) => part.type === 'tool-call').map((part) => parseJsonText(part.input!)),
    ).toEqual([{ s: 'a </parameter> b', n: 4 }, { v: [1] }, { s: 'last' }]);
  });
});

describe('layoutValueText', () => {
  const PIECE = fc.constantFrom('\n', '\r\n', '\r', ' ', '\t', 'a', 'b c', '  x', '\n  ');
  it('gives what ValueLayout gives, however the value is split', () => {
    fc.assert(
      fc.property(
        fc.array(PIECE, { maxLength: 12 }),
        fc.constantFrom('block' as const, 'inline' as const, 'exact' as const),
        (pieces, layout) => {
          let streamed = '';
          const sink = new ValueLayout(layout, (text) => {
            streamed += text;
          });
          for (const piece of pieces) sink.literal(piece);
          sink.end();
          expect(layoutValueText(pieces.join(''), layout)).toBe(streamed);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps an exact value as written, split anywhere, when its own closer ends it', () => {
    fc.assert(
      fc.property(fc.array(PIECE, { maxLength: 12 }), (pieces) => {
        let streamed = '';
        const sink = new ValueLayout('exact', (text) => {
          streamed += text;
        });
        for (const piece of pieces) sink.literal(piece);
        sink.end(true);
        expect(streamed).toBe(pieces.join(''));
      }),
      { numRuns: 1000 },
    );
  });
});
