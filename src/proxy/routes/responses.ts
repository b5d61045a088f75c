/**
 * `POST /v1/responses`: OpenAI's Responses API (Codex, the Agents SDK). The same reply run as
 * every API, answered as a `response` object or streamed as its events; each one kept (unless
 * `store: false`) for a later `previous_response_id`.
 */
import type { Context, Hono } from 'hono';
import type { ProxyContext } from '../context.ts';
import { answerReply } from '../reply-writing.ts';
import { type EarlierConversation, readResponsesRequest } from '../responses/request.ts';
import {
  type LeftOutToolsLog,
  responseCollector,
  responseStreamWriter,
  responsesHeaders,
} from '../responses/route.ts';
import type { ResponseStore } from '../responses/store.ts';

export interface ResponsesRouteSettings {
  readonly store: ResponseStore<EarlierConversation>;
  readonly leftOutTools: LeftOutToolsLog;
}

export function responsesRoute(
  app: Hono,
  proxy: ProxyContext,
  { store, leftOutTools }: ResponsesRouteSettings,
): void {
  app.post('/v1/responses', async (c: Context) => {
    const place = proxy.admit(c);
    try {
      const { body, values } = await proxy.readBody(c, place);
      const texts = proxy.textsReader(values);
      const request = readResponsesRequest(body, { texts, earlier: (id) => store.get(id) });
      place.memory.grow(texts.cost);
      leftOutTools.note(request);
      return await answerReply(proxy.replyRun(c, place, request.chat, 'call'), place, {
        stream: request.chat.stream,
        writer: () => responseStreamWriter(request, store),
        collector: () => responseCollector(request, store),
        headers: responsesHeaders(request),
      });
    } catch (error) {
      place.done();
      throw error;
    }
  });
}
