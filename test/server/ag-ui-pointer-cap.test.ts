/**
 * Review 25 F18 through the AG-UI routes: a run paused on a client tool is found again by its
 * thread's pointer after more runs than `maxRememberedRuns` started on the store since, so the
 * client's tool results continue it (they were answered 409 when the cap evicted by age alone).
 */
import { describe, expect, it } from 'vitest';
import { serverSettings } from '../../src/server/options.ts';
import { agUiRoutes } from '../../src/server/routes/ag-ui.ts';
import { MemoryRunStoreBacking } from '../../src/store/memory/memory-run-store.ts';
import { scriptedModel } from '../agent/scripted-model.ts';
import { mountRunRoutes } from './drive-app.ts';

const askUser = {
  name: 'ask_user',
  description: 'Ask the user a question',
  parameters: { type: 'object', properties: { question: { type: 'string' } } },
};

describe('AG-UI: a paused run’s thread pointer under the pointer cap', () => {
  it('tool results reach the paused run after more runs than the cap started on other threads', async () => {
    const others = ['One.', 'Two.', 'Three.'];
    const { model } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which day?"}}</tool_call>',
      ...others,
      'Monday it is.',
    ]);
    const backing = new MemoryRunStoreBacking({ limits: { maxRememberedRuns: 2 } });
    const { app } = mountRunRoutes(
      '/api/ag-ui',
      agUiRoutes,
      serverSettings({ model, protocol: 'hermes' }),
      backing.open('A'),
    );
    const post = (body: object) =>
      app.request('/api/ag-ui', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    const asked = await post({
      threadId: 'waits',
      runId: 'r-1',
      messages: [{ id: 'u', role: 'user', content: 'Which day?' }],
      tools: [askUser],
    });
    const askedText = await asked.text();
    const callId = /"toolCallId":"([^"]+)"/.exec(askedText)?.[1];
    expect(askedText).toContain('pendingToolCallIds');
    expect(callId).toBeDefined();

    for (const [index, answer] of others.entries()) {
      const other = await post({
        threadId: `other-${index}`,
        runId: `o-${index}`,
        messages: [{ id: 'u', role: 'user', content: 'Hi' }],
      });
      expect(await other.text()).toContain(answer.slice(0, 3));
    }

    const resumed = await post({
      threadId: 'waits',
      runId: 'r-2',
      tools: [askUser],
      messages: [
        { id: 'u', role: 'user', content: 'Which day?' },
        {
          id: 'a',
          role: 'assistant',
          toolCalls: [
            {
              id: callId,
              type: 'function',
              function: { name: 'ask_user', arguments: '{"question":"Which day?"}' },
            },
          ],
        },
        { id: 't', role: 'tool', toolCallId: callId, content: 'Monday' },
      ],
    });
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toContain('RUN_FINISHED');
  });
});
