import { describe, expect, it } from 'vitest';
import { type AgentEvent, type AgentTools, runAgent } from '../../src/agent/index.ts';
import type { ToolCallProtocol } from '../../src/core/index.ts';
import { FORMATS, formatEntry, protocolByName } from '../../src/protocols/index.ts';
import { specOf } from '../../src/protocols/spec/define.ts';
import { scriptedModel } from './scripted-model.ts';

const ran: string[] = [];
const weather: AgentTools = {
  get_weather: {
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
    execute: async ({ city }: { city: string }) => {
      ran.push(city);
      return `${city}: sunny`;
    },
  },
};

/**
 * Runs a turn with two calls, then a turn that ends the run as the conventions say, and returns
 * the cities the tools ran for and how the run ended.
 */
async function twoCallsThenDone(
  protocol: ToolCallProtocol | string,
  completion: 'tool' | 'no-call',
) {
  const format = typeof protocol === 'string' ? protocolByName(protocol) : protocol;
  const done =
    completion === 'tool'
      ? format.formatToolCall({ toolName: 'attempt_completion', input: { result: 'Done.' } })
      : 'Done.';
  ran.length = 0;
  // Both calls as the format writes several in one turn.
  const calls = format.formatToolCall([
    { toolName: 'get_weather', input: { city: 'Oslo' } },
    { toolName: 'get_weather', input: { city: 'Rome' } },
  ]);
  // A model whose template opens reasoning (Kimi K3, Apriel) closes it before each answer.
  const spec = specOf(format);
  const close = spec?.startInReasoning ? spec.reasoning?.[0]?.close : undefined;
  const lead = close ? `Thinking.${close}` : '';
  const { model } = scriptedModel([lead + calls, lead + done]);
  const run = runAgent({ model, protocol: protocol as 'xml', tools: weather, prompt: 'Weather?' });
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  return { cities: [...ran], result };
}

describe('runAgent: the conventions come from the format registry', () => {
  it.each(FORMATS.map((entry) => [entry.name, entry] as const))(
    '%s: its actions per turn and its completion',
    async (_name, entry) => {
      const { cities, result } = await twoCallsThenDone(entry.name, entry.agent.completion);
      expect(cities).toEqual(entry.agent.actionsPerTurn === 'one' ? ['Oslo'] : ['Oslo', 'Rome']);
      expect(result.stopReason).toBe('completed');
      expect(result.answer).toBe('Done.');
    },
  );

  it('an alias gets the conventions of its format', async () => {
    const entry = FORMATS.find((format) => format.aliases.length > 0)!;
    const { cities, result } = await twoCallsThenDone(entry.aliases[0]!, entry.agent.completion);
    expect(cities).toEqual(entry.agent.actionsPerTurn === 'one' ? ['Oslo'] : ['Oslo', 'Rome']);
    expect(result.answer).toBe('Done.');
  });

  it('a protocol the registry does not know runs its calls together and ends on a turn without one', async () => {
    const own: ToolCallProtocol = { ...protocolByName('xml'), name: 'my-own-xml' };
    expect(formatEntry(own.name)).toBeUndefined();
    const { cities, result } = await twoCallsThenDone(own, 'no-call');
    expect(cities).toEqual(['Oslo', 'Rome']);
    expect(result).toMatchObject({ stopReason: 'completed', answer: 'Done.' });
  });

  it('auto is no format of its own: calls run together', async () => {
    const { cities, result } = await twoCallsThenDone('auto', 'no-call');
    expect(cities).toEqual(['Oslo', 'Rome']);
    expect(result.answer).toBe('Done.');
  });

  it('options still override the conventions', async () => {
    const entry = formatEntry('xml')!;
    expect(entry.agent).toEqual({ actionsPerTurn: 'one', completion: 'tool' });
    ran.length = 0;
    const xml = protocolByName('xml');
    const call = (city: string) => xml.formatToolCall({ toolName: 'get_weather', input: { city } });
    const { model } = scriptedModel([`${call('Oslo')}${call('Rome')}`, 'Done.']);
    const result = await runAgent({
      model,
      protocol: 'xml',
      tools: weather,
      prompt: 'Weather?',
      actionsPerTurn: 'all',
      completion: 'no-call',
    }).result;
    expect(ran).toEqual(['Oslo', 'Rome']);
    expect(result.answer).toBe('Done.');
  });
});
