import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  createToolMiddleware,
  hermesProtocol,
  type ProtocolFault,
  xmlProtocol,
} from '../../src/ai-sdk/index.ts';
import {
  generateResult,
  scriptedModel,
  USAGE,
  WEATHER_FUNCTION_TOOLS,
  weatherTools,
} from './support.ts';

const protocol = xmlProtocol();
describe('wrapGenerate', () => {
  it('gives text, reasoning and tool-call parts in order, with unique ids and finish tool-calls', async () => {
    const text =
      '<think>plan</think>First.\n<get_weather><city>A</city></get_weather>\nthen\n' +
      '<get_weather><city>B</city></get_weather>';
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        ...generateResult(''),
        content: [
          { type: 'reasoning', text: 'provider reasoning' },
          { type: 'text', text },
        ],
      }),
    });
    const wrapped = wrapLanguageModel({ model, middleware: createToolMiddleware({ protocol }) });
    const result = await wrapped.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
      tools: WEATHER_FUNCTION_TOOLS,
    });
    expect(result.content).toEqual([
      { type: 'reasoning', text: 'provider reasoning' },
      { type: 'reasoning', text: 'plan' },
      { type: 'text', text: 'First.\n' },
      {
        type: 'tool-call',
        toolCallId: expect.any(String),
        toolName: 'get_weather',
        input: '{"city":"A"}',
      },
      { type: 'text', text: '\nthen\n' },
      {
        type: 'tool-call',
        toolCallId: expect.any(String),
        toolName: 'get_weather',
        input: '{"city":"B"}',
      },
    ]);
    const ids = result.content.flatMap((part) =>
      part.type === 'tool-call' ? [part.toolCallId] : [],
    );
    expect(new Set(ids).size).toBe(2);
    expect(result.finishReason).toEqual({ unified: 'tool-calls', raw: 'stop' });
    expect(result.usage).toEqual(USAGE);
  });

  it('a call cut off by the token limit never runs; its raw text is reported', async () => {
    const faults: ProtocolFault[] = [];
    const cut = 'Sure.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Seo';
    const model = new MockLanguageModelV4({
      doGenerate: async () => generateResult(cut, { unified: 'length', raw: 'length' }),
    });
    const ran: { toolName: string; input: unknown }[] = [];
    const result = await generateText({
      model: wrapLanguageModel({
        model,
        middleware: createToolMiddleware({
          protocol: hermesProtocol(),
          malformedCalls: 'text',
          onError: (fault) => faults.push(fault),
        }),
      }),
      prompt: 'Weather?',
      tools: weatherTools(ran),
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual([]);
    expect(result.text).toBe(cut);
    expect(result.finishReason).toBe('length');
    expect(faults).toEqual([
      expect.objectContaining({
        code: 'incomplete-call',
        raw: '<tool_call>{"name": "get_weather", "arguments": {"city": "Seo',
        toolName: 'get_weather',
      }),
    ]);
  });

  it('works without transformParams too (plans from the call options it is given)', async () => {
    const middleware = createToolMiddleware({ protocol });
    const params: LanguageModelV4CallOptions = {
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
      tools: WEATHER_FUNCTION_TOOLS,
    };
    const result = await middleware.wrapGenerate!({
      doGenerate: async () => generateResult('<get_time><city>Rome</city></get_time>'),
      doStream: async () => {
        throw new Error('not used');
      },
      params,
      model: new MockLanguageModelV4(),
    });
    expect(result.content).toEqual([
      {
        type: 'tool-call',
        toolCallId: expect.any(String),
        toolName: 'get_time',
        input: '{"city":"Rome"}',
      },
    ]);
  });
});

describe('input validation is left to the AI SDK', () => {
  it('a tool whose schema does not validate (plain jsonSchema) runs the input as written', async () => {
    // The SDK validates only schemas that can (zod, standard schemas, jsonSchema with validate);
    // the middleware does not second-guess it, and attaches what it found.
    const bad = protocol.formatToolCall({
      toolName: 'get_weather',
      input: { city: 'Seoul', unit: 'kelvin' },
    });
    const ran: { toolName: string; input: unknown }[] = [];
    const result = await generateText({
      model: wrapLanguageModel({
        model: scriptedModel([bad, 'Done.']),
        middleware: createToolMiddleware({ protocol }),
      }),
      prompt: 'Weather?',
      tools: weatherTools(ran, { validate: false }),
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul', unit: 'kelvin' } }]);
    expect(result.steps[0]!.toolCalls[0]!.providerMetadata).toEqual({
      toolwire: {
        problems: [
          {
            path: '/unit',
            keyword: 'enum',
            message: expect.stringContaining('must be one of "celsius", "fahrenheit"'),
          },
        ],
      },
    });
  });
});
