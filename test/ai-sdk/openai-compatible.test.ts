import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolMiddleware } from '../../src/ai-sdk/index.ts';
import { chunksOf, PROTOCOLS, WEATHER_DEFINITIONS, weatherTools } from './support.ts';

interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content: unknown }[];
  tools?: unknown;
  tool_choice?: unknown;
  [key: string]: unknown;
}

/**
 * A text-only OpenAI-compatible server, as llama.cpp or vLLM serve a model without a tool parser:
 * it answers each request with the next scripted text, streamed as SSE chunks or whole.
 */
class TextOnlyServer {
  readonly requests: ChatRequest[] = [];
  private outputs: string[] = [];
  private readonly server: Server;
  port = 0;

  constructor() {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error));
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  script(outputs: string[]): void {
    this.outputs = [...outputs];
    this.requests.length = 0;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of request) body += chunk;
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404).end();
      return;
    }
    const chat = JSON.parse(body) as ChatRequest;
    this.requests.push(chat);
    const text = this.outputs.shift() ?? '';
    const base = { id: `chatcmpl-${this.requests.length}`, created: 1, model: chat.model };
    const usage = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 };
    if (!chat.stream) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [
            { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
          ],
          usage,
        }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (delta: object, finish: string | null) =>
      send({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    chunk({ role: 'assistant', content: '' }, null);
    for (const piece of chunksOf(text, 5)) chunk({ content: piece }, null);
    chunk({}, 'stop');
    send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
    response.end('data: [DONE]\n\n');
  }
}

const server = new TextOnlyServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

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
          baseURL: `http://127.0.0.1:${server.port}/v1`,
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
