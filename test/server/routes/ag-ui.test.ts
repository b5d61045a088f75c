/**
 * What `POST /api/ag-ui` stands on: the `RunAgentInput` a client posts, checked (400 naming the
 * place), and the run as AG-UI's SSE frames for the event log, whose tail closes a stream cut
 * anywhere into one `@ag-ui/client`'s `verifyEvents` accepts (the instance_lost guarantee).
 */
import { type BaseEvent, verifyEvents } from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import { from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, type AgentTools, runAgent } from '../../../src/agent/index.ts';
import { HttpError } from '../../../src/http/http-error.ts';
import { DEFAULT_CONVERSATION_LIMITS } from '../../../src/server/conversation-input.ts';
import {
  AG_UI_INSTANCE_LOST,
  AgUiWire,
  agUiStoreFailureFrame,
  parseAgUiRequest,
} from '../../../src/server/routes/ag-ui.ts';
import { scriptedModel } from '../../agent/scripted-model.ts';

const OPTIONS = { limits: DEFAULT_CONVERSATION_LIMITS, serverTools: ['get_weather'] };
const IDS = { threadId: 'th', runId: 'r1' };

/** The events in SSE frames, each frame one `data:` line and a blank line. */
function eventsOf(frames: readonly string[]): BaseEvent[] {
  return frames.map((frame) => {
    expect(frame).toMatch(/^data: [^\n]*\n\n$/);
    return JSON.parse(frame.slice('data: '.length)) as BaseEvent;
  });
}

async function expectWellFormed(frames: readonly string[]): Promise<void> {
  const events = eventsOf(frames);
  for (const event of events) EventSchemas.parse(event);
  await expect(lastValueFrom(from(events).pipe(verifyEvents(), toArray()))).resolves.toHaveLength(
    events.length,
  );
  const terminal = events.filter((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR');
  expect(terminal).toHaveLength(1);
  expect(events.at(-1)).toBe(terminal[0]);
}

function refused(body: unknown, options = OPTIONS): HttpError {
  try {
    parseAgUiRequest(body, options);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return error as HttpError;
  }
  throw new Error('not refused');
}

describe('parseAgUiRequest', () => {
  const base = { threadId: 't', runId: 'r' };

  it('reads a new run and a resume', () => {
    const fresh = parseAgUiRequest(
      {
        ...base,
        messages: [{ id: '1', role: 'user', content: 'Weather?' }],
        tools: [{ name: 'ask_user', description: 'Ask' }],
        state: {},
        forwardedProps: {},
      },
      OPTIONS,
    );
    expect(fresh.prompt).toBe('Weather?');
    expect(Object.keys(fresh.tools)).toEqual(['ask_user']);

    const resume = parseAgUiRequest(
      {
        ...base,
        messages: [
          { id: '1', role: 'user', content: 'Weather?' },
          {
            id: '2',
            role: 'assistant',
            toolCalls: [
              { id: 'c', type: 'function', function: { name: 'ask_user', arguments: '{}' } },
            ],
          },
          { id: '3', role: 'tool', toolCallId: 'c', content: 'Oslo' },
        ],
      },
      OPTIONS,
    );
    expect(resume.prompt).toBeUndefined();
    expect(resume.toolResults).toEqual([{ toolCallId: 'c', output: 'Oslo' }]);
  });

  it('refuses with a 400 that names the place', () => {
    const bad = refused({ ...base, messages: [{ id: '1', role: 'user', content: 7 }] });
    expect(bad.message).toBe(
      'POST /api/ag-ui: messages[0].content must be a string or an array of parts',
    );
    expect(bad.param).toBe('messages[0].content');
    expect(bad.kind).toBe('request-refused');

    expect(refused({ ...base, messages: [] }).message).toMatch(
      /must end with a user message \(a new run\) or with tool messages/,
    );
    expect(
      refused({ ...base, messages: [{ id: '1', role: 'user', content: '  ' }] }).message,
    ).toMatch(/the last user message is empty/);
    const taken = refused({
      ...base,
      messages: [{ id: '1', role: 'user', content: 'hi' }],
      tools: [{ name: 'get_weather', description: 'mine' }],
    });
    expect(taken.message).toMatch(/"get_weather" takes the name of a server tool/);
    expect(taken.param).toBe('tools');
  });

  it("holds the messages to a run's conversation limits", () => {
    const limits = { maxConversationEntries: 2, maxConversationDepth: 3 };
    expect(
      refused(
        {
          ...base,
          messages: [
            { id: '1', role: 'user', content: 'a' },
            { id: '2', role: 'assistant', content: 'b' },
            { id: '3', role: 'user', content: 'c' },
          ],
        },
        { ...OPTIONS, limits },
      ).message,
    ).toMatch(/more than the 2 taken/);
    expect(
      refused(
        {
          ...base,
          messages: [
            {
              id: '1',
              role: 'assistant',
              toolCalls: [
                {
                  id: 'c',
                  type: 'function',
                  function: { name: 'x', arguments: '{"a":{"b":{"c":{}}}}' },
                },
              ],
            },
            { id: '2', role: 'user', content: 'go' },
          ],
        },
        { ...OPTIONS, limits },
      ).message,
    ).toMatch(/nests deeper than 3 levels/);
  });
});

describe('AgUiWire', () => {
  const tools: AgentTools = {
    get_weather: {
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      execute: () => 'sunny',
    },
  };

  async function runEvents(): Promise<AgentEvent[]> {
    const { model } = scriptedModel([
      '<think>plan</think>Checking.<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>',
      'Sunny in Oslo.',
    ]);
    const events: AgentEvent[] = [];
    for await (const event of runAgent({ model, protocol: 'hermes', tools, prompt: 'Oslo?' }))
      events.push(event);
    return events;
  }

  it("writes a run's frames: RUN_STARTED first, one terminal event last", async () => {
    const events = await runEvents();
    const wire = new AgUiWire(IDS);
    const frames = [...wire.start(), ...events.flatMap((event) => wire.push(event))];
    expect(wire.finish({ stopReason: 'completed' } as never)).toEqual([]);
    expect(wire.tail()).toEqual([]);
    await expectWellFormed(frames);
    expect(eventsOf(frames)[0]).toEqual({
      type: 'RUN_STARTED',
      threadId: 'th',
      runId: 'r1',
      protocolVersion: '1.0',
    });
  });

  it('its tail closes the stream cut after any event, and changes nothing', async () => {
    const events = await runEvents();
    const plain = new AgUiWire(IDS);
    const expected = [...plain.start(), ...events.flatMap((event) => plain.push(event))];

    const wire = new AgUiWire(IDS);
    const written = [...wire.start()];
    for (const event of events) {
      const tail = wire.tail();
      if (tail.length > 0) {
        await expectWellFormed([...written, ...tail]);
        expect(eventsOf(tail).at(-1)).toEqual({ type: 'RUN_ERROR', ...AG_UI_INSTANCE_LOST });
      }
      written.push(...wire.push(event));
    }
    expect(written).toEqual(expected);
  });

  it('a run whose events end without a finish ends with RUN_ERROR; so does a server failure', async () => {
    const wire = new AgUiWire(IDS);
    const frames = [
      ...wire.start(),
      ...wire.push({ type: 'step-start', step: 1 }),
      ...wire.finish({ stopReason: 'error', message: 'lost the model' } as never),
    ];
    expect(eventsOf(frames).at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'error',
      message: 'lost the model',
    });
    await expectWellFormed(frames);

    const failing = new AgUiWire(IDS);
    const failed = [
      ...failing.start(),
      ...failing.push({ type: 'text-delta', id: 't', delta: 'x' }),
      ...failing.failure('the encoder threw'),
    ];
    await expectWellFormed(failed);
    expect(eventsOf(failed).at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'server_error',
      message: 'the encoder threw',
    });
    expect(failing.failure('again')).toEqual([]);
  });

  it("the store's failure frame is a RUN_ERROR AG-UI reads", () => {
    const [event] = eventsOf([agUiStoreFailureFrame('redis went away')]);
    expect(EventSchemas.parse(event)).toEqual({
      type: 'RUN_ERROR',
      code: 'store_unavailable',
      message: 'redis went away',
    });
  });
});
