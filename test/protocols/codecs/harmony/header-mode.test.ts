/**
 * The harmony header mode: the header reader (what it takes and refuses, what a header says the
 * message is), the mode's validation, and a mode that is nobody's built into a spec format,
 * read whole and at every split.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../../src/index.ts';
import {
  calledToolIn,
  HeaderReader,
  type HeaderStart,
} from '../../../../src/protocols/codecs/harmony/header-reader.ts';
import {
  type HeaderModeSpec,
  headerModeProblem,
} from '../../../../src/protocols/codecs/harmony/header-spec.ts';
import {
  MUSE_GLIMMER_HEADER,
  museGlimmerFormat,
} from '../../../../src/protocols/formats/muse-glimmer.ts';
import { GPT_OSS_HEADER, gptOssFormat } from '../../../../src/protocols/gpt-oss/index.ts';
import { defineFormat, specOf } from '../../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../../src/protocols/spec/types.ts';
import { readAtEverySplit } from '../../formats/tagged-spec-checks.ts';
import { weatherTool } from '../../helpers.ts';

/** What the reader makes of `header` (its text after the opener, up to the message marker). */
function read(mode: HeaderModeSpec, start: HeaderStart, header: string) {
  const reader = new HeaderReader(mode, start);
  const text = header + mode.message;
  const stop = reader.read(text, 0, text.length);
  if (reader.failed) return { failedAt: stop, roleEnd: reader.roleEnd };
  return { ...reader.meaning(), spaced: reader.spaced };
}

describe('HeaderReader', () => {
  it.each([
    ['role', 'assistant<|channel|>commentary to=functions.f <|constrain|>json', 'f'],
    ['role', 'assistant to=functions.f<|channel|>commentary json', 'f'],
    ['role', '  assistant to=f<|channel|>analysis', 'f'],
    ['channel', 'commentary to=functions.f <|constrain|>json', 'f'],
    ['channel', ' \tcommentary\tto=functions.f\t<|constrain|> json', 'f'],
    ['recipient', 'functions.f<|channel|>commentary <|constrain|>json', 'f'],
  ] as const)('reads a call of the recipient: after %s, %j', (start, header, name) => {
    expect(read(GPT_OSS_HEADER, start, header)).toMatchObject({ kind: 'call', name });
    expect(calledToolIn(GPT_OSS_HEADER, start, header)).toBe(name);
  });

  it('reads what a message with no recipient is from its channel, or from the recipient named', () => {
    expect(read(GPT_OSS_HEADER, 'channel', 'analysis')).toEqual({
      kind: 'reasoning',
      spaced: false,
    });
    expect(read(GPT_OSS_HEADER, 'role', 'assistant<|channel|> final ')).toEqual({
      kind: 'text',
      spaced: true,
    });
    const muse = MUSE_GLIMMER_HEADER;
    expect(read(muse, 'role', 'assistant to=self')).toMatchObject({ kind: 'reasoning' });
    expect(read(muse, 'recipient', 'user')).toMatchObject({ kind: 'text' });
    expect(read(muse, 'role', 'assistant')).toMatchObject({ kind: 'text' });
    expect(read(muse, 'role', 'assistant to=get_weather.get_weather')).toMatchObject({
      kind: 'call',
      name: 'get_weather.get_weather',
    });
    expect(calledToolIn(muse, 'role', 'assistant to=self')).toBeUndefined();
  });

  it('refuses at the first character no header has, and says where the role ended', () => {
    // Unknown role, unknown channel, a recipient without white space before it or with a
    // space inside its prefix, a bare word with no channel, an unknown special token.
    expect(read(GPT_OSS_HEADER, 'role', 'user<|channel|>final')).toEqual({
      failedAt: 0,
      roleEnd: -1,
    });
    expect(read(GPT_OSS_HEADER, 'channel', 'chat to=functions.f')).toMatchObject({ failedAt: 1 });
    expect(read(GPT_OSS_HEADER, 'channel', 'commentaryto=functions.f')).toMatchObject({
      failedAt: 10,
    });
    expect(read(GPT_OSS_HEADER, 'channel', 'commentary to = functions.f')).toMatchObject({
      failedAt: 13,
    });
    expect(read(MUSE_GLIMMER_HEADER, 'role', 'assistant json')).toMatchObject({
      failedAt: 10,
      roleEnd: 9,
    });
    expect(read(GPT_OSS_HEADER, 'role', 'assistantHello')).toEqual({ failedAt: 9, roleEnd: 9 });
    expect(read(MUSE_GLIMMER_HEADER, 'role', 'assistant to=f<|channel|>commentary')).toMatchObject({
      failedAt: 16,
    });
    expect(read(GPT_OSS_HEADER, 'role', `assistant to=${'f'.repeat(300)}`)).toMatchObject({
      failedAt: 256,
    });
  });
});

describe('headerModeProblem', () => {
  const forms = [{ codec: 'tagged' }];
  it('accepts the built-in modes', () => {
    expect(headerModeProblem(GPT_OSS_HEADER, [])).toBeUndefined();
    expect(headerModeProblem(MUSE_GLIMMER_HEADER, forms)).toBeUndefined();
  });

  it.each([
    [{ ...GPT_OSS_HEADER, open: '' }, 'header.open'],
    [{ ...GPT_OSS_HEADER, roles: [] }, 'header.roles'],
    [
      { ...GPT_OSS_HEADER, channel: { marker: '<|c|>', names: { a: 'answer' } } },
      'header.channel.names.a',
    ],
    [{ ...GPT_OSS_HEADER, channel: { marker: '<|c|>', names: {} } }, 'header.channel.names'],
    [{ ...GPT_OSS_HEADER, recipients: { self: 'thinking' } }, 'header.recipients.self'],
    [{ ...GPT_OSS_HEADER, startInHeader: 'yes' }, 'header.startInHeader'],
    [{ ...GPT_OSS_HEADER, colour: 'red' }, 'header.colour'],
    [{ ...GPT_OSS_HEADER, toolMessage: { arguments: 'json' } }, 'header.toolMessage.close'],
    [{ ...GPT_OSS_HEADER, toolMessage: { form: 1, close: '<|c|>' } }, 'header.toolMessage.form'],
    [{ ...GPT_OSS_HEADER, toolMessage: { form: 0, close: '<|c|>' } }, undefined],
  ])('names the field at fault: %#', (mode, path) => {
    expect(headerModeProblem(mode, forms)?.path).toBe(path);
  });
});

/** A harmony-like format that is nobody's: the header mode with other literals. */
const MODE: HeaderModeSpec = {
  open: '<<',
  roles: ['bot'],
  recipient: '@',
  namePrefixes: ['tools.'],
  channel: { marker: '##', names: { think: 'reasoning', say: 'text' } },
  message: '::',
  ends: ['<end>'],
  toolMessage: { arguments: 'json', close: '<call>' },
  startInHeader: true,
};
const SPEC: FormatSpec = {
  spec: 1,
  name: 'test-header-mode',
  header: MODE,
  calls: [{ codec: 'json', open: '<json>', close: '</json>' }],
  write: { call: '<<bot ##say @tools.{name}::{arguments}<call>' },
  results: { each: '{output}' },
};
const protocol = defineFormat(SPEC);
const tools: ToolDefinition[] = [weatherTool];

describe('a header mode that is nobody’s', () => {
  it('reads reasoning, text and calls from the headers, whole and at every split', () => {
    const text =
      ' @tools.get_weather##say::{"city": "A"}<call><<bot##think::Hmm.<end><<bot ##say @tools.get_weather::{"city": "B"}<call><<bot##say::Done.<end>';
    expect(readAtEverySplit(protocol, text, { tools })).toEqual({
      calls: [
        ['get_weather', { city: 'A' }],
        ['get_weather', { city: 'B' }],
      ],
      text: 'Done.',
      reasoning: 'Hmm.',
      errors: [],
    });
  });

  it('ends a message at the next header, and drops the role alone before prose', () => {
    expect(readAtEverySplit(protocol, '##say::Hi<<bot##think::Hmm', { tools })).toMatchObject({
      text: 'Hi',
      reasoning: 'Hmm',
    });
    expect(readAtEverySplit(protocol, '<<botHello <<bot', { tools })).toMatchObject({
      text: 'Hello ',
    });
    // Not a header: text as written.
    expect(readAtEverySplit(protocol, 'a <<user::b ##sing:: c', { tools })).toMatchObject({
      text: 'a <<user::b ##sing:: c',
    });
  });

  it('keeps a call to an undeclared tool as text, and reports a cut-off call', () => {
    expect(
      readAtEverySplit(protocol, '<<bot##say @tools.fly::{"to": "moon"}<call>', { tools }),
    ).toMatchObject({ calls: [], text: '<<bot##say @tools.fly::{"to": "moon"}', errors: [] });
    expect(
      readAtEverySplit(protocol, '<<bot##say @tools.get_weather::{"city": "A', { tools }).errors,
    ).toMatchObject([{ code: 'incomplete-call' }]);
  });

  it('round-trips its writer', () => {
    const written = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
    expect(readAtEverySplit(protocol, written, { tools }).calls).toEqual([
      ['get_weather', { city: 'Oslo' }],
    ]);
  });
});

describe('the formats on the header mode are specs', () => {
  it.each([
    ['gpt-oss', gptOssFormat],
    ['muse-glimmer', museGlimmerFormat],
  ] as const)('%s', (name, entry) => {
    expect(specOf(entry.create())?.name).toBe(name);
  });
});
