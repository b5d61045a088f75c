/** `POST /v1/messages`: Anthropic's Messages, streamed as events or whole. */
import type { Context, Hono } from 'hono';
import { readMessagesRequest } from '../anthropic-request.ts';
import { MessageBuilder, MessageEvents, type MessageIdentity } from '../anthropic-response.ts';
import type { ProxyContext } from '../context.ts';
import type { ChatRequest } from '../conversation.ts';
import { answerReply, type ReplyWriter } from '../reply-writing.ts';

/** A new Messages reply's identity. */
function messageIdentity(request: ChatRequest): MessageIdentity {
  return { id: `msg_${crypto.randomUUID().replaceAll('-', '')}`, model: request.model };
}

function eventWriter(request: ChatRequest): ReplyWriter {
  const events = new MessageEvents(messageIdentity(request));
  return {
    start: () => events.start(),
    encode: (batch) => events.encode(batch),
    finish: (end) => events.finish(end),
    error: (error) => events.error(error),
  };
}

export function messagesRoute(app: Hono, proxy: ProxyContext): void {
  app.post('/v1/messages', async (c: Context) => {
    const place = proxy.admit(c);
    try {
      const { body } = await proxy.readBody(c, place);
      const request = readMessagesRequest(body);
      return await answerReply(proxy.replyRun(c, place, request, 'toolu'), place, {
        stream: request.stream,
        writer: () => eventWriter(request),
        collector: () => {
          const builder = new MessageBuilder();
          return {
            add: (events) => builder.add(events),
            build: (end) => builder.build(messageIdentity(request), end),
          };
        },
      });
    } catch (error) {
      place.done();
      throw error;
    }
  });
}
