import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import { protocolByName } from '../../src/protocols/index.ts';
import { readMessagesRequest } from '../../src/proxy/anthropic-request.ts';
import { readChatCompletionsRequest } from '../../src/proxy/openai-request.ts';
import { ONE_CALL_SENTENCE, upstreamMessages } from '../../src/proxy/upstream-messages.ts';

const hermes = protocolByName('hermes');
const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

function refusal(read: () => unknown): HttpError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return error as HttpError;
  }
  throw new Error('the request was accepted');
}

describe('reading chat completions requests', () => {
  it('renders a second turn with only system, user and assistant roles, in the protocol', () => {
    const request = readChatCompletionsRequest({
      model: 'qwen2.5',
      temperature: 0.2,
      max_tokens: 99,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
            {
              id: 'c2',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'rain' },
        { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'sun' }] },
        { role: 'user', content: 'Thanks. Summarise.' },
      ],
      tools: [weather],
    });
    expect(request.settings).toEqual({ temperature: 0.2, max_tokens: 99 });
    const messages = upstreamMessages(request, hermes);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    expect(messages[0]!.content).toMatch(/^Be brief\.\n\n/);
    expect(messages[0]!.content).toContain(
      hermes.formatTools([
        {
          name: 'get_weather',
          description: 'Weather for a city',
          inputSchema: weather.function.parameters,
        },
      ]),
    );
    expect(messages[2]!.content).toBe(
      hermes.formatToolCall([
        { toolName: 'get_weather', input: { city: 'Oslo' }, toolCallId: 'c1' },
        { toolName: 'get_weather', input: { city: 'Rome' }, toolCallId: 'c2' },
      ]),
    );
    expect(messages[3]!.content).toBe(
      `${hermes.formatToolResponse([
        { toolName: 'get_weather', toolCallId: 'c1', output: 'rain' },
        { toolName: 'get_weather', toolCallId: 'c2', output: 'sun' },
      ])}\n\nThanks. Summarise.`,
    );
  });

  it('keeps a key like __proto__ an ordinary setting', () => {
    const body = JSON.parse(
      '{"model":"m","messages":[{"role":"user","content":"x"}],"__proto__":{"polluted":true}}',
    );
    const request = readChatCompletionsRequest(body);
    expect(Object.getPrototypeOf(request.settings)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(request.settings)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('tells the model what tool_choice and parallel_tool_calls ask', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [weather] };
    const system = (extra: object) =>
      upstreamMessages(readChatCompletionsRequest({ ...base, ...extra }), hermes)[0]!
        .content as string;
    expect(system({ tool_choice: 'required' })).toContain(
      'You must call at least one of the tools',
    );
    expect(
      system({ tool_choice: { type: 'function', function: { name: 'get_weather' } } }),
    ).toContain('You must call the tool "get_weather"');
    expect(system({ tool_choice: 'none' })).toMatch(/^Tools are not available/);
    expect(system({ parallel_tool_calls: false })).toContain(ONE_CALL_SENTENCE);
    expect(system({})).not.toContain(ONE_CALL_SENTENCE);
  });

  it('refuses what it cannot answer, naming the field', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'x' }] };
    const cases: [object, string][] = [
      [{ ...base, model: '' }, 'model must not be empty'],
      [{ ...base, model: 'x'.repeat(300) }, 'model is 300 characters long'],
      [{ ...base, messages: [] }, 'messages must hold at least one message'],
      [{ ...base, n: 2 }, 'n must be 1'],
      [{ ...base, functions: [] }, "functions is the API's deprecated form"],
      [{ ...base, tools: [{ type: 'retrieval' }] }, 'tools[0].type must be "function"'],
      [
        { ...base, tools: [weather, weather] },
        'tools[1] declares the tool "get_weather" a second time',
      ],
      [{ ...base, tool_choice: 'required' }, 'the request declares no tools'],
      [
        {
          ...base,
          tools: [weather],
          tool_choice: { type: 'function', function: { name: 'other' } },
        },
        'names the tool "other"',
      ],
      [{ ...base, tools: [weather], tool_choice: 'sometimes' }, 'tool_choice must be'],
      [{ ...base, stream: 'yes' }, 'stream must be true or false'],
      [
        { ...base, messages: [{ role: 'tool', tool_call_id: 'ghost', content: 'x' }] },
        'messages[0].tool_call_id is "ghost", which no earlier assistant message',
      ],
      [
        {
          ...base,
          messages: [
            {
              role: 'assistant',
              tool_calls: [{ id: 'a', function: { name: 'f', arguments: '{oops' } }],
            },
          ],
        },
        'messages[0].tool_calls[0].function.arguments is not JSON text',
      ],
      [
        { ...base, messages: [{ role: 'user', content: 5 }] },
        'messages[0].content must be a string or an array of content parts, not the number 5',
      ],
    ];
    for (const [body, message] of cases)
      expect(refusal(() => readChatCompletionsRequest(body)).message).toContain(message);
  });
});

describe('reading Messages requests', () => {
  const tools = [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object' } }];

  it('maps system, tool_use and tool_result blocks, images and settings', () => {
    const request = readMessagesRequest({
      model: 'claude-ish',
      max_tokens: 64,
      temperature: 0.5,
      top_k: 5,
      stop_sequences: ['END'],
      metadata: { user_id: 'u1' },
      skip_special_tokens: false,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      tools,
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 't1', name: 'get_weather', input: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'text', text: 'rain' }],
              is_error: false,
            },
            { type: 'text', text: 'And tomorrow?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
          ],
        },
      ],
    });
    expect(request.settings).toEqual({
      max_tokens: 64,
      temperature: 0.5,
      top_k: 5,
      stop: ['END'],
      // A field Messages does not have goes upstream as it is; Anthropic's own stay behind.
      skip_special_tokens: false,
    });
    expect(request.system).toBe('Be brief.');
    expect(request.toolChoice).toEqual({ type: 'required' });
    expect(request.parallelToolCalls).toBe(false);
    expect(request.turns).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        text: 'Checking.',
        reasoning: 'hmm',
        calls: [{ toolName: 'get_weather', toolCallId: 't1', input: { city: 'Oslo' } }],
      },
      {
        role: 'tool-results',
        results: [{ toolName: 'get_weather', toolCallId: 't1', output: 'rain', isError: false }],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And tomorrow?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
        ],
      },
    ]);
    const messages = upstreamMessages(request, hermes);
    expect(messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
    ]);
    // Results lead the user message that also carries an image: text part first.
    expect(messages[3]!.content).toEqual([
      {
        type: 'text',
        text: hermes.formatToolResponse([
          { toolName: 'get_weather', toolCallId: 't1', output: 'rain', isError: false },
        ]),
      },
      { type: 'text', text: 'And tomorrow?' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
    ]);
  });

  it('refuses what it cannot answer, naming the field', () => {
    const base = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
    const cases: [object, string][] = [
      [{ ...base, max_tokens: 0 }, 'max_tokens must be a whole number'],
      [{ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search' }] }, 'a server tool'],
      [{ ...base, tools, tool_choice: { type: 'tool', name: 'nope' } }, 'names the tool "nope"'],
      [{ ...base, tool_choice: { type: 'any' } }, 'declares no tools'],
      [
        // A system message inside messages is read (issue 22), but not a conversation of only them.
        { ...base, messages: [{ role: 'system', content: 'x' }] },
        'messages holds only system messages',
      ],
      [
        {
          ...base,
          messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'ghost' }] }],
        },
        'tool_use_id is "ghost"',
      ],
      [
        { ...base, messages: [{ role: 'user', content: [{ type: 'video' }] }] },
        'messages[0].content[0].type must be',
      ],
    ];
    for (const [body, message] of cases)
      expect(refusal(() => readMessagesRequest(body)).message).toContain(message);
  });
});

/** A field left out of the body, as opposed to one set to a value. */
const MISSING = Symbol('missing');
type Setter = (value: unknown) => object;

function withField(body: object, path: readonly (string | number)[], value: unknown): object {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === MISSING) delete at[last];
  else at[last] = value;
  return copy;
}

describe('a required field missing or of the wrong type', () => {
  const chatBase = {
    model: 'm',
    messages: [{ role: 'user', content: 'x' }],
    tools: [weather],
  };
  const messagesBase = {
    model: 'm',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'x' }],
    tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
  };
  const wrong = { null: null, number: 42, string: 'hi', object: { role: 'user' } };
  type Kind = keyof typeof wrong;
  /** [api, field path, what it must be, the wrong kinds (a right kind is left out)] */
  const fields: ['chat' | 'messages', (string | number)[], string, Kind[]][] = [
    ['chat', ['model'], 'a model id (a string)', ['null', 'number', 'object']],
    ['chat', ['messages'], 'an array of messages', ['null', 'number', 'string', 'object']],
    ['chat', ['messages', 0], 'a message object ({role, content})', ['null', 'number', 'string']],
    [
      'chat',
      ['messages', 0, 'role'],
      '"system", "developer", "user", "assistant" or "tool"',
      ['null', 'number', 'string', 'object'],
    ],
    [
      'chat',
      ['messages', 0, 'content'],
      'a string or an array of content parts',
      ['null', 'number', 'object'],
    ],
    [
      'chat',
      ['tools', 0, 'function', 'name'],
      'a tool name (a string)',
      ['null', 'number', 'object'],
    ],
    ['messages', ['model'], 'a model id (a string)', ['null', 'number', 'object']],
    [
      'messages',
      ['max_tokens'],
      'a whole number of at least 1',
      ['null', 'number', 'string', 'object'],
    ],
    ['messages', ['messages'], 'an array of messages', ['null', 'number', 'string', 'object']],
    [
      'messages',
      ['messages', 0],
      'a message object ({role, content})',
      ['null', 'number', 'string'],
    ],
    [
      'messages',
      ['messages', 0, 'role'],
      '"user" or "assistant"',
      ['null', 'number', 'string', 'object'],
    ],
    [
      'messages',
      ['messages', 0, 'content'],
      'a string or an array of content blocks',
      ['null', 'number', 'object'],
    ],
    ['messages', ['tools', 0, 'name'], 'a tool name (a string)', ['null', 'number', 'object']],
    [
      'messages',
      ['tools', 0, 'input_schema'],
      'a JSON Schema object',
      ['null', 'number', 'string'],
    ],
  ];
  // The wrong number for max_tokens is one that is not a whole number of at least 1.
  const wrongValue = (path: readonly (string | number)[], kind: Kind) =>
    path[0] === 'max_tokens' && kind === 'number' ? 0 : wrong[kind];
  const shown: Record<Kind, string> = {
    null: 'null',
    number: 'the number 42',
    string: 'the string "hi"',
    object: 'an object {"role":"user"}',
  };

  for (const [api, path, expected, kinds] of fields) {
    const name = path
      .map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`))
      .join('')
      .slice(1)
      .replaceAll('.[', '[');
    const read = (body: object) =>
      api === 'chat' ? readChatCompletionsRequest(body) : readMessagesRequest(body);
    const set: Setter = (value) => withField(api === 'chat' ? chatBase : messagesBase, path, value);

    it(`${api}: ${name} missing, or ${kinds.join(', ')}`, () => {
      expect(refusal(() => read(set(MISSING))).message).toBe(
        `${name} is missing; it must be ${expected}`,
      );
      for (const kind of kinds) {
        const value = wrongValue(path, kind);
        const what = value === 0 ? 'the number 0' : shown[kind];
        const error = refusal(() => read(set(value)));
        expect(error.message).toBe(`${name} must be ${expected}, not ${what}`);
        expect(error.param).toBe(name);
      }
    });
  }

  it('a long value is named by its type and the start of its JSON', () => {
    const long = 'x'.repeat(500);
    expect(refusal(() => readChatCompletionsRequest({ ...chatBase, messages: long })).message).toBe(
      `messages must be an array of messages, not the string "${'x'.repeat(39)}…`,
    );
    const nested = { a: [1, 2, { b: long }], c: true };
    expect(
      refusal(() => readChatCompletionsRequest({ ...chatBase, messages: nested })).message,
    ).toBe(
      `messages must be an array of messages, not an object {"a":[1,2,{"b":"${'x'.repeat(24)}…`,
    );
  });
});
