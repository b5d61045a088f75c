import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolMiddleware } from '../../src/ai-sdk/index.ts';
import { type FakeServer, startFakeOpenAIServer } from '../support/fake-openai-server.ts';
import { PROTOCOLS, WEATHER_DEFINITIONS, weatherTools } from './support.ts';

interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content: unknown }[];
  tools?: unknown;
  tool_choice?: unknown;
  [key: string]: unknown;
}

// A text-only OpenAI-compatible server (test/support), as llama.cpp or vLLM serve a model without
// a tool parser; each test scripts the texts it answers with.
let outputs: string[] = [];
let fake: FakeServer;
const server = {
  get requests() {
    return fake.requests as ChatRequest[];
  },
  get baseURL() {
    return fake.baseURL;
  },
  script(next: string[]) {
    outputs = [...next];
    fake.requests.length = 0;
  },
};
beforeAll(async () => {
  fake = await startFakeOpenAIServer({ turns: () => outputs.shift() ?? '' });
});
afterAll(() => fake.close());

describe.each(PROTOCOLS)(
  '$name through @ai-sdk/openai-compatible and a text-only server',
  ({ protocol }) => {
    const call = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Seoul' } });

    it.each(['generate', 'stream'] as const)(
      'runs the weather loop; native tools never reach the server (%s)',
      async (mode) => {
        server.script([`One moment.\n${call}`, 'Sunny, 21 degrees in Seoul.']);
        const provider = createOpenAICompatible({
          name: 'local',
          baseURL: server.baseURL,
        });
        const ran: { toolName: string; input: unknown }[] = [];
        const options = {
          model: wrapLanguageModel({
            model: provider.chatModel('text-only-model'),
            middleware: createToolMiddleware({ protocol }),
          }),
          system: 'You are a weather assistant.',
          prompt: 'What is the weather in Seoul?',
          tools: weatherTools(ran),
          toolChoice: 'auto' as const,
          stopWhen: stepCountIs(5),
        };
        const result = mode === 'generate' ? await generateText(options) : streamText(options);
        expect(await result.text).toBe('Sunny, 21 degrees in Seoul.');
        expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul' } }]);

        expect(server.requests).toHaveLength(2);
        for (const request of server.requests) {
          expect(request.stream ?? false).toBe(mode === 'stream');
          expect(request).not.toHaveProperty('tools');
          expect(request).not.toHaveProperty('tool_choice');
          expect(request.messages.map((message) => message.role)).not.toContain('tool');
          expect(request.messages[0]).toEqual({
            role: 'system',
            content: `You are a weather assistant.\n\n${protocol.formatTools(WEATHER_DEFINITIONS)}`,
          });
          expect(JSON.stringify(request)).not.toContain('toolwire');
        }
        const [, second] = server.requests;
        expect(second!.messages.slice(1)).toEqual([
          { role: 'user', content: 'What is the weather in Seoul?' },
          { role: 'assistant', content: `One moment.\n${call}` },
          {
            role: 'user',
            content: protocol.formatToolResponse({
              toolName: 'get_weather',
              output: { city: 'Seoul', temperature: 21, sky: 'sunny' },
            }),
          },
        ]);
      },
    );
  },
);
