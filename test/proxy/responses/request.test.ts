import { describe, expect, it } from 'vitest';
import {
  type EarlierConversation,
  readResponsesRequest,
} from '../../../src/proxy/responses/request.ts';
import { refusal } from './helpers.ts';

const weather = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: true,
};

const read = (body: Record<string, unknown>) => readResponsesRequest({ model: 'm', ...body });

describe('reading Responses requests', () => {
  it('reads a string input as one user turn, with instructions as the system text', () => {
    const request = read({ input: 'Hi', instructions: 'Be brief.' });
    expect(request.chat.system).toBe('Be brief.');
    expect(request.chat.turns).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(request.chat.toolChoice).toEqual({ type: 'auto' });
    expect(request.chat.parallelToolCalls).toBe(true);
    expect(request.chat.stream).toBe(false);
    expect(request.store).toBe(true);
    expect(request.leftOutTools).toEqual([]);
  });

  it('reads messages of every role, with input_text, output_text and string content', () => {
    const request = read({
      instructions: 'First.',
      input: [
        { role: 'developer', content: 'Second.' },
        { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Third.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Hello' }] },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hi there', annotations: [] }],
        },
        { role: 'developer', content: 'Later.' },
        { role: 'user', content: 'Bye' },
      ],
    });
    expect(request.chat.system).toBe('First.\n\nSecond.\n\nThird.');
    expect(request.inputSystem).toBe('Second.\n\nThird.');
    expect(request.chat.turns).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', text: 'Hi there', calls: [] },
      { role: 'system', content: 'Later.' },
      { role: 'user', content: 'Bye' },
    ]);
  });

  it('reads images as chat completions image parts, and files as a placeholder', () => {
    const request = read({
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' },
            { type: 'input_file', file_id: 'file_1' },
          ],
        },
      ],
    });
    expect(request.chat.turns).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
          { type: 'text', text: '[file — not shown, this model reads text only]' },
        ],
      },
    ]);
  });

  it('joins function_call items to the assistant turn before them and their outputs into one turn', () => {
    const request = read({
      tools: [weather],
      input: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        { role: 'assistant', content: 'Looking.' },
        {
          type: 'function_call',
          id: 'fc_1',
          call_id: 'call_1',
          name: 'get_weather',
          arguments: '{"city":"Paris"}',
          status: 'completed',
        },
        {
          type: 'function_call',
          call_id: 'call_2',
          name: 'get_weather',
          arguments: '{"city":"Rome"}',
        },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        {
          type: 'function_call_output',
          call_id: 'call_2',
          output: [{ type: 'input_text', text: 'rain' }],
        },
      ],
    });
    expect(request.chat.turns).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        text: 'Looking.',
        calls: [
          { toolName: 'get_weather', toolCallId: 'call_1', input: { city: 'Paris' } },
          { toolName: 'get_weather', toolCallId: 'call_2', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'tool-results',
        results: [
          { toolName: 'get_weather', toolCallId: 'call_1', output: 'sunny' },
          { toolName: 'get_weather', toolCallId: 'call_2', output: 'rain' },
        ],
      },
    ]);
  });

  it('starts a new assistant turn for a call that follows the results of earlier calls', () => {
    const request = read({
      input: [
        { role: 'user', content: 'Go' },
        { type: 'function_call', call_id: 'a', name: 't', arguments: '{}' },
        { type: 'function_call_output', call_id: 'a', output: 'one' },
        { type: 'function_call', call_id: 'b', name: 't', arguments: '' },
      ],
    });
    expect(request.chat.turns.map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
      'tool-results',
      'assistant',
    ]);
    expect(request.chat.turns[3]).toEqual({
      role: 'assistant',
      text: '',
      calls: [{ toolName: 't', toolCallId: 'b', input: {} }],
    });
  });

  it('reads reasoning items (text, else summary) into the reply they open; encrypted content stays behind', () => {
    const request = read({
      input: [
        { role: 'user', content: 'Hi' },
        {
          type: 'reasoning',
          id: 'rs_1',
          summary: [{ type: 'summary_text', text: 'thought' }],
          encrypted_content: 'opaque==',
        },
        {
          type: 'reasoning',
          id: 'rs_2',
          summary: [],
          content: [{ type: 'reasoning_text', text: 't' }],
        },
        { role: 'assistant', content: 'Hello' },
      ],
    });
    expect(request.chat.turns).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', text: 'Hello', calls: [], reasoning: 'thought\nt' },
    ]);
    expect(JSON.stringify(request.chat.turns)).not.toContain('opaque');
  });

  it('starts a new assistant turn at a reasoning item after a reply, and keeps it with the calls', () => {
    const request = read({
      input: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'call it' }] },
        { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{}' },
        // Only encrypted: nothing to read, and no turn of its own.
        { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'opaque==' },
      ],
      tools: [{ type: 'function', name: 'get_weather', parameters: {} }],
    });
    expect(request.chat.turns).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', text: 'Hello', calls: [] },
      {
        role: 'assistant',
        text: '',
        calls: [{ toolName: 'get_weather', toolCallId: 'c1', input: {} }],
        reasoning: 'call it',
      },
    ]);
  });

  it('leaves out history items of tools the proxy cannot serve', () => {
    const request = read({
      input: [
        { role: 'user', content: 'Hi' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed' },
        { type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: '***' },
        { type: 'custom_tool_call_output', call_id: 'c', output: 'ok' },
      ],
    });
    expect(request.chat.turns).toEqual([{ role: 'user', content: 'Hi' }]);
  });

  it('reads flat function tools and the function tools of a namespace under joined names', () => {
    const request = read({
      input: 'Hi',
      tools: [
        weather,
        {
          type: 'namespace',
          name: 'mcp__docs__',
          description: 'Docs server',
          tools: [
            { type: 'function', name: 'search', parameters: { type: 'object' } },
            { type: 'custom', name: 'grammar_tool' },
          ],
        },
        {
          type: 'namespace',
          name: 'crm',
          description: 'CRM',
          tools: [{ type: 'function', name: 'find' }],
        },
      ],
    });
    expect(request.chat.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Weather for a city',
        inputSchema: weather.parameters,
        // Declared strict: kept, so the proxy may have the server enforce its schema.
        strict: true,
      },
      { name: 'mcp__docs__search', inputSchema: { type: 'object' } },
      { name: 'crm__find', inputSchema: { type: 'object' } },
    ]);
    expect(request.namespacedTools.get('mcp__docs__search')).toEqual({
      namespace: 'mcp__docs__',
      name: 'search',
    });
    expect(request.namespacedTools.get('crm__find')).toEqual({ namespace: 'crm', name: 'find' });
    expect(request.leftOutTools).toEqual(['custom']);
  });

  it('reads a namespaced call from history under the joined name', () => {
    const request = read({
      input: [
        { role: 'user', content: 'Search' },
        {
          type: 'function_call',
          call_id: 'c',
          namespace: 'mcp__docs__',
          name: 'search',
          arguments: '{}',
        },
        { type: 'function_call_output', call_id: 'c', output: 'found' },
      ],
    });
    expect(request.chat.turns[1]).toEqual({
      role: 'assistant',
      text: '',
      calls: [{ toolName: 'mcp__docs__search', toolCallId: 'c', input: {} }],
    });
  });

  it('leaves out tool types it cannot serve and lists them', () => {
    const request = read({
      input: 'Hi',
      tools: [
        { type: 'web_search' },
        weather,
        { type: 'file_search', vector_store_ids: [] },
        { type: 'computer_use_preview' },
        { type: 'mcp', server_label: 'x' },
        { type: 'custom', name: 'apply_patch' },
      ],
    });
    expect(request.chat.tools.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(request.leftOutTools).toEqual([
      'web_search',
      'file_search',
      'computer_use_preview',
      'mcp',
      'custom',
    ]);
  });

  it('reads tool_choice in each form, parallel_tool_calls, stream and store', () => {
    const tools = [weather];
    expect(read({ input: 'x', tools, tool_choice: 'none' }).chat.toolChoice).toEqual({
      type: 'none',
    });
    expect(read({ input: 'x', tools, tool_choice: 'required' }).chat.toolChoice).toEqual({
      type: 'required',
    });
    expect(
      read({ input: 'x', tools, tool_choice: { type: 'function', name: 'get_weather' } }).chat
        .toolChoice,
    ).toEqual({ type: 'tool', toolName: 'get_weather' });
    const request = read({ input: 'x', parallel_tool_calls: false, stream: true, store: false });
    expect(request.chat.parallelToolCalls).toBe(false);
    expect(request.chat.stream).toBe(true);
    expect(request.chat.includeUsage).toBe(true);
    expect(request.store).toBe(false);
  });

  it('sends max_output_tokens as max_tokens and sampling settings as they are; drops OpenAI-only fields', () => {
    const request = read({
      input: 'x',
      max_output_tokens: 100,
      temperature: 0.2,
      top_p: 0.9,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'high' },
      text: { format: { type: 'text' } },
      metadata: { a: '1' },
      prompt_cache_key: 'k',
      client_metadata: { b: 2 },
      user: 'u',
      truncation: 'auto',
      service_tier: 'auto',
      top_logprobs: 2,
    });
    expect(request.chat.settings).toEqual({ temperature: 0.2, top_p: 0.9, max_tokens: 100 });
    expect(request.maxOutputTokens).toBe(100);
    expect(request.echo).toMatchObject({
      max_output_tokens: 100,
      temperature: 0.2,
      top_p: 0.9,
      metadata: { a: '1' },
      reasoning: { effort: 'high' },
      truncation: 'auto',
    });
  });

  it('continues a stored conversation named by previous_response_id', () => {
    const earlier: EarlierConversation = {
      system: 'Old system message',
      turns: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          text: '',
          calls: [{ toolName: 'get_weather', toolCallId: 'call_9', input: { city: 'Oslo' } }],
        },
      ],
    };
    const asked: string[] = [];
    const request = readResponsesRequest(
      {
        model: 'm',
        previous_response_id: 'resp_1',
        instructions: 'New instructions',
        input: [{ type: 'function_call_output', call_id: 'call_9', output: 'cold' }],
      },
      {
        earlier: (id) => {
          asked.push(id);
          return earlier;
        },
      },
    );
    expect(asked).toEqual(['resp_1']);
    expect(request.previousResponseId).toBe('resp_1');
    // The earlier instructions are not inherited; its input's system text is.
    expect(request.chat.system).toBe('New instructions\n\nOld system message');
    expect(request.inputSystem).toBe('Old system message');
    expect(request.chat.turns).toEqual([
      ...earlier.turns,
      {
        role: 'tool-results',
        results: [{ toolName: 'get_weather', toolCallId: 'call_9', output: 'cold' }],
      },
    ]);
  });
});

describe('refusing Responses requests, naming the field', () => {
  const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
    ['no model', { model: undefined, input: 'x' }, 'model'],
    ['no input', {}, 'input'],
    ['empty input', { input: [] }, 'input'],
    ['input of a number', { input: 3 }, 'input'],
    ['an item of no type', { input: [{ content: 'x' }] }, 'input[0].type'],
    ['an unknown item type', { input: [{ type: 'telepathy' }] }, 'input[0].type'],
    ['an unknown role', { input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
    [
      'an unknown part type',
      { input: [{ role: 'user', content: [{ type: 'audio' }] }] },
      'input[0].content[0].type',
    ],
    [
      'a part text of a number',
      { input: [{ role: 'user', content: [{ type: 'input_text', text: 1 }] }] },
      'input[0].content[0].text',
    ],
    [
      'an image in a system message',
      { input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'u' }] }] },
      'input[0].content[0]',
    ],
    [
      'an image by file id',
      { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'f' }] }] },
      'input[0].content[0].file_id',
    ],
    [
      'a call without call_id',
      { input: [{ type: 'function_call', name: 't', arguments: '{}' }] },
      'input[0].call_id',
    ],
    [
      'a call without name',
      { input: [{ type: 'function_call', call_id: 'c', arguments: '{}' }] },
      'input[0].name',
    ],
    [
      'a call with arguments not JSON',
      { input: [{ type: 'function_call', call_id: 'c', name: 't', arguments: '{' }] },
      'input[0].arguments',
    ],
    [
      'a call with arguments as an object',
      { input: [{ type: 'function_call', call_id: 'c', name: 't', arguments: {} }] },
      'input[0].arguments',
    ],
    [
      'an output for no call',
      { input: [{ type: 'function_call_output', call_id: 'nope', output: 'x' }] },
      'input[0].call_id',
    ],
    [
      'an output of a number',
      {
        input: [
          { type: 'function_call', call_id: 'c', name: 't' },
          { type: 'function_call_output', call_id: 'c', output: 5 },
        ],
      },
      'input[1].output',
    ],
    [
      'a reasoning summary not an array',
      { input: [{ type: 'reasoning', summary: 'x' }] },
      'input[0].summary',
    ],
    ['instructions of a number', { input: 'x', instructions: 1 }, 'instructions'],
    ['tools not an array', { input: 'x', tools: {} }, 'tools'],
    ['a tool of no type', { input: 'x', tools: [{ name: 't' }] }, 'tools[0].type'],
    [
      'a function tool with no name',
      { input: 'x', tools: [{ type: 'function' }] },
      'tools[0].name',
    ],
    [
      'a function tool with parameters not an object',
      { input: 'x', tools: [{ type: 'function', name: 't', parameters: 'x' }] },
      'tools[0].parameters',
    ],
    ['a tool declared twice', { input: 'x', tools: [weather, weather] }, 'tools[1]'],
    [
      'a namespace without tools',
      { input: 'x', tools: [{ type: 'namespace', name: 'n' }] },
      'tools[0].tools',
    ],
    [
      'a namespace tool without name',
      { input: 'x', tools: [{ type: 'namespace', name: 'n', tools: [{ type: 'function' }] }] },
      'tools[0].tools[0].name',
    ],
    ['an unknown tool_choice', { input: 'x', tool_choice: 'any' }, 'tool_choice'],
    ['tool_choice required without tools', { input: 'x', tool_choice: 'required' }, 'tool_choice'],
    [
      'tool_choice naming no tool',
      { input: 'x', tools: [weather], tool_choice: { type: 'function', name: 'other' } },
      'tool_choice.name',
    ],
    [
      'parallel_tool_calls of a string',
      { input: 'x', parallel_tool_calls: 'no' },
      'parallel_tool_calls',
    ],
    ['stream of a string', { input: 'x', stream: 'yes' }, 'stream'],
    ['store of a number', { input: 'x', store: 0 }, 'store'],
    ['max_output_tokens of zero', { input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
    [
      'max_output_tokens of a fraction',
      { input: 'x', max_output_tokens: 1.5 },
      'max_output_tokens',
    ],
    [
      'previous_response_id of a number',
      { input: 'x', previous_response_id: 1 },
      'previous_response_id',
    ],
    ['a stored conversation', { input: 'x', conversation: 'conv_1' }, 'conversation'],
    ['a stored prompt template', { input: 'x', prompt: { id: 'pmpt_1' } }, 'prompt'],
  ];
  for (const [what, body, param] of cases) {
    it(`refuses ${what} (${param})`, () => {
      expect(refusal(() => read(body)).param).toBe(param);
    });
  }

  it('refuses a body that is not an object', () => {
    expect(refusal(() => readResponsesRequest([])).param).toBe('the request body');
  });

  it("answers OpenAI's 404 for a previous_response_id not kept", () => {
    const error = refusal(
      () =>
        readResponsesRequest(
          { model: 'm', input: 'x', previous_response_id: 'resp_gone' },
          { earlier: () => undefined },
        ),
      404,
    );
    expect(error.param).toBe('previous_response_id');
    expect(error.message).toBe("Previous response with id 'resp_gone' not found.");
    expect(error.extra).toEqual({ code: 'previous_response_not_found' });
  });
});
