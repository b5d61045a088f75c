/**
 * `ending(message)` of every run wire: what `failure(message)` would write at that point, asked
 * without changing the wire. The driver takes it before a pause's asking frames (which end the
 * AG-UI and UI message streams), for a store that then refuses the pause (review-25 F17).
 */
import { describe, expect, it } from 'vitest';
import { type AgentEvent, type AgentTools, runAgent } from '../../src/agent/index.ts';
import { AgUiWire } from '../../src/server/ag-ui-wire.ts';
import { AgentBlockAdapter } from '../../src/server/agent-blocks.ts';
import { BlocksWire } from '../../src/server/blocks-wire.ts';
import { UIMessageWire } from '../../src/server/ui-message-wire.ts';
import type { WireEncoder } from '../../src/server/wire-encoder.ts';
import { scriptedModel } from '../agent/scripted-model.ts';

/** A front-end tool (no `execute`): the run pauses on its call. */
const tools: AgentTools = {
  pick_color: {
    description: 'Asks the user for a color.',
    inputSchema: { type: 'object', properties: { hint: { type: 'string' } } },
  },
};

async function eventsUntilPause(): Promise<AgentEvent[]> {
  const { model } = scriptedModel([
    '<think>ask</think>Let me ask.<tool_call>{"name":"pick_color","arguments":{"hint":"warm"}}</tool_call>',
  ]);
  const events: AgentEvent[] = [];
  for await (const event of runAgent({ model, protocol: 'hermes', tools, prompt: 'Color?' }))
    events.push(event);
  return events;
}

const WIRES: [string, () => WireEncoder][] = [
  [
    'blocks',
    () =>
      new BlocksWire({
        adapter: new AgentBlockAdapter(),
        meta: { format: 'xml', user_query: 'Color?', agent_uuid: 'r1', model: 'm' },
      }),
  ],
  ['AG-UI', () => new AgUiWire({ threadId: 'th', runId: 'r1' })],
  ['UI message stream', () => new UIMessageWire({ messageId: 'r1' })],
];

describe.each(WIRES)('%s wire', (_name, makeWire) => {
  it('ends as failure() would at that point, changing nothing, before and after the asking frames', async () => {
    const events = await eventsUntilPause();
    const pause = events.findIndex((event) => event.type === 'awaiting-tools');
    expect(pause).toBeGreaterThan(0);
    const before = events.slice(0, pause);

    const asked = makeWire();
    const reference = makeWire();
    for (const wire of [asked, reference]) {
      wire.start();
      for (const event of before) wire.push(event);
    }
    const ending = asked.ending('too large to wait');
    expect(asked.ending('too large to wait')).toEqual(ending);
    expect(ending.length).toBeGreaterThan(0);
    // Unchanged: the asking frames are what a wire never asked gives.
    expect(asked.push(events[pause]!)).toEqual(reference.push(events[pause]!));
    expect(ending).toEqual(makeFailureAt(makeWire, before, 'too large to wait'));
  });
});

/** What `failure(message)` writes on a fresh wire after `before`. */
function makeFailureAt(
  makeWire: () => WireEncoder,
  before: readonly AgentEvent[],
  message: string,
): string[] {
  const wire = makeWire();
  wire.start();
  for (const event of before) wire.push(event);
  return wire.failure(message);
}
