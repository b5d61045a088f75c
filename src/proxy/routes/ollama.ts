/**
 * Ollama's own API: `POST /api/chat` with tools (read from the model's text like every API's),
 * streamed as NDJSON lines or whole; `GET /api/tags`, `POST /api/show`, `GET /api/version` and
 * `GET /api/ps` passed through to an Ollama server at the upstream's root, or answered from the
 * chat completions API of a model server that is not Ollama. Errors take Ollama's shape
 * (`{"error": "…"}`) for every `/api/` path (errors.ts).
 */
import type { Context, Hono } from 'hono';
import type { Place, ProxyContext } from '../context.ts';
import { listedNamesLine } from '../listed-names.ts';
import {
  type OllamaServerAccess,
  ollamaRunning,
  ollamaShow,
  ollamaTags,
  ollamaVersion,
} from '../ollama/models.ts';
import { readOllamaChatRequest } from '../ollama/request.ts';
import {
  OllamaChatBuilder,
  OllamaChatLines,
  type OllamaReplyIdentity,
  ollamaLoadReply,
} from '../ollama/response.ts';
import { answerReply, type ReplyWriter } from '../reply-writing.ts';

/** The header naming the `options` the proxy did not send on (`num_ctx`, `repeat_penalty`, …). */
export const LEFT_OUT_OPTIONS_HEADER = 'x-toolwire-left-out-options';

/** Ollama reads any body as JSON: its docs' `curl -d` sends a form's content type. */
const OLLAMA_BODIES_UNTYPED = true;

function leftOutHeaders(names: readonly string[]): Record<string, string> {
  const line = listedNamesLine(names);
  return line === '' ? {} : { [LEFT_OUT_OPTIONS_HEADER]: line };
}

function lineWriter(identity: OllamaReplyIdentity): ReplyWriter {
  const lines = new OllamaChatLines(identity);
  return {
    // Ollama's first line is the model's first piece: nothing to send before it.
    start: () => '',
    encode: (batch) => lines.encode(batch),
    finish: (end) => lines.finish(end),
    error: (error) => lines.error(error),
  };
}

/**
 * A route that asks the model server one thing for the client (`ask`) and answers its JSON,
 * holding a place among the requests answered at once while it does.
 */
function passedThrough(
  proxy: ProxyContext,
  ask: (access: OllamaServerAccess, c: Context, place: Place) => Promise<unknown>,
) {
  return async (c: Context) => {
    const place = proxy.admit(c);
    try {
      const access: OllamaServerAccess = {
        upstream: proxy.upstream,
        authorization: proxy.upstreamAuthorization(c),
        signal: place.controller.signal,
        memory: place.memory,
      };
      return Response.json(await ask(access, c, place));
    } finally {
      place.done();
    }
  };
}

export function ollamaRoutes(app: Hono, proxy: ProxyContext): void {
  app.post('/api/chat', async (c: Context) => {
    // Ollama's total_duration counts from the request's arrival.
    const startedAt = performance.now();
    const place = proxy.admit(c);
    try {
      const { body, values } = await proxy.readBody(c, place, OLLAMA_BODIES_UNTYPED);
      const texts = proxy.textsReader(values);
      const request = readOllamaChatRequest(body, texts);
      place.memory.grow(texts.cost);
      if (request.kind === 'load') {
        // The model server loads its models itself: Ollama's one answer, streamed or not.
        place.done();
        return Response.json(ollamaLoadReply(request.model, request.doneReason));
      }
      const { chat } = request;
      const headers = leftOutHeaders(request.leftOutOptions);
      const identity: OllamaReplyIdentity = { model: chat.model, startedAt };
      return await answerReply(proxy.replyRun(c, place, chat, 'call'), place, {
        stream: chat.stream,
        writer: () => lineWriter(identity),
        collector: () => new OllamaChatBuilder(identity),
        headers,
        contentType: 'application/x-ndjson',
      });
    } catch (error) {
      place.done();
      throw error;
    }
  });

  app.get(
    '/api/tags',
    passedThrough(proxy, (access) => ollamaTags(access)),
  );
  app.post(
    '/api/show',
    passedThrough(proxy, async (access, c, place) => {
      const { body } = await proxy.readBody(c, place, OLLAMA_BODIES_UNTYPED);
      return ollamaShow(access, body);
    }),
  );
  app.get(
    '/api/version',
    passedThrough(proxy, (access) => ollamaVersion(access)),
  );
  app.get(
    '/api/ps',
    passedThrough(proxy, (access) => ollamaRunning(access)),
  );
}
