/**
 * `POST /v1/messages/count_tokens`: how long Claude Code's conversation is. The model server's
 * tokenizer counts the prompt as the proxy renders it where it serves one (llama.cpp and vLLM
 * serve `/tokenize` at their root); else an estimate of a token per four characters, and a
 * header saying which.
 */
import type { Context, Hono } from 'hono';
import { readMessagesRequest } from '../anthropic-request.ts';
import type { ProxyContext } from '../context.ts';
import { callUpstream, readReplyJson, serverRoot, type UpstreamSettings } from '../upstream.ts';
import { type UpstreamMessage, upstreamMessages } from '../upstream-messages.ts';

/** Longest the proxy waits for the model server's tokenizer before it estimates instead. */
const TOKENIZE_TIMEOUT_MS = 10_000;

/** The header saying whether the count is the tokenizer's or an estimate. */
export const TOKEN_COUNT_HEADER = 'x-toolwire-token-count';

/**
 * The rendered prompt as one text: what a tokenizer counts (the chat template's own tokens
 * aside), earlier reasoning included (a template that keeps it renders it).
 */
function promptText(messages: readonly UpstreamMessage[]): string {
  return messages
    .map((message) => {
      const content =
        typeof message.content === 'string'
          ? message.content
          : message.content
              .map((part) => (typeof part.text === 'string' ? part.text : ''))
              .join('\n');
      const reasoning = 'reasoning_content' in message ? message.reasoning_content : undefined;
      return typeof reasoning === 'string' ? `${reasoning}\n${content}` : content;
    })
    .join('\n\n');
}

/** How many tokens a `/tokenize` reply counts (llama.cpp: `tokens`; vLLM: `count` and `tokens`). */
function tokenCountOf(reply: unknown): number | undefined {
  if (typeof reply !== 'object' || reply === null) return undefined;
  const { count, tokens } = reply as { count?: unknown; tokens?: unknown };
  if (Number.isSafeInteger(count) && (count as number) >= 0) return count as number;
  return Array.isArray(tokens) ? tokens.length : undefined;
}

export function countTokensRoute(app: Hono, proxy: ProxyContext): void {
  app.post('/v1/messages/count_tokens', async (c: Context) => {
    const place = proxy.admit(c);
    try {
      const { body } = await proxy.readBody(c, place);
      const request = readMessagesRequest(body, { forCounting: true });
      const text = promptText(upstreamMessages(request, proxy.protocolFor(request.model)));
      const tokenizer: UpstreamSettings = {
        ...proxy.upstream,
        baseURL: serverRoot(proxy.upstream.baseURL),
        timeoutMs: Math.min(proxy.upstream.timeoutMs, TOKENIZE_TIMEOUT_MS),
      };
      let counted: number | undefined;
      try {
        const call = await callUpstream(tokenizer, '/tokenize', {
          method: 'POST',
          // llama.cpp reads `content`, vLLM `prompt` (and `model`); each ignores the other's.
          body: { model: request.model, content: text, prompt: text, add_special: false },
          authorization: proxy.upstreamAuthorization(c),
          signal: place.controller.signal,
        });
        counted = tokenCountOf(await readReplyJson(call, tokenizer, place.memory, 'token count'));
      } catch {
        // No tokenizer there (404), or it failed: the estimate below answers.
      }
      const inputTokens = counted ?? Math.max(1, Math.ceil(text.length / 4));
      return Response.json(
        { input_tokens: inputTokens },
        { headers: { [TOKEN_COUNT_HEADER]: counted === undefined ? 'estimate' : 'tokenizer' } },
      );
    } finally {
      place.done();
    }
  });
}
