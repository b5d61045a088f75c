import {
  extractReasoningMiddleware,
  generateText,
  type LanguageModelMiddleware,
  stepCountIs,
  streamText,
  wrapLanguageModel,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { createToolMiddleware, hermesProtocol, xmlProtocol } from '../../src/ai-sdk/index.ts';
import { chunksOf, scriptedModel, stepSummary, weatherTools } from './support.ts';

const protocol = xmlProtocol();
const CALL = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Seoul' } });
// The reasoning mentions a call; it must never run.
const THINK = '<think>Maybe <get_time><city>Paris</city></get_time>? No: the weather.</think>';
const FIRST = `${THINK}\nChecking.\n${CALL}`;

const orders: { name: string; stack: () => LanguageModelMiddleware[] }[] = [
  {
    name: 'tool middleware outside, extractReasoning inside',
    stack: () => [
      createToolMiddleware({ protocol }),
      extractReasoningMiddleware({ tagName: 'think' }),
    ],
  },
  {
    name: 'extractReasoning outside, tool middleware inside',
    stack: () => [
      extractReasoningMiddleware({ tagName: 'think' }),
      createToolMiddleware({ protocol }),
    ],
  },
  { name: 'tool middleware alone', stack: () => [createToolMiddleware({ protocol })] },
];

describe('composition with extractReasoningMiddleware', () => {
  for (const mode of ['generate', 'stream'] as const) {
    it.each(orders)(`$name (${mode})`, async ({ stack }) => {
      const model = scriptedModel([FIRST, 'Sunny.'], (text) => chunksOf(text, 3));
      const ran: { toolName: string; input: unknown }[] = [];
      const options = {
        model: wrapLanguageModel({ model, middleware: stack() }),
        prompt: 'Weather in Seoul?',
        tools: weatherTools(ran),
        stopWhen: stepCountIs(5),
      };
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      const steps = (await result.steps).map(stepSummary);
      expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul' } }]);
      expect(steps[0]).toMatchObject({
        reasoning: 'Maybe <get_time><city>Paris</city></get_time>? No: the weather.',
        toolCalls: [{ toolName: 'get_weather', input: { city: 'Seoul' } }],
      });
      // extractReasoningMiddleware may keep the new line after </think>; no markup is left.
      expect(steps[0]!.text.trim()).toBe('Checking.');
      expect(steps[1]).toMatchObject({ text: 'Sunny.', toolCalls: [] });
    });
  }

  it('reasoning parts in the history are left for the provider, not rendered as text', async () => {
    const model = scriptedModel([FIRST, 'Sunny.']);
    await generateText({
      model: wrapLanguageModel({ model, middleware: createToolMiddleware({ protocol }) }),
      prompt: 'Weather in Seoul?',
      tools: weatherTools(),
      stopWhen: stepCountIs(5),
    });
    const assistant = model.calls[1]!.prompt[2]!;
    expect(assistant).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Maybe <get_time><city>Paris</city></get_time>? No: the weather.',
        },
        { type: 'text', text: `\nChecking.\n${CALL}` },
      ],
    });
  });

  it('a template that opened <think> already (startInReasoning)', async () => {
    const model = scriptedModel([
      'The user wants weather.</think><tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}</tool_call>',
      'Sunny.',
    ]);
    const result = await generateText({
      model: wrapLanguageModel({
        model,
        middleware: createToolMiddleware({ protocol: hermesProtocol(), startInReasoning: true }),
      }),
      prompt: 'Weather in Seoul?',
      tools: weatherTools(),
      stopWhen: stepCountIs(5),
    });
    expect(result.steps[0]!.reasoningText).toBe('The user wants weather.');
    expect(result.steps[0]!.toolCalls.map((call) => call.input)).toEqual([{ city: 'Seoul' }]);
  });
});
