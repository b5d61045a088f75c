import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { createToolMiddleware, type ProtocolFault } from '../../src/ai-sdk/index.ts';
import {
  PROTOCOLS,
  promptText,
  scriptedModel,
  stepSummary,
  WEATHER_DEFINITIONS,
  weatherTools,
} from './support.ts';

const QUESTION = 'What is the weather in Seoul?';

describe.each(PROTOCOLS)(
  '$name protocol through real generateText / streamText loops',
  ({ protocol }) => {
    const call = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Seoul' } });
    const outputs = [`Let me look that up.\n${call}`, 'It is sunny and 21 degrees in Seoul.'];

    it.each(['generate', 'stream'] as const)('runs a two-step weather loop (%s)', async (mode) => {
      const model = scriptedModel(outputs);
      const ran: { toolName: string; input: unknown }[] = [];
      const faults: ProtocolFault[] = [];
      const options = {
        model: wrapLanguageModel({
          model,
          middleware: createToolMiddleware({ protocol, onError: (fault) => faults.push(fault) }),
        }),
        prompt: QUESTION,
        tools: weatherTools(ran),
        stopWhen: stepCountIs(5),
      };
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      const steps = await result.steps;

      expect(await result.text).toBe('It is sunny and 21 degrees in Seoul.');
      expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul' } }]);
      expect(steps.map(stepSummary)).toEqual([
        {
          text: 'Let me look that up.\n',
          reasoning: undefined,
          toolCalls: [{ toolName: 'get_weather', input: { city: 'Seoul' } }],
          toolResults: [
            { toolName: 'get_weather', output: { city: 'Seoul', temperature: 21, sky: 'sunny' } },
          ],
          errors: [],
          finishReason: 'tool-calls',
        },
        {
          text: 'It is sunny and 21 degrees in Seoul.',
          reasoning: undefined,
          toolCalls: [],
          toolResults: [],
          errors: [],
          finishReason: 'stop',
        },
      ]);
      expect(faults).toEqual([]);

      // The inner model never saw native tools; it saw the protocol's tool prompt instead.
      expect(model.calls).toHaveLength(2);
      for (const seen of model.calls) {
        expect(seen.tools).toBeUndefined();
        expect(seen.toolChoice).toBeUndefined();
        expect(seen.prompt[0]).toEqual({
          role: 'system',
          content: protocol.formatTools(WEATHER_DEFINITIONS),
        });
      }
      // Step 2 shows the model its own call and the result in the protocol, as text.
      const second = model.calls[1]!.prompt;
      expect(second.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'user',
      ]);
      expect(second[2]).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: `Let me look that up.\n${call}` }],
      });
      expect(second[3]).toEqual({
        role: 'user',
        content: [
          {
            type: 'text',
            text: protocol.formatToolResponse({
              toolName: 'get_weather',
              toolCallId: expect.any(String),
              output: { city: 'Seoul', temperature: 21, sky: 'sunny' },
            }),
          },
        ],
      });
    });

    it.each(['generate', 'stream'] as const)(
      'runs parallel calls of one step (%s)',
      async (mode) => {
        const calls = protocol.formatToolCall([
          { toolName: 'get_weather', input: { city: 'Seoul' } },
          { toolName: 'get_time', input: { city: 'Paris' } },
        ]);
        const model = scriptedModel([calls, 'Sunny in Seoul; 10:30 in Paris.']);
        const ran: { toolName: string; input: unknown }[] = [];
        const options = {
          model: wrapLanguageModel({ model, middleware: createToolMiddleware({ protocol }) }),
          prompt: 'Weather in Seoul and time in Paris?',
          tools: weatherTools(ran),
          stopWhen: stepCountIs(5),
        };
        const result = mode === 'generate' ? await generateText(options) : streamText(options);
        const steps = await result.steps;
        expect(steps).toHaveLength(2);
        expect(steps[0]!.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
          ['get_weather', { city: 'Seoul' }],
          ['get_time', { city: 'Paris' }],
        ]);
        expect(ran.map((r) => r.toolName).sort()).toEqual(['get_time', 'get_weather']);
        const ids = steps[0]!.toolCalls.map((c) => c.toolCallId);
        expect(new Set(ids).size).toBe(2);
        // Both calls re-rendered as one batch, both results in one message, in call order.
        const second = model.calls[1]!.prompt;
        expect(second[2]).toEqual({ role: 'assistant', content: [{ type: 'text', text: calls }] });
        expect(second[3]).toEqual({
          role: 'user',
          content: [
            {
              type: 'text',
              text: protocol.formatToolResponse([
                {
                  toolName: 'get_weather',
                  toolCallId: ids[0],
                  output: { city: 'Seoul', temperature: 21, sky: 'sunny' },
                },
                { toolName: 'get_time', toolCallId: ids[1], output: '10:30 in Paris' },
              ]),
            },
          ],
        });
      },
    );

    it('recovers from a call whose input fails the schema, after the SDK feeds the error back', async () => {
      // `unit` outside its enum: the SDK rejects the input, tells the model, and the loop goes on.
      const bad = protocol.formatToolCall({
        toolName: 'get_weather',
        input: { city: 'Seoul', unit: 'kelvin' },
      });
      const model = scriptedModel([bad, call, 'Sunny, 21 degrees.']);
      const ran: { toolName: string; input: unknown }[] = [];
      const result = streamText({
        model: wrapLanguageModel({ model, middleware: createToolMiddleware({ protocol }) }),
        prompt: QUESTION,
        tools: weatherTools(ran),
        stopWhen: stepCountIs(5),
      });
      const steps = await result.steps;
      expect(steps.map((step) => step.toolCalls.length)).toEqual([1, 1, 0]);
      expect(steps[0]!.content.some((part) => part.type === 'tool-error')).toBe(true);
      // The schema problem the middleware found travels with the call.
      expect(steps[0]!.toolCalls[0]!.providerMetadata).toEqual({
        toolwire: {
          problems: [expect.objectContaining({ path: '/unit', keyword: 'enum' })],
        },
      });
      expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul' } }]);
      expect(await result.text).toBe('Sunny, 21 degrees.');
      // Step 2's prompt holds the model's bad call and the SDK's error, in the protocol.
      const seen = promptText(model.calls[1]!);
      expect(seen).toContain('kelvin');
      expect(seen).toMatch(/Invalid input for tool get_weather/);
    });
  },
);

describe('malformed markup', () => {
  it.each([
    {
      name: 'hermes',
      broken:
        'I will check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": Seoul, South Korea}}\n</tool_call>',
      fixed: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Seoul"}}\n</tool_call>',
    },
    {
      name: 'xml',
      broken: 'I will check.\n<get_weather>\n  <city>Seoul, South</ci',
      fixed: '<get_weather>\n  <city>Seoul</city>\n</get_weather>',
    },
  ])(
    '$name: becomes an invalid call, the model is told why, and it recovers',
    async ({ name, broken, fixed }) => {
      const protocol = PROTOCOLS.find((entry) => entry.name === name)!.protocol;
      const model = scriptedModel([broken, fixed, 'Sunny, 21 degrees.']);
      const ran: { toolName: string; input: unknown }[] = [];
      const faults: ProtocolFault[] = [];
      const result = await generateText({
        model: wrapLanguageModel({
          model,
          middleware: createToolMiddleware({ protocol, onError: (fault) => faults.push(fault) }),
        }),
        prompt: QUESTION,
        tools: weatherTools(ran),
        stopWhen: stepCountIs(5),
      });
      expect(faults).toHaveLength(1);
      const fault = faults[0]!;
      expect(fault.toolName).toBe('get_weather');
      expect(broken.endsWith(fault.raw) || broken.includes(fault.raw)).toBe(true);
      expect(fault.raw.length).toBeGreaterThan(10);

      // Step 1: an invalid call the SDK refused to run.
      const [first, second, third] = result.steps;
      expect(first!.toolCalls).toHaveLength(1);
      expect(first!.content.filter((part) => part.type === 'tool-error')).toHaveLength(1);
      expect(first!.text).toBe('I will check.\n');
      expect(second!.toolCalls.map((c) => c.input)).toEqual([{ city: 'Seoul' }]);
      expect(third!.text).toBe('Sunny, 21 degrees.');
      expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul' } }]);

      // Step 2's prompt: the model's own markup exactly as written, and our reason as the result.
      const history = model.calls[1]!.prompt;
      expect(history[2]).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: broken }],
      });
      const resultText = promptText(model.calls[1]!);
      expect(resultText).toContain('could not be read, so nothing was run');
      expect(resultText).toContain(JSON.stringify(fault.message).slice(1, 30));
      expect(resultText).not.toContain('JSON parsing failed');
    },
  );

  it("with malformedCalls: 'text' keeps the raw markup as text and ends the loop", async () => {
    const broken =
      'Hm.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": Seoul, South Korea}}\n</tool_call>';
    const model = scriptedModel([broken]);
    const faults: ProtocolFault[] = [];
    const result = await generateText({
      model: wrapLanguageModel({
        model,
        middleware: createToolMiddleware({
          protocol: PROTOCOLS[1]!.protocol,
          malformedCalls: 'text',
          onError: (fault) => faults.push(fault),
        }),
      }),
      prompt: QUESTION,
      tools: weatherTools(),
      stopWhen: stepCountIs(5),
    });
    expect(result.steps).toHaveLength(1);
    expect(result.text).toBe(broken);
    expect(result.toolCalls).toEqual([]);
    expect(faults.map((fault) => fault.raw)).toEqual([broken.slice('Hm.\n'.length)]);
  });
});
