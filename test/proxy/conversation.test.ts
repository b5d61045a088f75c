/**
 * The conversation as the model server gets it, when the client splits one reply of the model's
 * over several assistant messages (Codex sends a call, then its text, as two).
 */
import { describe, expect, it } from 'vitest';
import { protocolByName } from '../../src/protocols/index.ts';
import { readChatCompletionsRequest } from '../../src/proxy/openai-request.ts';
import { upstreamMessages } from '../../src/proxy/upstream-messages.ts';

const hermes = protocolByName('hermes');
const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};
const call = {
  id: 'c1',
  type: 'function',
  function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
};
const markup = hermes.formatToolCall([
  { toolName: 'get_weather', toolCallId: 'c1', input: { city: 'Oslo' } },
]);

function messagesOf(messages: unknown[]) {
  return upstreamMessages(
    readChatCompletionsRequest({ model: 'm', messages, tools: [weather] }),
    hermes,
  );
}

describe('consecutive assistant messages', () => {
  it('are one assistant turn: the text first, then the call, as the model writes them', () => {
    const messages = messagesOf([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'assistant', content: 'Let me look that up.' },
      { role: 'tool', tool_call_id: 'c1', content: 'rain' },
    ]);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    expect(messages[2]!.content).toBe(`Let me look that up.\n${markup}`);
  });

  it('join their texts and their calls in order', () => {
    const second = {
      ...call,
      id: 'c2',
      function: { ...call.function, arguments: '{"city":"Rome"}' },
    };
    const messages = messagesOf([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: 'First.', tool_calls: [call] },
      { role: 'assistant', content: 'Second.', tool_calls: [second] },
    ]);
    expect(messages.filter((message) => message.role === 'assistant')).toEqual([
      {
        role: 'assistant',
        content: `First.\n\nSecond.\n${hermes.formatToolCall([
          { toolName: 'get_weather', toolCallId: 'c1', input: { city: 'Oslo' } },
          { toolName: 'get_weather', toolCallId: 'c2', input: { city: 'Rome' } },
        ])}`,
      },
    ]);
  });

  it('stay apart when a user message stands between them', () => {
    const messages = messagesOf([
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'one' },
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'two' },
    ]);
    expect(messages.filter((message) => message.role === 'assistant')).toHaveLength(2);
  });
});

describe("an assistant text kept from after the model's reasoning", () => {
  it('does not open the turn with blank lines', () => {
    const messages = messagesOf([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '\n\nHello.\n\n' },
      { role: 'assistant', content: '\n\nHow can I help?' },
    ]);
    expect(messages.filter((message) => message.role === 'assistant')).toEqual([
      { role: 'assistant', content: 'Hello.\n\nHow can I help?' },
    ]);
  });
});
