import { describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../../src/core/errors.ts';
import type { EarlierConversation } from '../../../src/proxy/responses/request.ts';
import {
  readStoredConversation,
  storedConversationText,
  UnreadableStoredResponseError,
} from '../../../src/proxy/responses/stored-conversation.ts';

// A stored response's conversation as the text a shared store holds, and read back: every kind
// of turn comes back as it went in; text the proxy never wrote is refused, naming the field.

const EVERY_TURN: EarlierConversation = {
  system: 'Be terse.',
  turns: [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'And this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
      ],
    },
    { role: 'system', content: 'Answer in English.' },
    {
      role: 'assistant',
      text: 'Let me check.',
      reasoning: 'The user wants weather.',
      calls: [
        { toolName: 'get_weather', toolCallId: 'call_1', input: { city: 'Paris', '>': [1, null] } },
        { toolName: 'get_time', input: {} },
      ],
    },
    {
      role: 'tool-results',
      results: [
        { toolName: 'get_weather', toolCallId: 'call_1', output: '{"sky":"sunny"}' },
        { toolName: 'get_time', output: 'no clock', isError: true },
      ],
    },
    { role: 'assistant', text: 'Sunny.', calls: [] },
  ],
};

describe('stored conversations', () => {
  it('every kind of turn reads back as it was stored', () => {
    const text = storedConversationText(EVERY_TURN);
    expect(readStoredConversation('resp_1', text)).toEqual(EVERY_TURN);
  });

  it('keys written with escapes read back as the keys they spell', () => {
    // `\u003e` is `>`: how writers keep `>` out of markup; V8's key bug could rename it.
    const text =
      '{"system":"","turns":[{"role":"assistant","text":"","calls":[{"toolName":"t","input":{"\\\\":1,"\\u003e":2}}]}]}';
    const read = readStoredConversation('resp_1', text);
    const turn = read.turns[0]!;
    if (turn.role !== 'assistant') throw new Error('not an assistant turn');
    expect(turn.calls[0]!.input).toEqual({ '\\': 1, '>': 2 });
  });

  it('refuses text the proxy never writes, naming the response and the field', () => {
    const cases: [string, RegExp][] = [
      ['', /is not JSON/],
      ['{"system":"","turns":[]', /is not JSON/],
      ['null', /the stored conversation is not an object/],
      ['{"turns":[]}', /system is not a string/],
      ['{"system":"","turns":{}}', /turns is not an array/],
      ['{"system":"","turns":[7]}', /turns\[0\] is not an object/],
      [
        '{"system":"","turns":[{"role":"user","content":5}]}',
        /turns\[0\]\.content is not an array/,
      ],
      ['{"system":"","turns":[{"role":"user","content":["x"]}]}', /content\[0\] is not an object/],
      ['{"system":"","turns":[{"role":"system"}]}', /turns\[0\]\.content is not a string/],
      [
        '{"system":"","turns":[{"role":"assistant","text":"","calls":[{"toolName":"t"}]}]}',
        /calls\[0\]\.input is not present/,
      ],
      [
        '{"system":"","turns":[{"role":"assistant","text":"","calls":[],"reasoning":1}]}',
        /reasoning is not a string/,
      ],
      [
        '{"system":"","turns":[{"role":"tool-results","results":[{"toolName":"t","output":"","isError":"yes"}]}]}',
        /isError is not a boolean/,
      ],
      [
        '{"system":"","turns":[{"role":"tool-results","results":[{"toolName":"t","toolCallId":3,"output":""}]}]}',
        /toolCallId is not a string/,
      ],
    ];
    for (const [text, reason] of cases) {
      let caught: unknown;
      try {
        readStoredConversation('resp_bad', text);
      } catch (error) {
        caught = error;
      }
      expect(caught, text).toBeInstanceOf(UnreadableStoredResponseError);
      expect(isErrorOfKind(caught, 'store-unavailable')).toBe(true);
      expect((caught as Error).message).toContain("the stored response 'resp_bad' cannot be read");
      expect((caught as Error).message, text).toMatch(reason);
    }
  });
});
