/**
 * protocolFromChatTemplate / analyzeChatTemplate / chatTemplateFromFile on templates written for
 * the test: a format no registry entry reads (JSON, parameter tags, Python calls), a prompt that
 * leaves `<think>` open, a template that renders no call, the tokenizer_config.json wrappers, and
 * the time one derivation takes on the 27 real templates.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isErrorOfKind } from '../../../src/core/errors.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import {
  analyzeChatTemplate,
  ChatTemplateError,
  chatTemplateFromFile,
  protocolFromChatTemplate,
} from '../../../src/protocols/derive/chat-template.ts';
import { collectContent } from '../../../src/protocols/engine/collect-content.ts';
import { chunksOf, streamEvents, weatherTool } from '../helpers.ts';

const tools: readonly ToolDefinition[] = [weatherTool];

/** A template whose assistant turns are `<|assistant|>` + content + calls + `<|end|>`. */
function template(calls: string): string {
  return [
    '{%- for message in messages -%}',
    "{%- if message.role == 'assistant' -%}",
    '<|assistant|>',
    '{%- if message.reasoning_content %}<think>{{ message.reasoning_content }}</think>{% endif -%}',
    '{{ message.content }}',
    `{%- if message.tool_calls %}${calls}{%- endif %}<|end|>`,
    '{%- else -%}',
    '<|{{ message.role }}|>{{ message.content }}<|end|>',
    '{%- endif -%}',
    '{%- endfor -%}',
    '{%- if add_generation_prompt %}<|assistant|>{% endif -%}',
  ].join('\n');
}

const JSON_CALLS = template(
  '<|calls|>{%- for call in message.tool_calls %}<|call|>{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments | tojson }}}<|/call|>{% endfor %}<|/calls|>',
);
const TAGGED_CALLS = template(
  '<|calls|>{%- for call in message.tool_calls %}<call name="{{ call.function.name }}">{%- for key, value in call.function.arguments.items() %}<arg name="{{ key }}">{{ value }}</arg>{% endfor %}</call>{% endfor %}<|/calls|>',
);
const PYTHON_CALLS = template(
  '<|py|>[{%- for call in message.tool_calls %}{{ call.function.name }}({%- for key, value in call.function.arguments.items() %}{{ key }}={{ value | tojson }}{% if not loop.last %}, {% endif %}{% endfor %}){% if not loop.last %}, {% endif %}{% endfor %}]<|/py|>',
);

/** Calls and text of a parse, whole and at every chunk size given: the same each way. */
function read(protocol: ToolCallProtocol, text: string) {
  const results = [undefined, 1, 3, 7].map((size) => {
    const content =
      size === undefined
        ? protocol.parseGeneratedText(text, { tools })
        : collectContent(streamEvents(protocol, chunksOf(text, size), { tools }));
    return {
      calls: content
        .filter((part) => part.type === 'tool-call')
        .map((part) => ({ name: part.toolName, input: JSON.parse(part.input) })),
      text: content
        .filter((part) => part.type === 'text')
        .map((part) => part.text)
        .join(''),
      reasoning: content
        .filter((part) => part.type === 'reasoning')
        .map((part) => part.text)
        .join(''),
      errors: content.filter((part) => part.type === 'error'),
    };
  });
  for (const result of results.slice(1)) expect(result).toEqual(results[0]);
  return results[0]!;
}

const OSLO = { name: 'get_weather', input: { city: 'Oslo', days: 3 } };
const BERGEN = { name: 'get_weather', input: { city: 'Bergen' } };

describe('a chat template no registered format reads', () => {
  it('JSON calls between per-call markers in a section: a spec from the markers', () => {
    const analysis = analyzeChatTemplate(JSON_CALLS);
    expect(analysis.family).toBeUndefined();
    expect(analysis.spec?.calls).toEqual([
      {
        codec: 'json',
        open: '<|call|>',
        close: '<|/call|>',
        nameKeys: ['name'],
        argumentKeys: ['arguments'],
      },
    ]);
    expect(analysis.spec?.markup).toEqual(['<|calls|>', '<|/calls|>']);
    const protocol = protocolFromChatTemplate(JSON_CALLS);
    const text =
      'Let me look.<|calls|><|call|>{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}<|/call|><|call|>{"name": "get_weather", "arguments": {"city": "Bergen"}}<|/call|><|/calls|>';
    expect(read(protocol, text)).toEqual({
      calls: [OSLO, BERGEN],
      text: 'Let me look.',
      reasoning: '',
      errors: [],
    });
    // The writer writes the template's framing (arguments as compact JSON).
    expect(
      protocol.formatToolCall([
        { toolName: 'get_weather', input: { city: 'Oslo' } },
        { toolName: 'get_weather', input: { city: 'Bergen' } },
      ]),
    ).toBe(
      '<|calls|><|call|>{"name": "get_weather", "arguments": {"city":"Oslo"}}<|/call|><|call|>{"name": "get_weather", "arguments": {"city":"Bergen"}}<|/call|><|/calls|>',
    );
    // The reasoning the template writes is read as reasoning.
    expect(
      read(
        protocol,
        '<think>Oslo, then.</think><|calls|><|call|>{"name": "get_weather", "arguments": {"city": "Bergen"}}<|/call|><|/calls|>',
      ),
    ).toEqual({
      calls: [BERGEN],
      text: '',
      reasoning: 'Oslo, then.',
      errors: [],
    });
  });

  it('parameter tags with name attributes: a tagged spec', () => {
    const analysis = analyzeChatTemplate(TAGGED_CALLS);
    expect(analysis.spec?.calls[0]).toMatchObject({
      codec: 'tagged',
      syntax: {
        callOpen: '<call',
        callClose: '</call>',
        parameterOpen: '<arg',
        parameterClose: '</arg>',
      },
    });
    const protocol = protocolFromChatTemplate(TAGGED_CALLS);
    const text =
      '<|calls|><call name="get_weather"><arg name="city">Oslo</arg><arg name="days">3</arg></call><call name="get_weather"><arg name="city">Bergen</arg></call><|/calls|>';
    expect(read(protocol, text)).toEqual({
      calls: [OSLO, BERGEN],
      text: '',
      reasoning: '',
      errors: [],
    });
  });

  it('Python calls in a list between markers: a Python spec', () => {
    const analysis = analyzeChatTemplate(PYTHON_CALLS);
    expect(analysis.spec?.calls).toEqual([
      { codec: 'python', open: '<|py|>[', listOpened: true, close: '<|/py|>' },
    ]);
    const protocol = protocolFromChatTemplate(PYTHON_CALLS);
    const text = '<|py|>[get_weather(city="Oslo", days=3), get_weather(city="Bergen")]<|/py|>';
    expect(read(protocol, text)).toEqual({
      calls: [OSLO, BERGEN],
      text: '',
      reasoning: '',
      errors: [],
    });
  });

  it('the name in a header before JSON arguments: a JSON spec with a name header', () => {
    const header = template(
      '{%- for call in message.tool_calls %}<|fn|>{{ call.function.name }}<|args|>{{ call.function.arguments | tojson }}<|/fn|>{% endfor %}',
    );
    expect(analyzeChatTemplate(header).spec?.calls).toEqual([
      { codec: 'json', open: '<|fn|>', nameHeader: { end: '<|args|>' }, close: '<|/fn|>' },
    ]);
    const text =
      '<|fn|>get_weather<|args|>{"city": "Oslo", "days": 3}<|/fn|><|fn|>get_weather<|args|>{"city": "Bergen"}<|/fn|>';
    expect(read(protocolFromChatTemplate(header), text)).toEqual({
      calls: [OSLO, BERGEN],
      text: '',
      reasoning: '',
      errors: [],
    });
  });

  it('keys and values between tags of their own (GLM style, other tags): a tagged spec', () => {
    const keyValue = template(
      '{%- for call in message.tool_calls %}<call>{{ call.function.name }}\n{% for k, v in call.function.arguments.items() %}<key>{{ k }}</key><val>{{ v }}</val>\n{% endfor %}</call>{% endfor %}',
    );
    expect(analyzeChatTemplate(keyValue).spec?.calls[0]).toMatchObject({
      codec: 'tagged',
      open: '<call>',
      close: '</call>',
      syntax: {
        parameterOpen: '<key>',
        keyClose: '</key>',
        valueOpen: '<val>',
        parameterClose: '</val>',
      },
    });
    const text =
      '<call>get_weather\n<key>city</key><val>Oslo</val>\n<key>days</key><val>3</val>\n</call><call>get_weather\n<key>city</key><val>Bergen</val>\n</call>';
    expect(read(protocolFromChatTemplate(keyValue), text)).toEqual({
      calls: [OSLO, BERGEN],
      text: '',
      reasoning: '',
      errors: [],
    });
  });

  it('writes results as the template frames them inside a user turn, else as they are', () => {
    const framed = JSON_CALLS.replace(
      '{%- else -%}\n<|{{ message.role }}|>',
      "{%- elif message.role == 'tool' -%}\n<|user|><result>\n{{ message.content }}\n</result><|end|>\n{%- else -%}\n<|{{ message.role }}|>",
    );
    expect(framed).not.toBe(JSON_CALLS);
    expect(analyzeChatTemplate(framed).spec?.results.each).toBe('<result>\n{output}\n</result>');
    expect(
      protocolFromChatTemplate(framed).formatToolResponse({
        toolName: 'get_weather',
        output: 'Sunny',
      }),
    ).toBe('<result>\nSunny\n</result>');
    // A tool turn of its own (`<|tool|>…`) is the chat API's to write: the result as it is.
    expect(analyzeChatTemplate(JSON_CALLS).spec?.results.each).toBe('{output}');
  });

  it('names the format as asked, and keeps its evidence', () => {
    const analysis = analyzeChatTemplate(JSON_CALLS, { name: 'my-model' });
    expect(analysis.spec?.name).toBe('my-model');
    expect(analysis.evidence.turns.map((turn) => turn.scenario)).toEqual([
      'one-argument',
      'two-arguments',
      'other-tool',
      'two-calls',
      'special-string',
      'content',
      'reasoning',
    ]);
    expect(analysis.evidence.endOfTurn).toBe('<|end|>');
    expect(analysis.evidence.reasoning).toMatchObject({ open: '<think>', close: '</think>' });
  });
});

describe('the end of a turn', () => {
  it('is removed from turns with calls even when a plain reply ends with more (Command R7B)', () => {
    // A reply is `<|R|>text<|/R|><|EOT|>`, an action `<|A|>[calls]<|/A|><|EOT|>`.
    const commandStyle = template(
      '<|A|>[{%- for call in message.tool_calls %}{"tool_name": "{{ call.function.name }}", "parameters": {{ call.function.arguments | tojson }}}{% if not loop.last %}, {% endif %}{% endfor %}]<|/A|>',
    )
      .replace(
        '{{ message.content }}',
        '{% if not message.tool_calls %}<|R|>{{ message.content }}<|/R|>{% endif %}',
      )
      .replace('{%- endif %}<|end|>', '{%- endif %}<|EOT|>');
    const analysis = analyzeChatTemplate(commandStyle);
    expect(analysis.evidence.endOfTurn).toBe('<|/R|><|EOT|>');
    expect(analysis.evidence.turns[0]?.text).toBe(
      '<|A|>[{"tool_name": "probe_weather", "parameters": {"city": "Quillmoor"}}]<|/A|>',
    );
    expect(analysis.spec?.calls).toEqual([
      {
        codec: 'json',
        open: '<|A|>',
        close: '<|/A|>',
        nameKeys: ['tool_name'],
        argumentKeys: ['parameters'],
      },
    ]);
    const protocol = protocolFromChatTemplate(commandStyle);
    expect(
      read(
        protocol,
        '<|A|>[{"tool_name": "get_weather", "parameters": {"city": "Oslo", "days": 3}}]<|/A|>',
      ),
    ).toEqual({ calls: [OSLO], text: '', reasoning: '', errors: [] });
  });
});

describe('a chat template whose generation prompt leaves <think> open', () => {
  // Qwen3-thinking / QwQ style: the prompt ends with `<think>\n`, past turns drop their reasoning.
  const THINKING = [
    '{%- for message in messages -%}',
    '<|im_start|>{{ message.role }}',
    '{% if message.tool_calls %}{% for call in message.tool_calls %}<tool_call>',
    '{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments | tojson }}}',
    '</tool_call>{% endfor %}{% else %}{{ message.content }}{% endif %}<|im_end|>',
    '{% endfor -%}',
    '{%- if add_generation_prompt %}<|im_start|>assistant',
    '<think>',
    '{% endif -%}',
  ].join('\n');
  const output =
    'The user wants Oslo.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}\n</tool_call>';

  it('is the registered family, and its parsers start in reasoning', () => {
    const analysis = analyzeChatTemplate(THINKING);
    expect(analysis).toMatchObject({ family: 'hermes', startInReasoning: true });
    const protocol = protocolFromChatTemplate(THINKING);
    expect(protocol.name).toBe('hermes');
    expect(read(protocol, output)).toEqual({
      calls: [OSLO],
      text: '\n\n',
      reasoning: 'The user wants Oslo.\n',
      errors: [],
    });
  });

  it('still lets the caller say the output does not start in reasoning', () => {
    const protocol = protocolFromChatTemplate(THINKING);
    const content = protocol.parseGeneratedText('<think>a</think>b', {
      tools,
      startInReasoning: false,
    });
    expect(content).toEqual([
      { type: 'reasoning', text: 'a' },
      { type: 'text', text: 'b' },
    ]);
  });

  it('reads reasoning tags made of several tokens (Kimi K3: <|open|>think<|sep|>)', () => {
    const k3Style = JSON_CALLS.replace(
      '<think>{{ message.reasoning_content }}</think>',
      '<|open|>think<|sep|>{{ message.reasoning_content }}<|close|>think<|sep|>',
    ).replace(
      '{%- if add_generation_prompt %}<|assistant|>{% endif -%}',
      '{%- if add_generation_prompt %}<|assistant|><|open|>think<|sep|>{% endif -%}',
    );
    const analysis = analyzeChatTemplate(k3Style);
    expect(analysis.evidence.reasoning).toEqual({
      open: '<|open|>think<|sep|>',
      close: '<|close|>think<|sep|>',
      promptOpens: true,
    });
    expect(
      read(
        protocolFromChatTemplate(k3Style),
        'Bergen.<|close|>think<|sep|><|calls|><|call|>{"name": "get_weather", "arguments": {"city": "Bergen"}}<|/call|><|/calls|>',
      ),
    ).toEqual({ calls: [BERGEN], text: '', reasoning: 'Bergen.', errors: [] });
  });

  it('a spec built from markers starts in reasoning too', () => {
    const opened = JSON_CALLS.replace(
      '{%- if add_generation_prompt %}<|assistant|>{% endif -%}',
      '{%- if add_generation_prompt %}<|assistant|><think>{% endif -%}',
    );
    const analysis = analyzeChatTemplate(opened);
    expect(analysis.startInReasoning).toBe(true);
    expect(analysis.spec?.startInReasoning).toBe(true);
    const protocol = protocolFromChatTemplate(opened);
    expect(
      read(
        protocol,
        'Hmm.</think><|calls|><|call|>{"name": "get_weather", "arguments": {"city": "Bergen"}}<|/call|><|/calls|>',
      ),
    ).toEqual({ calls: [BERGEN], text: '', reasoning: 'Hmm.', errors: [] });
  });
});

describe('choosing among registered formats that read the same calls', () => {
  // `<tool_calls>[{"name": …, "arguments": …}]</tool_calls>`: Hunyuan's and Apriel's calls alike.
  const toolCallsList = (instructions: string) =>
    template(
      '<tool_calls>[{%- for call in message.tool_calls %}{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments | tojson }}}{% if not loop.last %}, {% endif %}{% endfor %}]</tool_calls>',
    ).replace(
      '<|{{ message.role }}|>{{ message.content }}<|end|>',
      `<|{{ message.role }}|>${instructions}{{ message.content }}<|end|>`,
    );

  it('takes the one whose framing the template names (Apriel: [BEGIN FINAL RESPONSE])', () => {
    const apriel = toolCallsList('End with [BEGIN FINAL RESPONSE] then your answer. ');
    expect(analyzeChatTemplate(apriel).family).toBe('apriel');
    const plain = toolCallsList('');
    expect(analyzeChatTemplate(plain).family).not.toBe('apriel');
  });
});

describe('a template that writes one turn no reader can take back', () => {
  it('Llama 4 pythonic quotes strings without escaping quotes inside: pythonic reads every turn', () => {
    const llama4 = readFileSync(
      new URL('../../fixtures/chat-templates/llama4-pythonic.vllm.jinja', import.meta.url),
      'utf8',
    );
    const analysis = analyzeChatTemplate(llama4);
    expect(analysis.family).toBe('pythonic');
    expect(analysis.evidence.unreadable ?? []).toEqual([]);
  });
});

describe('a chat template that cannot be analysed', () => {
  it('renders no call: the error says the calls are not in its output', () => {
    const noCalls =
      '{%- for message in messages %}<|{{ message.role }}|>{{ message.content }}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}';
    let thrown: unknown;
    try {
      protocolFromChatTemplate(noCalls);
    } catch (error) {
      thrown = error;
    }
    expect(ChatTemplateError.isInstance(thrown)).toBe(true);
    expect(isErrorOfKind(thrown, 'invalid-format')).toBe(true);
    expect((thrown as Error).message).toBe(
      'the template renders no tool call: assistant `tool_calls` are not in its output',
    );
  });

  it('throws while rendering: the error names the template error', () => {
    expect(() => protocolFromChatTemplate('{{ raise_exception("No tools here.") }}')).toThrow(
      /the template renders no tool call: the template refuses it: No tools here\./,
    );
    expect(() => protocolFromChatTemplate('{% for %}')).toThrow(/does not parse/);
  });

  it('the real GLM-4 template: its assistant turns drop the calls', () => {
    const glm4 = readFileSync(
      new URL('../../fixtures/chat-templates/glm4.vllm.jinja', import.meta.url),
      'utf8',
    );
    expect(() => protocolFromChatTemplate(glm4)).toThrow(
      'the template renders no tool call: assistant `tool_calls` are not in its output',
    );
  });
});

describe('chatTemplateFromFile', () => {
  it('takes a .jinja file as it is, even when it starts with {{ or {%', () => {
    expect(chatTemplateFromFile('{{ bos_token }}hi', 'model.jinja')).toBe('{{ bos_token }}hi');
    expect(chatTemplateFromFile('{%- if x %}{% endif %}')).toBe('{%- if x %}{% endif %}');
  });

  it("takes tokenizer_config.json's chat_template string", () => {
    const config = JSON.stringify({ bos_token: '<s>', chat_template: JSON_CALLS });
    expect(chatTemplateFromFile(config, 'tokenizer_config.json')).toBe(JSON_CALLS);
    expect(chatTemplateFromFile(config)).toBe(JSON_CALLS);
    // And protocolFromChatTemplate takes the file's text directly.
    expect(analyzeChatTemplate(config).spec?.calls[0]?.open).toBe('<|call|>');
  });

  it('drops a byte-order mark', () => {
    const config = `\uFEFF${JSON.stringify({ chat_template: 'T' })}`;
    expect(chatTemplateFromFile(config, 'tokenizer_config.json')).toBe('T');
    expect(chatTemplateFromFile('\uFEFF{{ x }}', 'a.jinja')).toBe('{{ x }}');
  });

  it('picks tool_use from a list of named templates, else default', () => {
    const list = (names: string[]) =>
      JSON.stringify({ chat_template: names.map((name) => ({ name, template: `T:${name}` })) });
    expect(
      chatTemplateFromFile(list(['default', 'tool_use', 'rag']), 'tokenizer_config.json'),
    ).toBe('T:tool_use');
    expect(chatTemplateFromFile(list(['rag', 'default']), 'tokenizer_config.json')).toBe(
      'T:default',
    );
  });

  it("renders with the config's bos_token and eos_token (a string or {content})", () => {
    const withEos = JSON_CALLS.replace('<|end|>\n{%- else -%}', '{{ eos_token }}\n{%- else -%}');
    expect(withEos).not.toBe(JSON_CALLS);
    const config = JSON.stringify({
      bos_token: { content: '<s>' },
      eos_token: '</s>',
      chat_template: withEos,
    });
    const analysis = analyzeChatTemplate(config);
    expect(analysis.evidence.endOfTurn).toBe('</s>');
    expect(analysis.evidence.turns[0]?.text).toBe(
      '<|calls|><|call|>{"name": "probe_weather", "arguments": {"city": "Quillmoor"}}<|/call|><|/calls|>',
    );
    // The caller's tokens win over the file's.
    expect(analyzeChatTemplate(config, { eosToken: '<|eot|>' }).evidence.endOfTurn).toBe('<|eot|>');
  });

  it('refuses JSON without a chat_template, naming the file', () => {
    expect(() => chatTemplateFromFile('{"bos_token": "<s>"}', 'tokenizer_config.json')).toThrow(
      'tokenizer_config.json has no "chat_template" field',
    );
    expect(() => chatTemplateFromFile('{"chat_template": 3}', 'c.json')).toThrow(ChatTemplateError);
    expect(() => chatTemplateFromFile('not json', 'c.json')).toThrow(/c\.json is not JSON/);
  });
});

describe('deriving a format from a chat template', () => {
  it('takes well under 50 ms a template (median CPU time over the 27 real templates)', () => {
    const directory = new URL('../../fixtures/chat-templates/', import.meta.url);
    const sources = readdirSync(directory)
      .filter((file) => file.endsWith('.jinja'))
      .map((file) => readFileSync(new URL(file, directory), 'utf8'));
    const derive = (source: string) => {
      try {
        protocolFromChatTemplate(source);
      } catch {
        // Templates toolwire does not read yet cost their time too.
      }
    };
    // CPU time, not wall time: parallel test files share the cores.
    const cpuMs = (source: string) => {
      const start = process.cpuUsage();
      derive(source);
      const used = process.cpuUsage(start);
      return (used.user + used.system) / 1000;
    };
    const median = (values: readonly number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const cold = sources.map(cpuMs);
    const warm = sources.map((source) => median([cpuMs(source), cpuMs(source), cpuMs(source)]));
    console.log(
      `chat-template derivation, CPU ms a template: first in the process median ${median(cold).toFixed(1)} (slowest ${Math.max(...cold).toFixed(1)}), warm median ${median(warm).toFixed(1)} (slowest ${Math.max(...warm).toFixed(1)})`,
    );
    // Generous: a loaded machine slows this several times over.
    expect(median(warm)).toBeLessThan(100);
  });
});
