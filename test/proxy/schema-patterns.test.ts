/**
 * A client's tool schemas are untrusted: their patterns run on model text. A pattern that would
 * backtrack (`^(a+)+$`) is matched in linear time, and one that cannot be matched so (a
 * backreference, lookaround) is refused with a 400 naming it, in each API's shape.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createProxyApp } from '../../src/proxy/index.ts';
import { type ScriptedUpstream, startScriptedUpstream } from './scripted-upstream.ts';

let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: the shapes under test are the assertions themselves
const json = async (response: Response): Promise<any> => response.json();

function post(body: unknown): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', host: '127.0.0.1' },
    body: JSON.stringify(body),
  };
}

const schemaWith = (id: Record<string, unknown>) => ({
  type: 'object',
  properties: { id },
  required: ['id'],
});

const chatWith = (schema: unknown) => ({
  model: 'm',
  messages: [{ role: 'user', content: 'Look it up.' }],
  tools: [{ type: 'function', function: { name: 'lookup', parameters: schema } }],
});

const messagesWith = (schema: unknown) => ({
  model: 'm',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'Look it up.' }],
  tools: [{ name: 'lookup', input_schema: schema }],
});

describe('proxy: schema patterns', () => {
  it('refuses a pattern with a backreference or lookaround with 400 naming where it is', async () => {
    upstream = await startScriptedUpstream([{ text: 'never asked' }]);
    const proxy = createProxyApp({ upstream: upstream.url, protocol: 'hermes' });
    const cases: [Record<string, unknown>, string][] = [
      [schemaWith({ type: 'string', pattern: '^(a)\\1$' }), '.properties.id.pattern'],
      [
        { type: 'object', patternProperties: { '^(?=x)': { type: 'string' } } },
        '.patternProperties["^(?=x)"]',
      ],
    ];
    for (const [schema, where] of cases) {
      const chat = await proxy.app.request('/v1/chat/completions', post(chatWith(schema)));
      expect(chat.status).toBe(400);
      const chatError = (await json(chat)).error;
      expect(chatError.message).toContain(`tools[0].function.parameters${where}`);
      expect(chatError.message).toMatch(/linear time/);
      const messages = await proxy.app.request('/v1/messages', post(messagesWith(schema)));
      expect(messages.status).toBe(400);
      const messagesError = (await json(messages)).error;
      expect(messagesError.type).toBe('invalid_request_error');
      expect(messagesError.message).toContain(`tools[0].input_schema${where}`);
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('matches a catastrophic pattern on a hostile model call without freezing', async () => {
    // 34 `a` and a `!`: with backtracking, `^(a+)+$` tries 2^34 ways before failing.
    const hostile = `${'a'.repeat(34)}!`;
    const call = `<tool_call>\n{"name": "lookup", "arguments": {"id": "${hostile}"}}\n</tool_call>`;
    upstream = await startScriptedUpstream([{ text: call }]);
    const proxy = createProxyApp({ upstream: upstream.url, protocol: 'hermes' });
    const schema = schemaWith({ type: 'string', pattern: '^(a+)+$' });
    const response = await proxy.app.request('/v1/chat/completions', post(chatWith(schema)));
    expect(response.status).toBe(200);
    const message = (await json(response)).choices[0].message;
    // The call was read and checked against its schema (the check is where a backtracking
    // engine froze); a call that breaks its schema still goes to the client, whose tool answers.
    expect(message.tool_calls).toHaveLength(1);
    expect(JSON.parse(message.tool_calls[0].function.arguments)).toEqual({ id: hostile });
  });
});
