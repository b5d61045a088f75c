import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import type { ToolCallToFormat } from '../../src/core/index.ts';
import { hermes, proxyHarness, sleep, tokens, WEATHER } from './harness.ts';
import type { ScriptedReply } from './scripted-upstream.ts';

// The AI SDK (`ai`) through `@ai-sdk/openai-compatible` with native tools, pointed at
// `toolwire proxy` in front of a scripted text-only model server: the SDK runs the tool and
// sends its result back, as it would to a server with native tool calling.

const LISBON: ToolCallToFormat = {
  toolName: 'get_weather',
  toolCallId: 'c1',
  input: { city: 'Lisbon' },
};
const SYSTEM = 'You answer weather questions.';

/** A chat completions request as the provider sent it to the proxy. */
interface ClientBody {
  readonly stream?: boolean;
  readonly tools?: { type: string; function: { name: string; parameters: unknown } }[];
  readonly messages: {
    role: string;
    content: unknown;
    tool_call_id?: string;
    tool_calls?: unknown;
  }[];
}

const startProxy = proxyHarness();

async function providerFor(script: readonly ScriptedReply[]) {
  const { url, upstream } = await startProxy(script);
  const sent: ClientBody[] = [];
  const provider = createOpenAICompatible({
    baseURL: `${url}/v1`,
    name: 'proxy',
    // Records what the provider sends, to show that it speaks plain native tools to the proxy.
    fetch: async (input, init) => {
      if (typeof init?.body === 'string') sent.push(JSON.parse(init.body) as ClientBody);
      return fetch(input, init);
    },
  });
  return { model: provider.chatModel('scripted-model'), sent, upstream };
}

function weatherTools(ran: unknown[]) {
  return {
    get_weather: tool({
      description: WEATHER.description!,
      inputSchema: jsonSchema<{ city: string }>(
        WEATHER.inputSchema as Parameters<typeof jsonSchema>[0],
      ),
      execute: async (input: { city: string }) => {
        ran.push(input);
        return { city: input.city, sky: 'sunny', celsius: 24 };
      },
    }),
  };
}

describe('AI SDK through @ai-sdk/openai-compatible', () => {
  it.each(['generateText', 'streamText'] as const)(
    '%s: a multi-step run; the tool runs and the second request carries its result',
    async (mode) => {
      const { model, sent, upstream } = await providerFor([
        { text: `Looking it up.\n${hermes.formatToolCall(LISBON)}` },
        { text: 'Sunny and 24 C in Lisbon.' },
      ]);
      const ran: unknown[] = [];
      const options = {
        model,
        system: SYSTEM,
        prompt: 'Weather in Lisbon?',
        tools: weatherTools(ran),
        stopWhen: stepCountIs(4),
      };
      let text: string;
      let toolCalls: { toolName: string; input: unknown }[];
      if (mode === 'generateText') {
        const result = await generateText(options);
        text = result.text;
        toolCalls = result.steps.flatMap((step) => step.toolCalls);
        expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
      } else {
        const result = streamText(options);
        const parts: string[] = [];
        for await (const part of result.fullStream) parts.push(part.type);
        // The call streamed as it was read: its input in pieces before the whole call.
        const start = parts.indexOf('tool-input-start');
        expect(start).toBeGreaterThanOrEqual(0);
        expect(parts.indexOf('tool-input-delta')).toBeGreaterThan(start);
        expect(parts.indexOf('tool-call')).toBeGreaterThan(parts.indexOf('tool-input-delta'));
        text = await result.text;
        toolCalls = (await result.steps).flatMap((step) => step.toolCalls);
      }
      expect(text).toBe('Sunny and 24 C in Lisbon.');
      expect(toolCalls.map((call) => ({ toolName: call.toolName, input: call.input }))).toEqual([
        { toolName: 'get_weather', input: LISBON.input },
      ]);
      expect(ran).toEqual([LISBON.input]);

      // The provider spoke native tools to the proxy, and sent the result as a `tool` message.
      expect(sent).toHaveLength(2);
      for (const body of sent) {
        expect(body.stream ?? false).toBe(mode === 'streamText');
        expect(body.tools?.map((entry) => [entry.type, entry.function.name])).toEqual([
          ['function', 'get_weather'],
        ]);
      }
      const resultMessage = sent[1]!.messages.find((message) => message.role === 'tool')!;
      expect(resultMessage).toBeDefined();
      const call = sent[1]!.messages.find((message) => message.role === 'assistant')!;
      expect(call.tool_calls).toEqual([
        expect.objectContaining({ id: resultMessage.tool_call_id, type: 'function' }),
      ]);

      // The model server got plain text: the tool prompt, the call and the result in the format.
      expect(upstream.requests).toHaveLength(2);
      const [first, second] = upstream.requests;
      expect(first!.messages[0]).toEqual({
        role: 'system',
        content: `${SYSTEM}\n\n${hermes.formatTools([WEATHER])}`,
      });
      expect(second!.messages.map((message) => message.role)).toEqual([
        'system',
        'user',
        'assistant',
        'user',
      ]);
      expect(second!.messages[2]!.content).toContain(
        hermes.formatToolCall({ ...LISBON, toolCallId: resultMessage.tool_call_id }),
      );
      expect(second!.messages[3]!.content).toBe(
        hermes.formatToolResponse({
          toolName: 'get_weather',
          toolCallId: resultMessage.tool_call_id!,
          output: resultMessage.content as string,
        }),
      );
      expect(second!.messages[3]!.content).toContain('sunny');
    },
  );

  // Token-by-token servers send a call's closing markup alone: output that writes nothing
  // must not stall the stream.
  it('streamText: a server writing a few characters at a time still completes the run', async () => {
    const first = `Looking it up.\n${hermes.formatToolCall(LISBON)}`;
    const { model } = await providerFor([
      { chunks: tokens(first), delayMs: 10 },
      { chunks: tokens('Sunny in Lisbon.'), delayMs: 2 },
    ]);
    const ran: unknown[] = [];
    const abort = new AbortController();
    const result = streamText({
      model,
      prompt: 'Weather in Lisbon?',
      tools: weatherTools(ran),
      stopWhen: stepCountIs(4),
      abortSignal: abort.signal,
    });
    const text = Promise.resolve(result.text);
    text.catch(() => {});
    const outcome = await Promise.race([text, sleep(3_000).then(() => undefined)]);
    abort.abort();
    expect(outcome, 'the stream stalled').toBe('Sunny in Lisbon.');
    expect(ran).toEqual([LISBON.input]);
  });

  it.each(['generateText', 'streamText'] as const)(
    '%s: two calls in one reply both run',
    async (mode) => {
      const MADRID = { ...LISBON, toolCallId: 'c2', input: { city: 'Madrid' } };
      const { model } = await providerFor([
        { text: hermes.formatToolCall([LISBON, MADRID]) },
        { text: 'Both sunny.' },
      ]);
      const ran: unknown[] = [];
      const options = {
        model,
        prompt: 'Lisbon and Madrid?',
        tools: weatherTools(ran),
        stopWhen: stepCountIs(4),
      };
      const text =
        mode === 'generateText'
          ? (await generateText(options)).text
          : await streamText(options).text;
      expect(text).toBe('Both sunny.');
      expect(ran).toEqual([LISBON.input, MADRID.input]);
    },
  );

  it.each(['generateText', 'streamText'] as const)(
    "%s: toolChoice 'required' is passed on and held by the proxy (one retry)",
    async (mode) => {
      const { model, sent, upstream } = await providerFor([
        { text: 'It is probably sunny.' },
        { text: hermes.formatToolCall(LISBON) },
        { text: 'Sunny.' },
      ]);
      const ran: unknown[] = [];
      const options = {
        model,
        prompt: 'Weather in Lisbon?',
        tools: weatherTools(ran),
        toolChoice: 'required' as const,
        stopWhen: stepCountIs(1),
      };
      const steps =
        mode === 'generateText'
          ? (await generateText(options)).steps
          : await streamText(options).steps;
      expect(steps.flatMap((step) => step.toolCalls).map((call) => call.toolName)).toEqual([
        'get_weather',
      ]);
      expect(ran).toEqual([LISBON.input]);
      expect((sent[0] as { tool_choice?: unknown }).tool_choice).toBe('required');
      // One client request; the proxy asked the model server twice.
      expect(sent).toHaveLength(1);
      expect(upstream.requests).toHaveLength(2);
    },
  );
});
