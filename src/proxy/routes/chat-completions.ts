/** `POST /v1/chat/completions`: OpenAI's chat completions, streamed as chunks or whole. */
import type { Context, Hono } from 'hono';
import type { ProxyContext } from '../context.ts';
import type { ChatRequest } from '../conversation.ts';
import { readChatCompletionsRequest } from '../openai-request.ts';
import {
  ChatCompletionBuilder,
  ChatCompletionChunks,
  type CompletionIdentity,
} from '../openai-response.ts';
import { answerReply, type ReplyWriter } from '../reply-writing.ts';

/** A new chat completion's identity. */
function completionIdentity(request: ChatRequest): CompletionIdentity {
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    model: request.model,
    created: Math.floor(Date.now() / 1000),
  };
}

function chunkWriter(request: ChatRequest): ReplyWriter {
  const chunks = new ChatCompletionChunks(completionIdentity(request));
  return {
    // OpenAI's first chunk names the role: clients see the reply has begun.
    start: () => chunks.encode([{ type: 'text', delta: '' }]),
    encode: (batch) => chunks.encode(batch),
    finish: (end) => chunks.finish(end, request.includeUsage),
    error: (error) => chunks.error(error),
  };
}

export function chatCompletionsRoute(app: Hono, proxy: ProxyContext): void {
  app.post('/v1/chat/completions', async (c: Context) => {
    const place = proxy.admit(c);
    try {
      const { body, values } = await proxy.readBody(c, place);
      const texts = proxy.textsReader(values);
      const request = readChatCompletionsRequest(body, texts);
      place.memory.grow(texts.cost);
      return await answerReply(proxy.replyRun(c, place, request, 'call'), place, {
        stream: request.stream,
        writer: () => chunkWriter(request),
        collector: () => {
          const builder = new ChatCompletionBuilder();
          return {
            add: (events) => builder.add(events),
            build: (end) => builder.build(completionIdentity(request), end),
          };
        },
      });
    } catch (error) {
      place.done();
      throw error;
    }
  });
}
