/**
 * The model's earlier reasoning, sent back by the client (issue 22, section 2): Anthropic's
 * `thinking` blocks, chat completions' `reasoning_content` / `reasoning`, Responses' `reasoning`
 * items. It reaches the model server beside the assistant's text, in the fields llama.cpp
 * (`reasoning_content`) and vLLM (`reasoning`) read and hand to the chat template, which keeps
 * it where its model was trained to see it and drops it otherwise. It never joins the text.
 */
import { describe, expect, it } from 'vitest';
import { protocolByName } from '../../src/protocols/index.ts';
import { readMessagesRequest } from '../../src/proxy/anthropic-request.ts';
import { readChatCompletionsRequest } from '../../src/proxy/openai-request.ts';
import { readResponsesRequest } from '../../src/proxy/responses/request.ts';
import { upstreamMessages } from '../../src/proxy/upstream-messages.ts';
import { proxyHarness, WEATHER } from './harness.ts';

const hermes = protocolByName('hermes');
const call = hermes.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });

const TOOL = {
  name: WEATHER.name,
  description: WEATHER.description,
  input_schema: WEATHER.inputSchema,
};

/** A Claude Code turn: thinking (signed, then with an empty signature), a call, its result. */
function messagesBody(): Record<string, unknown> {
  return {
    model: 'qwen3',
    max_tokens: 100,
    tools: [TOOL],
    messages: [
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'The user wants Oslo.', signature: 'EqQBCkYI…' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3…' },
          { type: 'text', text: 'Let me check.' },
          { type: 'thinking', thinking: 'One call will do.', signature: '' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' }],
      },
    ],
  };
}

const REASONING = 'The user wants Oslo.\nOne call will do.';

describe('earlier reasoning in history', () => {
  it('Messages: thinking blocks go upstream beside the text, redacted ones stay behind', () => {
    const messages = upstreamMessages(readMessagesRequest(messagesBody()), hermes);
    expect(messages.slice(1)).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: `Let me check.\n${call}`,
        reasoning_content: REASONING,
        reasoning: REASONING,
      },
      {
        role: 'user',
        content: hermes.formatToolResponse([
          { toolName: 'get_weather', toolCallId: 'toolu_1', output: 'Sunny', isError: false },
        ]),
      },
    ]);
    // Never in the text, where a template that drops reasoning would still show it.
    for (const message of messages) {
      const text = JSON.stringify(message.content);
      expect(text).not.toContain('wants Oslo');
      expect(text).not.toContain('EmwKAhgBEgy3');
    }
  });

  it('Messages: a turn without thinking carries no reasoning fields', () => {
    const body = messagesBody();
    const messages = body.messages as { content: unknown }[];
    messages[1] = { role: 'assistant', content: 'Plain answer.' } as never;
    messages.length = 2;
    messages.push({ role: 'user', content: 'Thanks.' } as never);
    const sent = upstreamMessages(readMessagesRequest(body), hermes);
    expect(sent[2]).toEqual({ role: 'assistant', content: 'Plain answer.' });
  });

  it('Messages: a thinking block without its text is refused, naming the field', () => {
    const body = messagesBody();
    const messages = body.messages as { content: Record<string, unknown>[] }[];
    messages[1]!.content[0] = { type: 'thinking', signature: 'x' };
    expect(() => readMessagesRequest(body)).toThrow(/messages\[1\]\.content\[0\]\.thinking/);
  });

  it('chat completions: reasoning_content, or reasoning, round-trips; empty is none', () => {
    const request = readChatCompletionsRequest({
      model: 'qwen3',
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'Need the weather.',
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'Sunny' },
        { role: 'assistant', content: 'Sunny.', reasoning: 'Say it.' },
        { role: 'user', content: 'And?' },
        { role: 'assistant', content: 'Nothing more.', reasoning_content: '' },
        { role: 'user', content: 'OK.' },
      ],
    });
    const assistants = upstreamMessages(request, hermes).filter(
      (message) => message.role === 'assistant',
    );
    expect(assistants).toEqual([
      {
        role: 'assistant',
        content: call,
        reasoning_content: 'Need the weather.',
        reasoning: 'Need the weather.',
      },
      { role: 'assistant', content: 'Sunny.', reasoning_content: 'Say it.', reasoning: 'Say it.' },
      { role: 'assistant', content: 'Nothing more.' },
    ]);
  });

  it('chat completions: reasoning_content that is not text is refused', () => {
    expect(() =>
      readChatCompletionsRequest({
        model: 'm',
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'y', reasoning_content: 7 },
        ],
      }),
    ).toThrow(/messages\[1\]\.reasoning_content/);
  });

  it('Responses: a reasoning item opens its reply; encrypted content stays behind', () => {
    const { chat } = readResponsesRequest({
      model: 'gpt-oss',
      tools: [{ type: 'function', name: 'get_weather', parameters: {} }],
      input: [
        { role: 'user', content: 'Weather?' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'Look it up.' }],
          encrypted_content: 'gAAAAB…',
        },
        {
          type: 'function_call',
          call_id: 'c1',
          name: 'get_weather',
          arguments: '{"city":"Oslo"}',
        },
        { type: 'function_call_output', call_id: 'c1', output: 'Sunny' },
        {
          type: 'reasoning',
          id: 'rs_2',
          summary: [],
          content: [{ type: 'reasoning_text', text: 'Answer now.' }],
        },
        // Only encrypted: nothing a model server could read.
        { type: 'reasoning', id: 'rs_3', summary: [], encrypted_content: 'gAAAAC…' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Sunny.' }] },
        { role: 'user', content: 'Thanks.' },
      ],
    });
    const assistants = upstreamMessages(chat, hermes).filter(
      (message) => message.role === 'assistant',
    );
    expect(assistants).toEqual([
      {
        role: 'assistant',
        content: call,
        reasoning_content: 'Look it up.',
        reasoning: 'Look it up.',
      },
      {
        role: 'assistant',
        content: 'Sunny.',
        reasoning_content: 'Answer now.',
        reasoning: 'Answer now.',
      },
    ]);
    expect(JSON.stringify(upstreamMessages(chat, hermes))).not.toContain('gAAAA');
  });

  it('consecutive assistant messages of one reply join their reasoning too', () => {
    const request = readChatCompletionsRequest({
      model: 'm',
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: {} } }],
      messages: [
        { role: 'user', content: 'x' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'First.',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
          ],
        },
        { role: 'assistant', content: 'Checking.', reasoning_content: 'Second.' },
      ],
    });
    const last = upstreamMessages(request, hermes).at(-1);
    expect(last).toMatchObject({
      role: 'assistant',
      reasoning_content: 'First.\n\nSecond.',
      reasoning: 'First.\n\nSecond.',
    });
  });
});

describe('earlier reasoning through the proxy', () => {
  const startProxy = proxyHarness();

  it('reaches the model server in the request body, beside the text', async () => {
    const { url, upstream } = await startProxy([{ text: 'Sunny in Oslo.' }]);
    const response = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test' },
      body: JSON.stringify(messagesBody()),
    });
    expect(response.status).toBe(200);
    const assistant = upstream.requests[0]!.messages.find(
      (message) => message.role === 'assistant',
    ) as Record<string, unknown>;
    expect(assistant).toEqual({
      role: 'assistant',
      content: `Let me check.\n${call}`,
      reasoning_content: REASONING,
      reasoning: REASONING,
    });
  });
});
