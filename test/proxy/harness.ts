/**
 * What the client tests share: a proxy in front of a scripted model server on loopback, closed
 * after each test, and the text a model writes in the hermes format.
 */
import { afterEach } from 'vitest';
import type { ToolCallToFormat, ToolDefinition } from '../../src/core/index.ts';
import { type RunningServer, startServer } from '../../src/http/node-server.ts';
import { protocolByName } from '../../src/protocols/index.ts';
import { createProxyApp, type ProxyOptions } from '../../src/proxy/index.ts';
import {
  type ScriptedReply,
  type ScriptedUpstream,
  startScriptedUpstream,
  type UpstreamBody,
} from './scripted-upstream.ts';

export const hermes = protocolByName('hermes');

export const WEATHER: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};
export const TIME: ToolDefinition = {
  name: 'get_time',
  description: 'Local time in a time zone',
  inputSchema: {
    type: 'object',
    properties: { zone: { type: 'string' } },
    required: ['zone'],
    additionalProperties: false,
  },
};

/** The model's reply: some prose, then the call in the model's own format. */
export const callText = (
  calls: ToolCallToFormat | ToolCallToFormat[],
  before = 'Let me check.',
): string => `${before}\n${hermes.formatToolCall(calls)}`;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Text in pieces of three characters, as a server streaming token by token sends it. */
export const tokens = (text: string): string[] =>
  Array.from({ length: Math.ceil(text.length / 3) }, (_, i) => text.slice(i * 3, i * 3 + 3));

/**
 * A streamed chat completion's text and each call's arguments, joined from their deltas: the
 * proxy sends each piece as the model server's read brought it, so a word may span events.
 */
export function joinedChatStream(sse: string): { content: string; arguments: string[] } {
  let content = '';
  const args: string[] = [];
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const delta = JSON.parse(line.slice(6)).choices?.[0]?.delta ?? {};
    if (typeof delta.content === 'string') content += delta.content;
    for (const call of delta.tool_calls ?? [])
      args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
  }
  return { content, arguments: args };
}

export interface RunningProxy {
  /** `http://127.0.0.1:PORT`: clients add `/v1` (OpenAI) or their own path (Anthropic). */
  readonly url: string;
  readonly upstream: ScriptedUpstream;
}

/**
 * Registers the cleanup and returns a starter: each call starts a scripted model server and a
 * proxy (hermes unless `options` say otherwise) in front of it; both close after the test.
 */
export function proxyHarness(): (
  script: readonly ScriptedReply[] | ((body: UpstreamBody, index: number) => ScriptedReply),
  options?: Partial<ProxyOptions>,
) => Promise<RunningProxy> {
  let upstream: ScriptedUpstream | undefined;
  let running: RunningServer | undefined;
  afterEach(async () => {
    await running?.close();
    await upstream?.close();
    running = undefined;
    upstream = undefined;
  });
  return async (script, options = {}) => {
    upstream = await startScriptedUpstream(script);
    const proxy = createProxyApp({ upstream: upstream.url, protocol: 'hermes', ...options });
    running = await startServer(proxy, { port: 0, host: '127.0.0.1' });
    return { url: running.url, upstream };
  };
}
