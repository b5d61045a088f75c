/**
 * The worked example of docs/formats.md (examples/react-format.ts): a format written outside
 * toolwire from its public parts streams, types and guards like the built-in ones.
 */
import { describe, expect, it } from 'vitest';
import { reactProtocol } from '../../examples/react-format.ts';
import { autoProtocol } from '../../src/index.ts';
import { defineProtocol } from '../../src/protocols/define/define-protocol.ts';
import type { CallBody, CallContext } from '../../src/protocols/engine/call-body.ts';
import type { ReasoningTag } from '../../src/protocols/engine/stream-engine.ts';
import { contentAtEverySplit, weatherTool } from './helpers.ts';

const react = reactProtocol();
const tools = [weatherTool];

describe('a format of your own (examples/react-format.ts)', () => {
  it('reads a call at every split, typed by the schema', () => {
    const text =
      'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Oslo", "days": "3"}\nDone.';
    expect(contentAtEverySplit(react, text, { tools })).toEqual([
      { type: 'text', text: 'Thought: I need the weather.\n' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo","days":3}' },
      { type: 'text', text: '\nDone.' },
    ]);
  });

  it('leaves prose and undeclared tools as text', () => {
    for (const text of ['Action: dance\nAction Input: {"x": 1}', 'Action: get_weather and more']) {
      const content = contentAtEverySplit(react, text, { tools }) as { type: string }[];
      expect(content.every((part) => part.type === 'text')).toBe(true);
    }
  });

  it('round-trips its own history', () => {
    const text = react.formatToolCall({ toolName: 'get_weather', input: { city: 'Lima' } });
    expect(react.parseGeneratedText(text, { tools })).toEqual([
      expect.objectContaining({ type: 'tool-call', input: '{"city":"Lima"}' }),
    ]);
  });

  it('joins auto alongside the built-in formats', () => {
    const auto = autoProtocol({ formats: [react, 'hermes'] });
    const text =
      'Action: get_weather\nAction Input: {"city": "Oslo"}\n<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>';
    const calls = auto
      .parseGeneratedText(text, { tools })
      .filter((part) => part.type === 'tool-call');
    expect(calls.map((call) => call.input)).toEqual(['{"city":"Oslo"}', '{"city":"Rome"}']);
  });
});

/** A format of one opener whose body is `makeBody`, for the authoring API's guards. */
function formatWith(
  literal: string,
  makeBody: (context: CallContext) => CallBody,
  reasoningTags: readonly ReasoningTag[] = [],
) {
  return defineProtocol<null>({
    name: 'guarded',
    grammar: {
      reasoningTags,
      callOpeners: () => [{ literal, delimited: false, data: null }],
      openCall: (_data, context) => makeBody(context),
    },
    formatTools: () => '',
    formatToolCall: () => '',
    formatToolResponse: () => '',
  });
}

/** A body that reads nothing and hands back `leftover` as what it read past its call. */
function handingBack(leftover: (context: CallContext) => string) {
  return (context: CallContext): CallBody => {
    let given = '';
    return {
      write(_text, start) {
        given = leftover(context);
        context.settle({ kind: 'not-a-call' });
        return start;
      },
      get leftover() {
        return given;
      },
      finish: () => context.settle({ kind: 'not-a-call' }),
      abandon: () => {},
    };
  };
}

describe('the authoring API cannot hang a parser (issue 20 section 6)', () => {
  it('refuses an empty opener or reasoning literal when the format is defined, naming it', () => {
    const markup = handingBack(() => '');
    expect(() => formatWith('', markup)).toThrow(/guarded: a call opener's literal is empty/);
    expect(() => formatWith('<x>', markup, [{ open: '', close: '</r>' }])).toThrow(
      /guarded: a reasoning tag has an empty opening literal/,
    );
    expect(() => formatWith('<x>', markup, [{ open: '<r>', close: '' }])).toThrow(
      /guarded: a reasoning tag has an empty closing literal/,
    );
  });

  it('refuses an empty opener built from the tools when a parser is made, naming the format', () => {
    const protocol = defineProtocol<null>({
      name: 'per-tool',
      grammar: {
        reasoningTags: [],
        callOpeners: (options) =>
          options.tools.map((tool) => ({ literal: tool.name, delimited: false, data: null })),
        openCall: (_data, context) => handingBack(() => '')(context),
      },
      formatTools: () => '',
      formatToolCall: () => '',
      formatToolResponse: () => '',
    });
    const unnamed = { ...weatherTool, name: '' };
    expect(() => protocol.parseGeneratedText('text', { tools: [unnamed] })).toThrow(
      /per-tool: a call opener's literal is empty/,
    );
  });

  it('throws, naming the format, when a body hands back its whole call with its opener', () => {
    // The opener `<x>` and everything after it handed back: the same opener would be met again.
    const protocol = formatWith(
      '<x>',
      handingBack((context) => context.callText(0, 3)),
    );
    for (const read of [
      () => protocol.parseGeneratedText('a <x> b', { tools }),
      () => protocol.createStreamParser({ tools }).push('a <x> b'),
    ]) {
      expect(read).toThrow(/guarded: a call body handed back 3 characters, all of its call/);
    }
  });

  it('reads on when a body hands back all but its opener', () => {
    const protocol = formatWith(
      '<x>',
      handingBack((context) => context.callText(1, 3)),
    );
    expect(protocol.parseGeneratedText('a <x>> b', { tools })).toEqual([
      { type: 'text', text: 'a <x>> b' },
    ]);
  });
});
