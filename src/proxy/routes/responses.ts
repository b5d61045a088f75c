/**
 * `POST /v1/responses`: OpenAI's Responses API (Codex, the Agents SDK). The same reply run as
 * every API, answered as a `response` object or streamed as its events; each one kept (unless
 * `store: false`) for a later `previous_response_id`, in the proxy's memory or a shared store.
 */
import type { Context, Hono } from 'hono';
import type { ProxyContext } from '../context.ts';
import { answerReply } from '../reply-writing.ts';
import type { KeptConversation, KeptConversations } from '../responses/kept-conversations.ts';
import { readResponsesRequest } from '../responses/request.ts';
import {
  type LeftOutToolsLog,
  responseCollector,
  responseStreamWriter,
  responsesHeaders,
} from '../responses/route.ts';

export interface ResponsesRouteSettings {
  readonly kept: KeptConversations;
  readonly leftOutTools: LeftOutToolsLog;
}

/**
 * The `previous_response_id` a body names, when it is a string; anything else is left to the
 * request reader, which refuses it with a 400.
 */
function previousResponseIdOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const id = (body as Readonly<Record<string, unknown>>).previous_response_id;
  return typeof id === 'string' ? id : undefined;
}

export function responsesRoute(
  app: Hono,
  proxy: ProxyContext,
  { kept, leftOutTools }: ResponsesRouteSettings,
): void {
  app.post('/v1/responses', async (c: Context) => {
    const place = proxy.admit(c);
    try {
      const { body, values } = await proxy.readBody(c, place);
      // The store may be another process (Redis): the earlier conversation is fetched first,
      // and the request is then read in one synchronous pass as always.
      const previousId = previousResponseIdOf(body);
      let earlier: KeptConversation | undefined;
      if (previousId !== undefined) {
        earlier = await kept.get(previousId);
        if (earlier !== undefined) place.memory.grow(earlier.bytes);
      }
      const texts = proxy.textsReader(values);
      const request = readResponsesRequest(body, {
        texts,
        earlier: (id) => (id === previousId ? earlier?.conversation : undefined),
      });
      place.memory.grow(texts.cost);
      leftOutTools.note(request);
      return await answerReply(proxy.replyRun(c, place, request.chat, 'call'), place, {
        stream: request.chat.stream,
        writer: () => responseStreamWriter(request, kept),
        collector: () => responseCollector(request, kept),
        headers: responsesHeaders(request),
      });
    } catch (error) {
      place.done();
      throw error;
    }
  });
}
