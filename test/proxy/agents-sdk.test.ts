import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolCallToFormat } from '../../src/core/index.ts';
import { callText, proxyHarness } from './harness.ts';
import type { ScriptedReply, UpstreamBody } from './scripted-upstream.ts';

// The OpenAI Agents SDK (`@openai/agents`), which speaks the Responses API, running an agent with
// one function tool through the proxy in front of a scripted text-only model server.

const startProxy = proxyHarness();

beforeAll(() => {
  // Traces would go to OpenAI.
  setTracingDisabled(true);
});

const PARIS: ToolCallToFormat = {
  toolName: 'get_weather',
  toolCallId: 'c1',
  input: { city: 'Paris' },
};
const ANSWER = 'It is sunny in Paris, 21 °C.';
const SCRIPT: readonly ScriptedReply[] = [{ text: callText(PARIS) }, { text: ANSWER }];

/** A runner whose model is the proxy's, and the agent with its weather tool and what the tool got. */
async function agentThroughProxy() {
  const { url, upstream } = await startProxy(SCRIPT);
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-test', maxRetries: 0 });
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }),
  });
  const received: unknown[] = [];
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: async (input) => {
      received.push(input);
      return `sunny, 21 °C in ${input.city}`;
    },
  });
  const agent = new Agent({
    name: 'Weather',
    instructions: 'Answer with the weather tool.',
    model: 'scripted-model',
    tools: [getWeather],
  });
  return { runner, agent, received, upstream };
}

/** Every message's text the model server got, as one string. */
function sentText(body: UpstreamBody): string {
  return body.messages
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    )
    .join('\n');
}

describe('the OpenAI Agents SDK through the proxy', () => {
  it('runs an agent with a function tool: the tool gets the parsed arguments, the answer is final', async () => {
    const { runner, agent, received, upstream } = await agentThroughProxy();
    const result = await runner.run(agent, 'What is the weather in Paris?');
    expect(received).toEqual([{ city: 'Paris' }]);
    expect(result.finalOutput).toBe(ANSWER);
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests[0]!.stream).toBe(false);
    // The tool's result reached the model in the second request.
    expect(sentText(upstream.requests[1]!)).toContain('sunny, 21 °C in Paris');
    expect(sentText(upstream.requests[0]!)).toContain('get_weather');
  });

  it('runs the same agent streamed', async () => {
    const { runner, agent, received, upstream } = await agentThroughProxy();
    const result = await runner.run(agent, 'What is the weather in Paris?', { stream: true });
    let text = '';
    for await (const event of result.toTextStream()) text += event;
    await result.completed;
    expect(received).toEqual([{ city: 'Paris' }]);
    expect(result.finalOutput).toBe(ANSWER);
    // The text streamed: the model's words before its call, then the answer.
    expect(text).toContain(ANSWER);
    expect(upstream.requests).toHaveLength(2);
    expect(upstream.requests.every((body) => body.stream === true)).toBe(true);
    expect(sentText(upstream.requests[1]!)).toContain('sunny, 21 °C in Paris');
  });
});
