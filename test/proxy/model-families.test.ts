import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCallToFormat, ToolDefinition } from '../../src/core/index.ts';
import { type RunningServer, startServer } from '../../src/http/node-server.ts';
import { FORMATS, formatEntry, formatForModel } from '../../src/protocols/registry.ts';
import { specOf } from '../../src/protocols/spec/define.ts';
import { createProxyApp } from '../../src/proxy/index.ts';
import {
  type ScriptedReply,
  type ScriptedUpstream,
  startScriptedUpstream,
  type UpstreamBody,
} from './scripted-upstream.ts';

// Every format in the registry through the proxy's default protocol choice (`model`): a model id
// of the family picks the format; the model server answers in that format's own markup, and the
// client gets native tool_calls. The list comes from the registry, so a new format is covered
// (or this test fails until it has a model id).

/** Formats no model id maps to, and why. */
const WITHOUT_MODELS: Readonly<Record<string, string>> = {
  xml: "Probe's XML protocol is a prompt format of toolwire's own: no model is trained on it",
  execute: "Cogency's execute protocol is a prompt format: no model is trained on it",
  'arrow-calls':
    'the `[TOOL_CALL] {tool => …}` form is a fallback some models drift into (MiniMax M2.5/M2.7 agents): no model is trained on it',
};

/**
 * One string the pattern matches: literals kept, the first alternative and the first character of
 * a class taken, optional parts kept once, lookarounds left out. Enough for the plain model-id
 * patterns of the registry; the test checks the result maps back to the format.
 */
function sampleOf(pattern: RegExp): string {
  const source = pattern.source;
  let at = 0;
  const atom = (): string => {
    const char = source[at]!;
    if (char === '\\') {
      const escaped = source[at + 1]!;
      at += 2;
      if (escaped === 'd') return '1';
      if (escaped === 'b' || escaped === 'B') return '';
      return escaped;
    }
    if (char === '[') {
      const end = source.indexOf(']', at + 2);
      let first = source[at + 1]!;
      if (first === '\\') first = source[at + 2]!;
      at = end + 1;
      return first;
    }
    if (char === '(') {
      at++;
      let lookaround = false;
      if (source[at] === '?') {
        lookaround = source[at + 1] !== ':';
        at += lookaround ? (source[at + 1] === '<' ? 3 : 2) : 2;
      }
      const inner = alternatives();
      at++; // ')'
      return lookaround ? '' : inner;
    }
    at++;
    if (char === '^' || char === '$') return '';
    if (char === '.') return 'x';
    return char;
  };
  const sequence = (): string => {
    let out = '';
    while (at < source.length && source[at] !== '|' && source[at] !== ')') {
      const piece = atom();
      const quantifier = source[at];
      // Optional parts are kept once (`qwen3-?coder` reads `qwen3-coder`, as ids are written).
      if (quantifier === '*') {
        at++;
        continue;
      }
      if (quantifier === '?' || quantifier === '+') at++;
      out += piece;
    }
    return out;
  };
  const alternatives = (): string => {
    const first = sequence();
    while (source[at] === '|') {
      at++;
      sequence();
    }
    return first;
  };
  return alternatives();
}

/** A model id of each format's family: the first pattern's sample that the registry maps back. */
function modelIdFor(format: string): string | undefined {
  const entry = formatEntry(format)!;
  return entry.models
    .map(sampleOf)
    .find((id) => id.length > 0 && formatForModel(id).name === format);
}

const FORECAST: ToolDefinition = {
  name: 'get_forecast',
  description: 'Weather forecast for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
    additionalProperties: false,
  },
};
const CALL: ToolCallToFormat = {
  toolName: 'get_forecast',
  toolCallId: 'call_1',
  input: { city: 'Oslo', days: 3 },
};
const BEFORE = 'I will look that up.';
const AFTER = 'Anything else?';

describe('the registry: every format a model id picks', () => {
  it.each(FORMATS.map((entry) => entry.name))('%s has a model id or a reason', (format) => {
    const id = modelIdFor(format);
    if (id === undefined) {
      expect(WITHOUT_MODELS[format], `no model id maps to ${format}`).toEqual(expect.any(String));
    } else {
      expect(formatForModel(id).name).toBe(format);
      expect(WITHOUT_MODELS[format]).toBeUndefined();
    }
  });

  it('the sample of a pattern is matched by it', () => {
    for (const entry of FORMATS)
      for (const pattern of entry.models) expect(pattern.test(sampleOf(pattern))).toBe(true);
  });
});

const FAMILIES = FORMATS.map((entry) => entry.name)
  .map((format) => ({ format, model: modelIdFor(format) }))
  .filter((family): family is { format: string; model: string } => family.model !== undefined);

let upstream: ScriptedUpstream;
let running: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  // Answers each request in the format of its model, with prose before and after the call.
  upstream = await startScriptedUpstream((body: UpstreamBody): ScriptedReply => {
    const protocol = formatForModel(body.model).create();
    // A model whose template opens reasoning (Kimi K3, Apriel) closes it before it answers.
    const spec = specOf(protocol);
    const close = spec?.startInReasoning ? spec.reasoning?.[0]?.close : undefined;
    const lead = close ? `Thinking.${close}` : '';
    return { text: `${lead}${BEFORE}\n${protocol.formatToolCall(CALL)}\n${AFTER}` };
  });
  // No protocol given: the proxy's default, the format of each request's model id.
  running = await startServer(createProxyApp({ upstream: upstream.url }), {
    port: 0,
    host: '127.0.0.1',
  });
  client = new OpenAI({ baseURL: `${running.url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
});
afterAll(async () => {
  await running?.close();
  await upstream?.close();
});

const tools = [
  {
    type: 'function' as const,
    function: {
      name: FORECAST.name,
      description: FORECAST.description!,
      parameters: FORECAST.inputSchema as Record<string, unknown>,
    },
  },
];

/** The last request the model server got for this model. */
function sentFor(model: string): UpstreamBody {
  const body = upstream.requests.findLast((request) => request.model === model);
  expect(body).toBeDefined();
  return body!;
}

describe.each(FAMILIES)('$format, picked by the model id "$model"', ({ format, model }) => {
  const protocol = formatEntry(format)!.create();

  it('non-streamed: the call comes out as tool_calls; the system prompt is the format’s', async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Forecast for Oslo, 3 days?' }],
      tools,
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(
      (choice.message.tool_calls ?? []).map((call) =>
        call.type === 'function'
          ? { name: call.function.name, input: JSON.parse(call.function.arguments) }
          : call,
      ),
    ).toEqual([{ name: CALL.toolName, input: CALL.input }]);
    expect(choice.message.content ?? '').toContain(BEFORE);
    expect(choice.message.content ?? '').toContain(AFTER);
    expect(sentFor(model).messages[0]).toEqual({
      role: 'system',
      content: protocol.formatTools([FORECAST]),
    });
  });

  it('streamed: the call comes out as tool_calls deltas joining to the arguments', async () => {
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Forecast for Oslo, 3 days?' }],
      tools,
      stream: true,
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.map((delta) => delta.index)).toEqual(deltas.map(() => 0));
    expect(deltas[0]).toMatchObject({
      index: 0,
      id: expect.any(String),
      type: 'function',
      function: { name: CALL.toolName },
    });
    const json = deltas.map((delta) => delta.function?.arguments ?? '').join('');
    expect(JSON.parse(json)).toEqual(CALL.input);
    const content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(content).toContain(BEFORE);
    expect(content).toContain(AFTER);
    expect(
      chunks.findLast((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]?.finish_reason,
    ).toBe('tool_calls');
    expect(sentFor(model).messages[0]).toEqual({
      role: 'system',
      content: protocol.formatTools([FORECAST]),
    });
  });

  it('a second turn: the call and its result reach the model server in the format', async () => {
    await client.chat.completions.create({
      model,
      messages: [
        { role: 'user', content: 'Forecast for Oslo, 3 days?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: CALL.toolName, arguments: JSON.stringify(CALL.input) },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Rain, then sun.' },
      ],
      tools,
    });
    const sent = sentFor(model);
    expect(sent.messages).toEqual([
      { role: 'system', content: protocol.formatTools([FORECAST]) },
      { role: 'user', content: 'Forecast for Oslo, 3 days?' },
      { role: 'assistant', content: protocol.formatToolCall(CALL) },
      {
        role: 'user',
        content: protocol.formatToolResponse({
          toolName: CALL.toolName,
          toolCallId: 'call_1',
          output: 'Rain, then sun.',
        }),
      },
    ]);
  });
});
