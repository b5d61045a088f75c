/**
 * GigaChat 3 / 3.1. Vectors from vLLM's tests/tool_parsers/test_gigachat3_tool_parser.py: the
 * GigaChat 3 role header and the 3.1 token, content before either, `</s>` after, no arguments,
 * nested arguments, and the streaming test's 3-character chunks (no `<|function_call|>` or `</s`
 * may leak into the content or the arguments).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { gigachatFormat, gigachatSpec } from '../../../src/protocols/formats/gigachat.ts';
import { defineFormat } from '../../../src/protocols/spec/define.ts';
import { chunksOf, contentOf, streamEvents, TOOLS } from '../helpers.ts';
import {
  describeFamilyChecks,
  familyReaders,
  itBreaksABareCallOnlyWhereItOpensAResult,
} from './family-checks.ts';
import { callsIn, errorsIn, textIn } from './json-format-checks.ts';
import { expectNoWrapperIn } from './spec-format-checks.ts';

const gigachat = defineFormat(gigachatSpec);
const memory: ToolDefinition = { name: 'manage_user_memory', inputSchema: { type: 'object' } };
const tools = [...TOOLS, memory];
const CALL =
  '{"name": "manage_user_memory", "arguments": {"action": "create", "id": "preferences"}}';
const INPUT = { action: 'create', id: 'preferences' };
const GIGACHAT_3 = '<|message_sep|>\n\nfunction call<|role_sep|>\n';
const GIGACHAT_31 = '<|function_call|>';
const WRAPPERS = ['<|message_sep|>', 'function call', '<|role_sep|>', '<|function_call|>', '</s>'];
const { parts: readParts } = familyReaders(gigachat, WRAPPERS);

describe('gigachat', () => {
  for (const [version, opener] of [
    ['3', GIGACHAT_3],
    ['3.1', GIGACHAT_31],
  ] as const) {
    it(`reads GigaChat ${version}'s call, alone and after content, with or without </s>`, () => {
      const alone = readParts(opener + CALL, { tools });
      expect(callsIn(alone)).toEqual([{ name: 'manage_user_memory', input: INPUT }]);
      expect(textIn(alone)).toBe('');
      const after = readParts(`I'll check that for you.${opener}${CALL}</s>`, { tools });
      expect(callsIn(after)).toEqual([{ name: 'manage_user_memory', input: INPUT }]);
      expect(textIn(after)).toBe("I'll check that for you.");
    });
  }

  it('reads a call with no arguments and one with nested arguments', () => {
    expect(
      callsIn(
        readParts(`${GIGACHAT_31}{"name": "manage_user_memory", "arguments": {}}`, {
          tools,
        }),
      ),
    ).toEqual([{ name: 'manage_user_memory', input: {} }]);
    const nested = {
      action: 'update',
      content: {
        short_answers: true,
        hate_emojis: true,
        english_ui: false,
        russian_math_explanations: true,
      },
    };
    expect(
      callsIn(
        readParts(
          `${GIGACHAT_3}{"name": "manage_user_memory", "arguments": ${JSON.stringify(nested)}}</s>`,
          { tools },
        ),
      ),
    ).toEqual([{ name: 'manage_user_memory', input: nested }]);
  });

  it('streams in 3-character chunks with no marker in the content or the arguments', () => {
    for (const opener of [GIGACHAT_3, GIGACHAT_31]) {
      const text = `I'll check that for you.${opener}${CALL}</s>`;
      const events = streamEvents(gigachat, chunksOf(text, 3), { tools });
      expect(contentOf(events)).toEqual(contentOf(streamEvents(gigachat, [text], { tools })));
      const deltas = events.flatMap((event) =>
        event.type === 'tool-input-delta' ? [event.delta] : [],
      );
      expect(deltas.join('')).toBe(JSON.stringify(INPUT));
      const text3 = events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []));
      expectNoWrapperIn(text3.join(''), WRAPPERS);
    }
  });

  it('drops the turn framing of a plain reply; reports a cut-off call', () => {
    expect(textIn(readParts('Hello!<|message_sep|>\n\n'))).toBe('Hello!\n\n');
    const cut = readParts(`${GIGACHAT_31}{"name": "get_weather", "arguments": {"ci`);
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut)[0]?.code).toBe('incomplete-call');
  });

  it('declares the tools as a TypeScript namespace, as the template does', () => {
    const prompt = gigachat.formatTools(TOOLS);
    expect(prompt).toContain('namespace functions {');
    expect(prompt).toContain('type get_weather = (_: {');
    expect(prompt).toContain('<|function_call|>{"name": "get_weather"');
  });

  it('writes the 3.1 call, ending the turn with </s> as the model does', () => {
    expect(gigachat.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })).toBe(
      '<|function_call|>{"name": "get_weather", "arguments": {"city":"Oslo"}}</s>',
    );
  });

  it('keeps the text after a call it wrote, white space included', () => {
    const call = gigachat.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
    for (const after of ['\n', ' ', '\n\n']) {
      const parts = readParts(call + after);
      expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
      expect(textIn(parts)).toBe(after);
    }
  });
});

itBreaksABareCallOnlyWhereItOpensAResult(gigachat);

describeFamilyChecks({
  entry: gigachatFormat,
  protocol: gigachat,
  modelIds: {
    chosen: [
      'ai-sage/gigachat3-10b-a1.8b',
      'ai-sage/gigachat3-702b-a36b-preview',
      'ai-sage/gigachat3.1-10b-a1.8b',
    ],
    notChosen: ['ai-sage/gigachat3.5-10b'],
  },
  markup: [
    '<|function_call|>',
    '<|message_sep|>',
    '\n\n',
    'function call',
    '<|role_sep|>',
    'function call<|role_sep|>',
    '</s>',
  ],
  wrappers: WRAPPERS,
  outputs: ['function call<|role_sep|>[{"city": "Oslo"}'],
  linear: {
    call: (index) =>
      `${GIGACHAT_31}{"name": "get_weather", "arguments": {"city": "c${index}"}}</s>`,
    bigCall: (argument) =>
      `${GIGACHAT_31}{"name": "write_file", "arguments": {"path": "p", "content": "${argument}"}}</s>`,
  },
});
