import { describe, expect, it } from 'vitest';
import { JsonTextReader } from '../../../src/http/json-shape.ts';
import type { ChatRequest } from '../../../src/proxy/conversation.ts';
import {
  IMAGES_NOT_SHOWN,
  type OllamaChatRequest,
  readOllamaChatRequest,
} from '../../../src/proxy/ollama/request.ts';
import { refusal } from '../responses/helpers.ts';

const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

const readAny = (body: Record<string, unknown>): OllamaChatRequest =>
  readOllamaChatRequest({ model: 'llama3.2', ...body });

/** A request with messages, read as a chat. */
function read(body: Record<string, unknown>): {
  chat: ChatRequest;
  leftOutOptions: readonly string[];
} {
  const request = readAny({ messages: [{ role: 'user', content: 'Hi' }], ...body });
  if (request.kind !== 'chat') throw new Error(`read as ${request.kind}`);
  return request;
}

describe('reading Ollama /api/chat requests', () => {
  it('reads a plain chat: streamed by default, usage asked for, tool choice auto', () => {
    const { chat, leftOutOptions } = read({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(chat).toEqual({
      model: 'llama3.2',
      system: 'Be brief.',
      turns: [{ role: 'user', content: 'Hi' }],
      tools: [],
      toolChoice: { type: 'auto' },
      parallelToolCalls: true,
      stream: true,
      includeUsage: true,
      settings: {},
    });
    expect(leftOutOptions).toEqual([]);
  });

  it('reads stream: false, roles in any case, and a later system message as a system turn', () => {
    const { chat } = read({
      stream: false,
      messages: [
        { role: 'User', content: 'Hi' },
        { role: 'ASSISTANT', content: 'Hello.' },
        { role: 'system', content: 'Now be formal.' },
        { role: 'user' },
      ],
    });
    expect(chat.stream).toBe(false);
    expect(chat.system).toBe('');
    expect(chat.turns).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', text: 'Hello.', calls: [] },
      { role: 'system', content: 'Now be formal.' },
      { role: 'user', content: '' },
    ]);
  });

  it('reads function tools, with or without their type', () => {
    const { chat } = read({
      tools: [weather, { function: { name: 'get_time' } }],
    });
    expect(chat.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather for a city',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      },
      { name: 'get_time', inputSchema: { type: 'object' } },
    ]);
  });

  it('reads images as image parts before the text, their media type from their first bytes', () => {
    const { chat } = read({
      messages: [
        {
          role: 'user',
          content: 'What is this?',
          images: ['iVBORw0KGgoAAAA', '/9j/4AAQ', 'data:image/webp;base64,UklGRiQ'],
        },
        { role: 'user', content: '', images: ['R0lGODlh'] },
      ],
    });
    expect(chat.turns).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAA' } },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
          { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRiQ' } },
          { type: 'text', text: 'What is this?' },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'image_url', image_url: { url: 'data:image/gif;base64,R0lGODlh' } }],
      },
    ]);
  });

  it('notes images on a tool result instead of dropping them silently', () => {
    const { chat } = read({
      messages: [
        { role: 'user', content: 'Screenshot?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ function: { name: 'shot', arguments: {} } }],
        },
        { role: 'tool', content: 'taken', images: ['iVBORw0KGgo'] },
      ],
    });
    expect(chat.turns[2]).toEqual({
      role: 'tool-results',
      results: [{ toolName: 'shot', toolCallId: 'call_1_0', output: `taken\n${IMAGES_NOT_SHOWN}` }],
    });
  });

  it('reads assistant calls with arguments as objects (or JSON text), and their thinking as reasoning', () => {
    const { chat } = read({
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: '',
          thinking: 'Two cities: two calls.',
          tool_calls: [
            {
              id: 'call_a',
              function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } },
            },
            { function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
      ],
    });
    expect(chat.turns[1]).toEqual({
      role: 'assistant',
      text: '',
      reasoning: 'Two cities: two calls.',
      calls: [
        { toolName: 'get_weather', toolCallId: 'call_a', input: { city: 'Paris' } },
        { toolName: 'get_weather', toolCallId: 'call_1_1', input: { city: 'Rome' } },
      ],
    });
  });

  it('pairs results with calls by tool_call_id, then by tool_name, then in order', () => {
    const { chat } = read({
      messages: [
        { role: 'user', content: 'Go' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_w', function: { name: 'get_weather', arguments: { city: 'Paris' } } },
            { function: { name: 'get_time', arguments: { zone: 'CET' } } },
            { function: { name: 'get_weather', arguments: { city: 'Rome' } } },
            { function: { name: 'get_news', arguments: {} } },
          ],
        },
        { role: 'tool', tool_name: 'get_time', content: '10:00' },
        { role: 'tool', tool_call_id: 'call_w', content: 'sunny' },
        // An id the calls do not carry (a client made its own): paired by name.
        { role: 'tool', tool_call_id: 'lc-123', tool_name: 'get_weather', content: 'rain' },
        { role: 'tool', content: 'no news' },
      ],
    });
    expect(chat.turns[2]).toEqual({
      role: 'tool-results',
      results: [
        { toolName: 'get_time', toolCallId: 'call_1_1', output: '10:00' },
        { toolName: 'get_weather', toolCallId: 'call_w', output: 'sunny' },
        { toolName: 'get_weather', toolCallId: 'call_1_2', output: 'rain' },
        { toolName: 'get_news', toolCallId: 'call_1_3', output: 'no news' },
      ],
    });
  });

  it('reads a result of a call the conversation does not show by its tool_name', () => {
    const { chat } = read({
      messages: [
        { role: 'user', content: 'Go' },
        { role: 'tool', tool_name: 'get_time', content: '10:00' },
      ],
    });
    expect(chat.turns[1]).toEqual({
      role: 'tool-results',
      results: [{ toolName: 'get_time', output: '10:00' }],
    });
  });

  it('refuses a result that answers no call and names no tool', () => {
    expect(
      refusal(() =>
        read({
          messages: [
            { role: 'user', content: 'Go' },
            { role: 'tool', content: 'x' },
          ],
        }),
      ).message,
    ).toMatch(
      /^messages\[1\] is a tool result, but every call .* give its tool_name or tool_call_id$/,
    );
    expect(
      refusal(() =>
        read({
          messages: [
            { role: 'user', content: 'Go' },
            { role: 'tool', tool_call_id: 'call_x', content: 'x' },
          ],
        }),
      ).message,
    ).toContain('for the call "call_x", which no earlier assistant message\'s tool_calls has');
  });

  it('maps the options chat completions has and names the ones left out', () => {
    const { chat, leftOutOptions } = read({
      options: {
        temperature: 0.2,
        top_p: 0.9,
        top_k: 40,
        min_p: 0.05,
        seed: 7,
        presence_penalty: 0.1,
        frequency_penalty: 0.3,
        num_predict: 128,
        stop: ['\n\n', 'User:'],
        num_ctx: 8192,
        repeat_penalty: 1.1,
      },
    });
    expect(chat.settings).toEqual({
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      min_p: 0.05,
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: 0.3,
      max_tokens: 128,
      stop: ['\n\n', 'User:'],
    });
    expect(leftOutOptions).toEqual(['num_ctx', 'repeat_penalty']);
  });

  it('reads num_predict -1 and -2 as no limit, and one stop string', () => {
    expect(read({ options: { num_predict: -1, stop: 'END' } }).chat.settings).toEqual({
      stop: ['END'],
    });
    expect(read({ options: { num_predict: -2 } }).chat.settings).toEqual({});
  });

  it('passes format as response_format: "json" as a JSON object, a schema as json_schema', () => {
    expect(read({ format: 'json' }).chat.settings).toEqual({
      response_format: { type: 'json_object' },
    });
    const schema = { type: 'object', properties: { age: { type: 'integer' } } };
    expect(read({ format: schema }).chat.settings).toEqual({
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema } },
    });
    expect(read({ format: '' }).chat.settings).toEqual({});
  });

  it('refuses format with tools, and a format that is neither "json" nor a schema', () => {
    expect(refusal(() => read({ format: 'json', tools: [weather] })).message).toMatch(
      /^format cannot be given with tools: /,
    );
    expect(refusal(() => read({ format: 'yaml' })).message).toBe(
      'format must be "json" or a JSON Schema (an object), not the string "yaml"',
    );
  });

  it('passes think on: true as the default, a level as reasoning_effort, false as none and to the chat template', () => {
    expect(read({ think: true }).chat.settings).toEqual({});
    expect(read({ think: false }).chat.settings).toEqual({
      reasoning_effort: 'none',
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(read({ think: 'low' }).chat.settings).toEqual({ reasoning_effort: 'low' });
    expect(read({ think: 'high' }).chat.settings).toEqual({ reasoning_effort: 'high' });
    expect(read({ think: 'max' }).chat.settings).toEqual({ reasoning_effort: 'max' });
    expect(refusal(() => read({ think: 'very' })).message).toBe(
      'think must be true, false, "low", "medium", "high" or "max", not the string "very"',
    );
  });

  it('accepts and leaves behind keep_alive and the other fields that are not for the model server', () => {
    const { chat } = read({
      keep_alive: '5m',
      truncate: true,
      shift: false,
      logprobs: true,
      top_logprobs: 3,
      something_new: 1,
    });
    expect(chat.settings).toEqual({});
  });

  it('answers a request without messages as a load, or an unload with keep_alive 0', () => {
    expect(readAny({})).toEqual({
      kind: 'load',
      model: 'llama3.2',
      doneReason: 'load',
      stream: true,
    });
    expect(readAny({ messages: [], keep_alive: 0, stream: false })).toEqual({
      kind: 'load',
      model: 'llama3.2',
      doneReason: 'unload',
      stream: false,
    });
    expect(readAny({ messages: [], keep_alive: '0s' })).toMatchObject({ doneReason: 'unload' });
  });

  it('names the field at fault', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 3 }, 'model must be a model id (a string), not the number 3'],
      [{ model: '' }, 'model must not be empty'],
      [{ stream: 'yes' }, 'stream must be true or false, not the string "yes"'],
      [{ messages: {} }, 'messages must be an array of messages, not an object {}'],
      [
        { messages: ['hi'] },
        'messages[0] must be a message object ({role, content}), not the string "hi"',
      ],
      [
        { messages: [{ role: 'robot', content: 'x' }] },
        'messages[0].role must be "system", "user", "assistant" or "tool", not the string "robot"',
      ],
      [
        { messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] },
        'messages[0].content must be a string, not an array [{"type":"text","text":"x"}]',
      ],
      [
        { messages: [{ role: 'user', content: 'x', images: 'abc' }] },
        'messages[0].images must be an array of base64-encoded images, not the string "abc"',
      ],
      [
        { messages: [{ role: 'user', content: 'x', images: [1] }] },
        'messages[0].images[0] must be a base64-encoded image (a string), not the number 1',
      ],
      [
        { messages: [{ role: 'assistant', tool_calls: [{ function: { arguments: {} } }] }] },
        'messages[0].tool_calls[0].function.name is missing; it must be a tool name (a string)',
      ],
      [
        {
          messages: [
            { role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: [1] } }] },
          ],
        },
        'messages[0].tool_calls[0].function.arguments must be an object of arguments, not an array [1]',
      ],
      [
        {
          messages: [
            { role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: '{' } }] },
          ],
        },
        'messages[0].tool_calls[0].function.arguments is not JSON text',
      ],
      [
        { tools: [{ type: 'web_search' }] },
        'tools[0].type must be "function" (the proxy describes function tools to the model), not the string "web_search"',
      ],
      [{ tools: [weather, weather] }, 'tools[1] declares the tool "get_weather" a second time'],
      [
        { messages: [{ role: 'assistant', content: '', thinking: 3 }] },
        'messages[0].thinking must be a string, not the number 3',
      ],
      [{ options: [] }, 'options must be an object of model options, not an array []'],
      [
        { options: { temperature: 'hot' } },
        'options.temperature must be a number, not the string "hot"',
      ],
      [{ options: { seed: 1.5 } }, 'options.seed must be a whole number, not the number 1.5'],
      [
        { options: { num_predict: '10' } },
        'options.num_predict must be a whole number, not the string "10"',
      ],
      [{ options: { stop: [1] } }, 'options.stop[0] must be a string, not the number 1'],
    ];
    for (const [body, message] of cases) {
      const request = { messages: [{ role: 'user', content: 'Hi' }], ...body };
      expect(refusal(() => readAny(request)).message).toContain(message);
    }
    expect(refusal(() => readOllamaChatRequest('x')).message).toBe(
      'the request body must be an object, not the string "x"',
    );
  });

  it('reads arguments sent as JSON text within the request limits (413 past them)', () => {
    const texts = new JsonTextReader({ maxDepth: 8, maxValues: 3 });
    const body = {
      model: 'm',
      messages: [
        {
          role: 'assistant',
          tool_calls: [{ function: { name: 'f', arguments: '{"a":1,"b":2,"c":3}' } }],
        },
      ],
    };
    refusal(() => readOllamaChatRequest(body, texts), 413);
  });
});
