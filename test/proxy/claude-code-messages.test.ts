import { describe, expect, it } from 'vitest';
import { LATER_INSTRUCTION } from '../../src/proxy/anthropic-request.ts';
import { proxyHarness, WEATHER } from './harness.ts';

// What Claude Code sends on Messages, as the newest releases send it: system messages inside
// `messages`, Anthropic's own fields the model server has no use for, `?beta=true`, `HEAD /`.

const startProxy = proxyHarness();

const cached = { type: 'ephemeral' } as const;

/** A request shaped like Claude Code's (2.1.154 and later). */
function claudeCodeBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'qwen3-coder',
    max_tokens: 32000,
    system: [
      { type: 'text', text: 'You are Claude Code.', cache_control: cached },
      { type: 'text', text: 'Be brief.' },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'List the files.', cache_control: cached }] },
      {
        role: 'system',
        content: [
          { type: 'text', text: '<env>cwd: /work</env>' },
          { type: 'text', text: 'Today is Saturday.', cache_control: cached },
        ],
      },
      { role: 'system', content: 'Second note.' },
    ],
    tools: [
      {
        name: WEATHER.name,
        description: WEATHER.description,
        input_schema: WEATHER.inputSchema,
        cache_control: cached,
      },
    ],
    ...extra,
  };
}

async function post(url: string, body: unknown, path = '/v1/messages'): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-test' },
    body: JSON.stringify(body),
  });
}

describe('Claude Code on Messages', () => {
  it('folds system messages inside messages into the system text, in order, marked as later', async () => {
    const { url, upstream } = await startProxy([{ text: 'Done.' }]);
    const response = await post(url, claudeCodeBody());
    expect(response.status).toBe(200);
    const sent = upstream.requests[0]!;
    expect(sent.messages.filter((message) => message.role === 'system')).toHaveLength(1);
    expect(sent.messages[0]!.role).toBe('system');
    const system = sent.messages[0]!.content as string;
    expect(
      system.startsWith(
        [
          'You are Claude Code.\nBe brief.',
          `${LATER_INSTRUCTION}\n<env>cwd: /work</env>\nToday is Saturday.`,
          `${LATER_INSTRUCTION}\nSecond note.`,
        ].join('\n\n'),
      ),
    ).toBe(true);
    // The tool prompt still follows the client's system text.
    expect(system).toContain(WEATHER.name);
    expect(sent.messages.slice(1)).toEqual([{ role: 'user', content: 'List the files.' }]);
  });

  it("leaves out its billing line and the tools it marks defer_loading, as Anthropic's API does", async () => {
    const { url, upstream } = await startProxy([{ text: 'Done.' }]);
    const body = claudeCodeBody();
    body.system = [
      {
        type: 'text',
        text: 'x-anthropic-billing-header: cc_version=2.1.332.de2; cc_entrypoint=sdk-cli;',
      },
      ...(body.system as object[]),
    ];
    body.tools = [
      ...(body.tools as object[]),
      {
        name: 'ReservedPlaceholder',
        description: 'Reserved placeholder; never call this tool.',
        input_schema: { type: 'object', properties: {} },
        defer_loading: true,
      },
    ];
    expect((await post(url, body)).status).toBe(200);
    const system = upstream.requests[0]!.messages[0]!.content as string;
    expect(system.startsWith('You are Claude Code.\nBe brief.')).toBe(true);
    expect(system).not.toContain('billing');
    expect(system).toContain(WEATHER.name);
    expect(system).not.toContain('ReservedPlaceholder');
  });

  it('accepts a system message without a system field, and still checks its content', async () => {
    const { url, upstream } = await startProxy([{ text: 'Done.' }]);
    const body = {
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'Note.' },
      ],
    };
    expect((await post(url, body)).status).toBe(200);
    expect(upstream.requests[0]!.messages[0]).toEqual({
      role: 'system',
      content: `${LATER_INSTRUCTION}\nNote.`,
    });
    const refused = await post(url, {
      ...body,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: [{ type: 'image', source: {} }] },
      ],
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'messages[1].content[0].type',
    );
  });

  it('refuses messages that hold only system messages, naming the field', async () => {
    const { url, upstream } = await startProxy([]);
    const response = await post(url, {
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'system', content: 'Note.' }],
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'messages holds only system messages: it must hold a user or assistant message too',
    );
    expect(upstream.requests).toHaveLength(0);
  });

  it("keeps Anthropic's own fields and cache_control away from the model server", async () => {
    const { url, upstream } = await startProxy([{ text: 'Done.' }]);
    const response = await post(
      url,
      claudeCodeBody({
        output_config: { effort: 'high' },
        output_format: { type: 'json_schema', schema: { type: 'object' } },
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        thinking: { type: 'enabled', budget_tokens: 1024 },
        metadata: { user_id: 'user_abc' },
        service_tier: 'auto',
        container: 'container_1',
        mcp_servers: [{ type: 'url', url: 'https://example.com/mcp', name: 'x' }],
        betas: ['interleaved-thinking-2025-05-14'],
        cache_control: cached,
        temperature: 0.5,
        top_k: 40,
      }),
    );
    expect(response.status).toBe(200);
    const sent = upstream.requests[0]!;
    for (const field of [
      'output_config',
      'output_format',
      'context_management',
      'thinking',
      'metadata',
      'service_tier',
      'container',
      'mcp_servers',
      'betas',
      'cache_control',
    ])
      expect(sent).not.toHaveProperty(field);
    expect(JSON.stringify(sent)).not.toContain('cache_control');
    expect(JSON.stringify(sent)).not.toContain('ephemeral');
    // Sampling settings still go.
    expect(sent.temperature).toBe(0.5);
    expect(sent.top_k).toBe(40);
  });

  it('accepts ?beta=true on the path, streamed and not', async () => {
    const { url } = await startProxy([{ text: 'One.' }, { text: 'Two.' }]);
    const whole = await post(url, claudeCodeBody(), '/v1/messages?beta=true');
    expect(whole.status).toBe(200);
    expect(((await whole.json()) as { content: unknown }).content).toEqual([
      { type: 'text', text: 'One.' },
    ]);
    const streamed = await post(url, claudeCodeBody({ stream: true }), '/v1/messages?beta=true');
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('event: message_stop');
  });

  it('answers HEAD / with 200, as Claude Code probes it', async () => {
    const { url } = await startProxy([]);
    const response = await fetch(`${url}/`, { method: 'HEAD' });
    expect(response.status).toBe(200);
  });
});
