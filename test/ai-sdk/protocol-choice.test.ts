import type {
  LanguageModelV3Middleware,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
} from '@ai-sdk/provider';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  createToolMiddleware,
  glmToolMiddleware,
  gptOssToolMiddleware,
  llama3ToolMiddleware,
  mistralToolMiddleware,
  type PresetOptions,
  qwen3CoderToolMiddleware,
  toolMiddlewareFor,
} from '../../src/ai-sdk/index.ts';
import {
  createToolMiddlewareV3,
  glmToolMiddlewareV3,
  gptOssToolMiddlewareV3,
  llama3ToolMiddlewareV3,
  mistralToolMiddlewareV3,
  qwen3CoderToolMiddlewareV3,
  toolMiddlewareForV3,
} from '../../src/ai-sdk/v3.ts';
import {
  FORMATS,
  formatEntry,
  formatForModel,
  PROTOCOL_NAMES,
  protocolByName,
} from '../../src/protocols/index.ts';
import {
  scriptedModel,
  stepSummary,
  WEATHER_DEFINITIONS,
  WEATHER_FUNCTION_TOOLS,
  weatherTools,
} from './support.ts';

function params(): LanguageModelV4CallOptions {
  return {
    prompt: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather in Seoul?' }] },
    ],
    tools: WEATHER_FUNCTION_TOOLS.map((tool) => ({ ...tool })),
  };
}

/** The system text the middleware gives a model of that id. */
async function systemText(
  middleware: LanguageModelV4Middleware | LanguageModelV3Middleware,
  modelId = 'mock-model-id',
) {
  const transform = middleware.transformParams as LanguageModelV4Middleware['transformParams'];
  const out = await transform!({
    type: 'generate',
    params: params(),
    model: new MockLanguageModelV4({ modelId }),
  });
  return out.prompt[0]!.content;
}

/** What a middleware on the protocol of that name writes into the system text. */
function sectionOf(name: string): string {
  return `You are terse.\n\n${protocolByName(name).formatTools(WEATHER_DEFINITIONS)}`;
}

// Model ids of the families the issue names; each goes to the format the registry gives it.
const MODEL_IDS = [
  'qwen2.5-coder:7b',
  'qwen3-coder:30b',
  'Qwen/Qwen3-Coder-30B-A3B-Instruct',
  'mistral-small3.2',
  'gpt-oss:20b',
  'llama3.2',
  'glm-4.6',
  'kimi-k2',
  'deepseek-v3.1',
  'granite3.3',
  'MiniMax-M2',
  'some-unknown-model',
];

describe('createToolMiddleware({ protocol: name })', () => {
  it.each(PROTOCOL_NAMES)('%s: describes the tools as that protocol does', async (name) => {
    expect(await systemText(createToolMiddleware({ protocol: name }))).toBe(sectionOf(name));
  });

  it('takes every alias, in any case', async () => {
    for (const entry of FORMATS) {
      for (const alias of [...entry.aliases, entry.name.toUpperCase()]) {
        expect(await systemText(createToolMiddleware({ protocol: alias })), alias).toBe(
          sectionOf(entry.name),
        );
      }
    }
  });

  it('throws a TypeError for a name no format has, listing the names, auto and model', () => {
    expect(() => createToolMiddleware({ protocol: 'yaml' })).toThrow(TypeError);
    expect(() => createToolMiddleware({ protocol: 'yaml' })).toThrow(
      `createToolMiddleware: unknown protocol "yaml": expected one of ${[...PROTOCOL_NAMES, 'model'].join(', ')} (or a format's alias), or a ToolCallProtocol`,
    );
    expect(() => createToolMiddlewareV3({ protocol: 'yaml' })).toThrow('unknown protocol "yaml"');
  });

  it('throws a TypeError for something that is neither a protocol nor a name', () => {
    for (const protocol of [undefined, 42, {}, { name: 'xml' }]) {
      expect(() => createToolMiddleware({ protocol } as never), String(protocol)).toThrow(
        'options.protocol must be a ToolCallProtocol (e.g. xmlProtocol()) or a protocol',
      );
    }
  });

  it.each(['generate', 'stream'] as const)(
    'auto reads a call in a format other than the one it prompts in (%s)',
    async (mode) => {
      const call = protocolByName('xml').formatToolCall({
        toolName: 'get_weather',
        input: { city: 'Seoul' },
      });
      const ran: { toolName: string; input: unknown }[] = [];
      const options = {
        model: wrapLanguageModel({
          model: scriptedModel([call, 'Sunny.']),
          middleware: createToolMiddleware({ protocol: 'auto' }),
        }),
        prompt: 'Weather in Seoul?',
        tools: weatherTools(ran),
        stopWhen: stepCountIs(3),
      };
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      expect(await result.text).toBe('Sunny.');
      expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul' } }]);
    },
  );
});

describe("createToolMiddleware({ protocol: 'model' })", () => {
  it('describes the tools in the format of the wrapped model id, chosen at each call', async () => {
    // One middleware, many models: each call gets its own model's format.
    const middleware = createToolMiddleware({ protocol: 'model' });
    for (const id of MODEL_IDS) {
      expect(await systemText(middleware, id), id).toBe(sectionOf(formatForModel(id).name));
    }
  });

  it.runIf(formatEntry('qwen3-coder') && formatEntry('gpt-oss'))(
    'two models of different formats behind one middleware each get their own',
    async () => {
      const middleware = createToolMiddleware({ protocol: 'model' });
      const qwen = await systemText(middleware, 'qwen3-coder:30b');
      const gpt = await systemText(middleware, 'gpt-oss:20b');
      expect(qwen).toBe(sectionOf('qwen3-coder'));
      expect(gpt).toBe(sectionOf('gpt-oss'));
      expect(qwen).not.toBe(gpt);
    },
  );

  it.each(['generate', 'stream'] as const)(
    'reads the calls the model writes in its format, through generateText / streamText (%s)',
    async (mode) => {
      const id = 'qwen2.5-coder:7b';
      const call = protocolByName(formatForModel(id).name).formatToolCall({
        toolName: 'get_weather',
        input: { city: 'Seoul' },
      });
      const ran: { toolName: string; input: unknown }[] = [];
      const model = scriptedModel([`Looking.\n${call}`, 'Sunny, 21 degrees.'], undefined, id);
      const options = {
        model: wrapLanguageModel({
          model,
          middleware: createToolMiddleware({ protocol: 'model' }),
        }),
        prompt: 'Weather in Seoul?',
        tools: weatherTools(ran),
        stopWhen: stepCountIs(3),
      };
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      expect(await result.text).toBe('Sunny, 21 degrees.');
      expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul' } }]);
      expect((await result.steps).map(stepSummary)[0]!.toolCalls).toEqual([
        { toolName: 'get_weather', input: { city: 'Seoul' } },
      ]);
    },
  );

  it('plans from the model id without transformParams too', async () => {
    const id = 'qwen2.5-coder:7b';
    const call = protocolByName(formatForModel(id).name).formatToolCall({
      toolName: 'get_time',
      input: { city: 'Rome' },
    });
    const result = await createToolMiddleware({ protocol: 'MODEL' }).wrapGenerate!({
      doGenerate: async () => ({
        content: [{ type: 'text', text: call }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      }),
      doStream: async () => {
        throw new Error('not used');
      },
      params: params(),
      model: new MockLanguageModelV4({ modelId: id }),
    });
    expect(result.content).toMatchObject([
      { type: 'tool-call', toolName: 'get_time', input: '{"city":"Rome"}' },
    ]);
  });
});

describe('toolMiddlewareFor(modelId)', () => {
  it('describes the tools in the format of that model id, whatever model it wraps', async () => {
    for (const id of MODEL_IDS) {
      expect(await systemText(toolMiddlewareFor(id)), id).toBe(sectionOf(formatForModel(id).name));
      expect(await systemText(toolMiddlewareForV3(id, { placement: 'system-end' })), id).toBe(
        sectionOf(formatForModel(id).name),
      );
    }
  });

  it('passes the other options on', async () => {
    const text = await systemText(
      toolMiddlewareFor('qwen2.5-coder:7b', { placement: 'system-start' }),
    );
    expect(text).toBe(
      `${protocolByName(formatForModel('qwen2.5-coder:7b').name).formatTools(WEATHER_DEFINITIONS)}\n\nYou are terse.`,
    );
  });
});

type Preset = (options?: PresetOptions) => LanguageModelV4Middleware | LanguageModelV3Middleware;

const FAMILY_PRESETS: { name: string; v4: Preset; v3: Preset }[] = [
  { name: 'qwen3-coder', v4: qwen3CoderToolMiddleware, v3: qwen3CoderToolMiddlewareV3 },
  { name: 'gpt-oss', v4: gptOssToolMiddleware, v3: gptOssToolMiddlewareV3 },
  { name: 'mistral', v4: mistralToolMiddleware, v3: mistralToolMiddlewareV3 },
  { name: 'llama3', v4: llama3ToolMiddleware, v3: llama3ToolMiddlewareV3 },
  { name: 'glm', v4: glmToolMiddleware, v3: glmToolMiddlewareV3 },
];

describe.each(FAMILY_PRESETS)('$name preset', ({ name, v4, v3 }) => {
  it.runIf(formatEntry(name))('describes the tools in its format, V4 and V3', async () => {
    expect(await systemText(v4())).toBe(sectionOf(name));
    expect(await systemText(v3({ placement: 'system-start' }))).toBe(
      await systemText(v4({ placement: 'system-start' })),
    );
  });

  it.skipIf(formatEntry(name))(
    'fails with a clear TypeError when called while its format is not registered',
    () => {
      expect(() => v4()).toThrow(`unknown protocol "${name}"`);
      expect(() => v3()).toThrow(TypeError);
    },
  );
});
