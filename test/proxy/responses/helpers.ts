import OpenAI from 'openai';
import type { FunctionTool } from 'openai/resources/responses/responses';
import type { ToolCallToFormat } from '../../../src/core/index.ts';
import type { ProxyOptions } from '../../../src/proxy/index.ts';
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
