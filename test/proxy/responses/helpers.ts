import OpenAI from 'openai';
import type { FunctionTool } from 'openai/resources/responses/responses';
import { expect } from 'vitest';
import type { ToolCallToFormat } from '../../../src/core/index.ts';
import { HttpError } from '../../../src/http/http-error.ts';
import type { ProxyOptions } from '../../../src/proxy/index.ts';
import type { ReplyEnd } from '../../../src/proxy/reply-run.ts';
import { proxyHarness, WEATHER } from '../harness.ts';
import type { ScriptedReply, ScriptedUpstream, UpstreamBody } from '../scripted-upstream.ts';

// What the `/v1/responses` route tests share: the official `openai` client in front of the proxy
// in front of a scripted text-only model server.

/** The weather tool as the Responses API declares it. */
export const WEATHER_TOOL: FunctionTool = {
  type: 'function',
  name: WEATHER.name,
  description: WEATHER.description!,
  parameters: WEATHER.inputSchema as Record<string, unknown>,
  strict: true,
};

export const PARIS: ToolCallToFormat = {
  toolName: 'get_weather',
  toolCallId: 'c1',
  input: { city: 'Paris' },
};

export type ClientFor = (
  script: readonly ScriptedReply[] | ((body: UpstreamBody, index: number) => ScriptedReply),
  options?: Partial<ProxyOptions>,
) => Promise<{ client: OpenAI; upstream: ScriptedUpstream; url: string }>;

/**
 * Starts a proxy and an `openai` client pointed at it; call at a test file's top level (the
 * servers are closed after each test).
 */
export function responsesClientHarness(): ClientFor {
  const startProxy = proxyHarness();
  return async (script, options = {}) => {
    const { url, upstream } = await startProxy(script, options);
    return {
      client: new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-test', maxRetries: 0 }),
      upstream,
      url,
    };
  };
}

/** Every message's text the model server got, in order, as one string per message. */
export function sentTexts(body: UpstreamBody): string[] {
  return body.messages.map((message) =>
    typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
  );
}

/** Ids in order (`msg_1`, `fc_2`, …), so built and streamed responses can be compared whole. */
export function counter(): (prefix: string) => string {
  let next = 0;
  return (prefix) => `${prefix}_${++next}`;
}

// The identity, usage and end the builder and stream tests give a response.
export const identity = { id: 'resp_1', model: 'qwen3', createdAt: 1_700_000_000 };
export const usage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };
export const stop: ReplyEnd = { finishReason: 'stop', calls: 0, usage };

/** The HttpError `read` throws, checked to carry `status`; fails the test when it throws none. */
export function refusal(read: () => unknown, status = 400): HttpError {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(status);
    return error as HttpError;
  }
  throw new Error('the request was accepted');
}
