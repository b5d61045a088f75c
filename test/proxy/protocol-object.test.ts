/**
 * `createProxyApp({ protocol })` given a protocol object rather than a name: every request is
 * told the tools and read in it, whatever its model id.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol } from '../../src/core/index.ts';
import { protocolByName } from '../../src/protocols/index.ts';
import { createProxyApp } from '../../src/proxy/index.ts';
import { isToolCallProtocol } from '../../src/proxy/options.ts';
import { proxyHarness, WEATHER } from './harness.ts';

const HOUSE_PROMPT = 'HOUSE FORMAT: write calls as below.';

/** hermes's reading and writing under a name no built-in has, with a prompt of its own. */
function houseProtocol(): ToolCallProtocol {
  const hermes = protocolByName('hermes');
  return {
    name: 'house-format',
    formatTools: (tools) => `${HOUSE_PROMPT}\n${hermes.formatTools(tools)}`,
    formatToolCall: (call) => hermes.formatToolCall(call),
    formatToolResponse: (result) => hermes.formatToolResponse(result),
    parseGeneratedText: (text, options) => hermes.parseGeneratedText(text, options),
    createStreamParser: (options) => hermes.createStreamParser(options),
    extractToolCallSegments: (text, options) => hermes.extractToolCallSegments(text, options),
  };
}

const start = proxyHarness();

async function ask(url: string, model: string) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: WEATHER.name,
            description: WEATHER.description,
            parameters: WEATHER.inputSchema,
          },
        },
      ],
    }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    choices: { message: { tool_calls?: { function: { name: string; arguments: string } }[] } }[];
  };
}

const HERMES_CALL = protocolByName('hermes').formatToolCall({
  toolName: 'get_weather',
  input: { city: 'Paris' },
});

describe('createProxyApp({ protocol: a ToolCallProtocol })', () => {
  // Model ids whose own formats are not hermes: the object is used for them all the same.
  for (const model of ['qwen3-coder:30b', 'gpt-oss:20b', 'some-unknown-model']) {
    it(`tells and reads every request in it (model ${model})`, async () => {
      const { url, upstream } = await start([{ text: `Checking.\n${HERMES_CALL}` }], {
        protocol: houseProtocol(),
      });
      const reply = await ask(url, model);
      expect(reply.choices[0]!.message.tool_calls?.[0]?.function).toEqual({
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
      });
      const system = upstream.requests[0]!.messages.find((message) => message.role === 'system');
      expect(String(system?.content)).toContain(HOUSE_PROMPT);
    });
  }

  it('refuses, with a TypeError, an object that is not a protocol', () => {
    for (const bad of [{}, { name: 'x' }, { ...houseProtocol(), formatTools: 'no' }])
      expect(() =>
        createProxyApp({ upstream: 'http://127.0.0.1:9/v1', protocol: bad as never }),
      ).toThrow("createProxyApp: protocol must be a format's name or alias, auto, model");
  });

  it('isToolCallProtocol tells a protocol from other values', () => {
    expect(isToolCallProtocol(houseProtocol())).toBe(true);
    expect(isToolCallProtocol(protocolByName('xml'))).toBe(true);
    for (const value of [null, undefined, 'hermes', {}, { name: 1 }]) {
      expect(isToolCallProtocol(value)).toBe(false);
    }
  });
});
