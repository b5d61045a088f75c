/**
 * Issue 20 section 4, first bullet: a model reply made of failed openers, answered whole
 * (`stream: false`, which parses the reply pushed at once), went through a reader that was
 * quadratic in time and memory: 152 KB of DeepSeek openers killed the proxy, 200 KB of `>`
 * blocked every client for seconds. Through the proxy, such replies now cost work linear in
 * their size (counted by the engine's work meter, not timed), and the proxy goes on serving.
 */
import { describe, expect, it } from 'vitest';
import { workMeter } from '../../src/protocols/engine/work-meter.ts';
import { protocolByName } from '../../src/protocols/index.ts';
import type { ProxyOptions } from '../../src/proxy/index.ts';
import { proxyHarness, WEATHER } from './harness.ts';

const startProxy = proxyHarness();

/** At most this much engine work per character of the reply (a linear reader does a few). */
const WORK_PER_CHARACTER = 64;

const chat = (stream: boolean) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    model: 'm',
    stream,
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
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

/** A call in the proxy's format, the reply after the pathological one. */
const callIn = (protocol: ProxyOptions['protocol']) =>
  protocolByName(
    protocol === 'auto' || protocol === undefined ? 'hermes' : String(protocol),
  ).formatToolCall({
    toolName: 'get_weather',
    input: { city: 'Oslo' },
  });

/** The fields of a chat completion the tests read. */
interface Completion {
  choices: {
    message: { content: string | null; tool_calls?: { function: { name: string } }[] };
  }[];
}

const REPLIES: [string, ProxyOptions['protocol'], string][] = [
  ['152 KB of DeepSeek call openers', 'deepseek', '<｜tool▁call▁begin｜>'.repeat(8_000)],
  ['200 KB of >', 'functionary', '>'.repeat(200_000)],
  ['200 KB of [TOOL_CALLS]t', 'mistral', '[TOOL_CALLS]t'.repeat(15_400)],
  ['152 KB of DeepSeek openers read by auto', 'auto', '<｜tool▁call▁begin｜>'.repeat(8_000)],
];

describe('proxy: a whole reply of failed openers (issue 20 section 4)', () => {
  it.each(REPLIES)(
    '%s: answered in linear work, and the proxy serves on',
    async (_name, protocol, reply) => {
      const { url } = await startProxy([{ text: reply }, { text: callIn(protocol) }], { protocol });
      const before = workMeter.characters;
      const response = await fetch(`${url}/v1/chat/completions`, chat(false));
      expect(response.status).toBe(200);
      const body = (await response.json()) as Completion;
      const work = workMeter.characters - before;
      // No call in it: the reply comes back as its text.
      expect(body.choices[0]!.message.tool_calls ?? []).toEqual([]);
      expect(body.choices[0]!.message.content?.length).toBeGreaterThan(0);
      expect(work).toBeLessThan(WORK_PER_CHARACTER * reply.length);

      const next = await fetch(`${url}/v1/chat/completions`, chat(false));
      expect(next.status).toBe(200);
      const answer = (await next.json()) as Completion;
      expect(
        answer.choices[0]!.message.tool_calls?.[0]?.function?.name,
        JSON.stringify(answer),
      ).toBe('get_weather');
    },
  );
});
