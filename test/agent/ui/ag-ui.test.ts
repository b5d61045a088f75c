/**
 * The run as AG-UI events, checked against AG-UI's own packages: every event parses with
 * `@ag-ui/core`'s zod schemas (no key they do not declare), every stream passes
 * `@ag-ui/client`'s `verifyEvents` (the order the protocol demands), and a front-end tool
 * goes round through the client's own run pipeline (an `AbstractAgent` over toolwire's agent).
 */
import {
  AbstractAgent,
  type BaseEvent,
  HttpAgent,
  type RunAgentInput,
  verifyEvents,
} from '@ag-ui/client';
import { EventSchemas } from '@ag-ui/core/schemas';
import fc from 'fast-check';
// rxjs comes with @ag-ui/client, whose Observable-based API it is.
import { from, lastValueFrom, type Observable, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  type AgentTools,
  type RunState,
  resumeAgent,
  runAgent,
} from '../../../src/agent/index.ts';
import {
  AgUiEncoder,
  type AgUiEvent,
  AgUiInputError,
  agUiInputToRun,
  frameAgUiEvent,
  pendingToolResults,
  toAgUiEvents,
} from '../../../src/agent/ui/ag-ui.ts';
import { UNANSWERED_CALL } from '../../../src/agent/ui/ui-message-stream.ts';
import { ToolwireError } from '../../../src/core/errors.ts';
import { ModelCallError } from '../../../src/core/model-call-error.ts';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import { scriptedModel } from '../scripted-model.ts';

const IDS = { threadId: 'thread-1', runId: 'run-1' } as const;
const usage = { inputTokens: 10, outputTokens: 5 };

/** The schema option for each event type, made strict: a key AG-UI does not declare fails. */
const STRICT = new Map<string, { parse(value: unknown): unknown }>();
for (const option of (
  EventSchemas as unknown as {
    options: { shape: { type: { value: string } }; strict(): { parse(v: unknown): unknown } }[];
  }
).options)
  STRICT.set(option.shape.type.value, option.strict());

function expectSchemaValid(events: readonly AgUiEvent[]): void {
  for (const event of events) {
    expect(() => EventSchemas.parse(event), JSON.stringify(event)).not.toThrow();
    const strict = STRICT.get(event.type);
    expect(strict, event.type).toBeDefined();
    expect(() => strict!.parse(event), JSON.stringify(event)).not.toThrow();
  }
}

/** AG-UI's own check of the order of events; rejects with its message when one is out of place. */
function verified(events: readonly AgUiEvent[]): Promise<BaseEvent[]> {
  return lastValueFrom(from(events as unknown as BaseEvent[]).pipe(verifyEvents(), toArray()));
}

async function expectWellFormed(events: readonly AgUiEvent[]): Promise<void> {
  expectSchemaValid(events);
  await expect(verified(events)).resolves.toHaveLength(events.length);
  expect(events[0]?.type).toBe('RUN_STARTED');
  const terminal = events.filter((e) => e.type === 'RUN_FINISHED' || e.type === 'RUN_ERROR');
  expect(terminal).toHaveLength(1);
  expect(events.at(-1)).toBe(terminal[0]);
  // A result answers a call shown before it, once: a second would be a second tool message.
  const shown = new Set<string>();
  const answered = new Set<string>();
  for (const event of events) {
    if (event.type === 'TOOL_CALL_START') shown.add(event.toolCallId);
    if (event.type !== 'TOOL_CALL_RESULT') continue;
    expect(shown.has(event.toolCallId), `result before its call ${event.toolCallId}`).toBe(true);
    expect(answered.has(event.toolCallId), `second result for ${event.toolCallId}`).toBe(false);
    answered.add(event.toolCallId);
  }
}

async function collect(events: Iterable<AgentEvent> | AsyncIterable<AgentEvent>) {
  const out: AgUiEvent[] = [];
  for await (const event of toAgUiEvents(events, IDS)) out.push(event);
  return out;
}

const finish = (
  stopReason: Extract<AgentEvent, { type: 'finish' }>['stopReason'],
  extra: Partial<Extract<AgentEvent, { type: 'finish' }>> = {},
): AgentEvent => ({ type: 'finish', stopReason, steps: 1, usage, ...extra });

const stepFinish = (step = 1): AgentEvent => ({
  type: 'step-finish',
  step,
  usage,
  finishReason: 'stop',
  cut: false,
});

/** A call the model streams whole: its input's start, these deltas, its end, then the call. */
const streamedCall = (
  id: string,
  toolName: string,
  deltas: readonly string[],
  input: unknown,
): AgentEvent[] => [
  { type: 'tool-input-start', id, toolName },
  ...deltas.map((delta): AgentEvent => ({ type: 'tool-input-delta', id, delta })),
  { type: 'tool-input-end', id },
  { type: 'tool-call', toolCallId: id, toolName, input },
];

describe('toAgUiEvents: the mapping', () => {
  it('a run that answers in text: RUN_STARTED, a step, a message, RUN_FINISHED with usage', async () => {
    const events = await collect([
      { type: 'run-start', runId: 'agent-run', protocol: 'hermes' },
      { type: 'step-start', step: 1 },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Hel' },
      { type: 'text-delta', id: 't1', delta: '' },
      { type: 'text-delta', id: 't1', delta: 'lo' },
      { type: 'text-end', id: 't1' },
      stepFinish(),
      finish('completed', { answer: 'Hello' }),
    ]);
    expect(events).toEqual([
      { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1', protocolVersion: '1.0' },
      { type: 'STEP_STARTED', stepName: 'step-1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'run-1:text:1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:1', delta: 'Hel' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:1', delta: 'lo' },
      { type: 'TEXT_MESSAGE_END', messageId: 'run-1:text:1' },
      { type: 'STEP_FINISHED', stepName: 'step-1' },
      {
        type: 'RUN_FINISHED',
        threadId: 'thread-1',
        runId: 'run-1',
        result: 'Hello',
        usage: [{ inputTokens: 10, outputTokens: 5, totalTokens: 15 }],
      },
    ]);
    await expectWellFormed(events);
  });

  it('white space alone opens no message; it leads the text that follows', async () => {
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'text-delta', id: 'a', delta: '\n' },
      { type: 'text-end', id: 'a' },
      { type: 'text-delta', id: 'b', delta: ' ' },
      { type: 'text-delta', id: 'b', delta: 'x' },
      { type: 'text-end', id: 'b' },
      stepFinish(),
      finish('completed'),
    ]);
    const contents = events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT');
    expect(contents).toEqual([
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:1', delta: ' x' },
    ]);
    await expectWellFormed(events);
  });

  it('reasoning: a span holding one message, opened by its first character', async () => {
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-end', id: 'r' },
      stepFinish(),
      finish('completed'),
    ]);
    expect(events.slice(2, 7)).toEqual([
      { type: 'REASONING_START', messageId: 'run-1:reasoning:1' },
      { type: 'REASONING_MESSAGE_START', messageId: 'run-1:reasoning:1', role: 'reasoning' },
      { type: 'REASONING_MESSAGE_CONTENT', messageId: 'run-1:reasoning:1', delta: 'hmm' },
      { type: 'REASONING_MESSAGE_END', messageId: 'run-1:reasoning:1' },
      { type: 'REASONING_END', messageId: 'run-1:reasoning:1' },
    ]);
    expect(events[7]).toEqual({ type: 'STEP_FINISHED', stepName: 'step-1' });
    await expectWellFormed(events);
  });

  it('a streamed call under the text that precedes it, then its result', async () => {
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'text-delta', id: 't', delta: 'Looking.' },
      { type: 'text-end', id: 't' },
      ...streamedCall('c1', 'get_weather', ['{"city":', '"Oslo"}'], { city: 'Oslo' }),
      stepFinish(),
      { type: 'tool-result', toolCallId: 'c1', toolName: 'get_weather', output: { temp: 3 } },
      finish('max-steps', { message: 'stopped after 1 steps' }),
    ]);
    expect(events.slice(5)).toEqual([
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'c1',
        toolCallName: 'get_weather',
        parentMessageId: 'run-1:text:1',
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"city":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"Oslo"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'STEP_FINISHED', stepName: 'step-1' },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'run-1:result:2',
        toolCallId: 'c1',
        content: '{"temp":3}',
        role: 'tool',
      },
      {
        type: 'RUN_FINISHED',
        threadId: 'thread-1',
        runId: 'run-1',
        usage: [{ inputTokens: 10, outputTokens: 5, totalTokens: 15 }],
        metadata: { toolwire: { stopReason: 'max-steps', message: 'stopped after 1 steps' } },
      },
    ]);
    await expectWellFormed(events);
  });

  it('a call not streamed is shown whole; calls of a step without text share one made-up message', async () => {
    const events = await collect([
      { type: 'step-start', step: 2 },
      { type: 'tool-call', toolCallId: 'a', toolName: 'x', input: { n: 1 } },
      { type: 'tool-call', toolCallId: 'b', toolName: 'y', input: undefined },
      stepFinish(2),
      {
        type: 'tool-error',
        toolCallId: 'b',
        toolName: 'y',
        kind: 'timeout',
        error: 'y took too long',
      },
      finish('completed'),
    ]);
    expect(events.slice(2, 8)).toEqual([
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'a',
        toolCallName: 'x',
        parentMessageId: 'run-1:message:1',
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'a', delta: '{"n":1}' },
      { type: 'TOOL_CALL_END', toolCallId: 'a' },
      {
        type: 'TOOL_CALL_START',
        toolCallId: 'b',
        toolCallName: 'y',
        parentMessageId: 'run-1:message:1',
      },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'b', delta: '{}' },
      { type: 'TOOL_CALL_END', toolCallId: 'b' },
    ]);
    expect(events.find((e) => e.type === 'TOOL_CALL_RESULT')).toEqual({
      type: 'TOOL_CALL_RESULT',
      messageId: 'run-1:result:2',
      toolCallId: 'b',
      content: 'y took too long',
      role: 'tool',
      metadata: { toolwire: { isError: true, kind: 'timeout' } },
    });
    expect(events[1]).toEqual({ type: 'STEP_STARTED', stepName: 'step-2' });
    await expectWellFormed(events);
  });

  it("the completion tool's result is the answer's text message, not a call", async () => {
    const events = await collect([
      { type: 'step-start', step: 1 },
      ...streamedCall('done', 'attempt_completion', ['{"result":"Sunny"}'], { result: 'Sunny' }),
      stepFinish(),
      finish('completed', { answer: 'Sunny' }),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
    expect(events[3]).toMatchObject({ delta: 'Sunny' });
    await expectWellFormed(events);
  });

  it("the completion tool's answer streams as it is written; what did not stream follows", async () => {
    const streamed = await collect([
      { type: 'step-start', step: 1 },
      ...streamedCall('done', 'attempt_completion', ['{"res', 'ult":"Sun', 'ny', '"}'], {
        result: 'Sunny',
      }),
      stepFinish(),
      finish('completed', { answer: 'Sunny' }),
    ]);
    expect(streamed.slice(2, 6)).toEqual([
      { type: 'TEXT_MESSAGE_START', messageId: 'run-1:text:1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:1', delta: 'Sun' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:1', delta: 'ny' },
      { type: 'TEXT_MESSAGE_END', messageId: 'run-1:text:1' },
    ]);
    expect(streamed[6]).toEqual({ type: 'STEP_FINISHED', stepName: 'step-1' });
    await expectWellFormed(streamed);

    // The call completes before its input ends, with more than streamed: the rest follows in
    // the same message; an answer that is not what streamed comes whole, in a message of its own.
    const rest = await collect([
      { type: 'step-start', step: 1 },
      { type: 'tool-input-start', id: 'a', toolName: 'attempt_completion' },
      { type: 'tool-input-delta', id: 'a', delta: '{"result":"Sun' },
      {
        type: 'tool-call',
        toolCallId: 'a',
        toolName: 'attempt_completion',
        input: { result: 'Sunny' },
      },
      ...streamedCall('b', 'attempt_completion', ['{"result":"Rai'], { result: 7 }),
      stepFinish(),
      finish('completed'),
    ]);
    const texts = rest.filter((e) => e.type.startsWith('TEXT_MESSAGE'));
    expect(texts).toEqual([
      { type: 'TEXT_MESSAGE_START', messageId: 'run-1:text:1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:1', delta: 'Sun' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:1', delta: 'ny' },
      { type: 'TEXT_MESSAGE_END', messageId: 'run-1:text:1' },
      { type: 'TEXT_MESSAGE_START', messageId: 'run-1:text:2', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:2', delta: 'Rai' },
      { type: 'TEXT_MESSAGE_END', messageId: 'run-1:text:2' },
      { type: 'TEXT_MESSAGE_START', messageId: 'run-1:text:3', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:3', delta: '7' },
      { type: 'TEXT_MESSAGE_END', messageId: 'run-1:text:3' },
    ]);
    await expectWellFormed(rest);
  });

  it('an invalid completion call is a call, so its error has a call to answer', async () => {
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'tool-input-start', id: 'done', toolName: 'attempt_completion' },
      { type: 'tool-input-end', id: 'done' },
      {
        type: 'tool-call',
        toolCallId: 'done',
        toolName: 'attempt_completion',
        input: {},
        problems: [{ path: '', message: 'result is required' } as never],
      },
      stepFinish(),
      {
        type: 'tool-error',
        toolCallId: 'done',
        toolName: 'attempt_completion',
        kind: 'invalid-input',
        error: 'result is required',
      },
      finish('max-failures', { message: 'stopped after 3 turns' }),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'STEP_FINISHED',
      'TOOL_CALL_RESULT',
      'RUN_ERROR',
    ]);
    expect(events.at(-1)).toEqual({
      type: 'RUN_ERROR',
      message: 'stopped after 3 turns',
      code: 'max-failures',
      usage: [{ inputTokens: 10, outputTokens: 5, totalTokens: 15 }],
    });
    await expectWellFormed(events);
  });

  it('malformed markup: a shown call gets it as its result; otherwise a CUSTOM event', async () => {
    const fault = { code: 'malformed-call', message: 'bad JSON', raw: '{"a":', offset: 0 } as const;
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'tool-input-start', id: 'c', toolName: 'x' },
      { type: 'tool-input-delta', id: 'c', delta: '{"a":' },
      { type: 'protocol-error', fault: { ...fault, toolName: 'x', toolCallId: 'c' } as never },
      { type: 'protocol-error', fault: fault as never },
      stepFinish(),
      finish('completed'),
    ]);
    expect(events.slice(4, 7)).toEqual([
      { type: 'TOOL_CALL_END', toolCallId: 'c' },
      {
        type: 'TOOL_CALL_RESULT',
        messageId: 'run-1:result:2',
        toolCallId: 'c',
        content: 'bad JSON\n\n{"a":',
        role: 'tool',
        metadata: { toolwire: { isError: true, kind: 'protocol-error' } },
      },
      {
        type: 'CUSTOM',
        name: 'toolwire.protocol-error',
        value: { code: 'malformed-call', message: 'bad JSON', raw: '{"a":' },
      },
    ]);
    await expectWellFormed(events);
  });

  it('awaiting-tools ends the run with its pending calls; the finish after it adds nothing', async () => {
    const state = { usage: { inputTokens: 7, outputTokens: undefined } } as unknown as RunState;
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'tool-call', toolCallId: 'ask', toolName: 'ask_user', input: { q: '?' } },
      stepFinish(),
      {
        type: 'awaiting-tools',
        calls: [{ toolCallId: 'ask', toolName: 'ask_user', input: { q: '?' } }],
        state,
      },
      finish('awaiting-tools'),
    ]);
    expect(events.at(-1)).toEqual({
      type: 'RUN_FINISHED',
      threadId: 'thread-1',
      runId: 'run-1',
      outcome: { type: 'success', pendingToolCallIds: ['ask'] },
      usage: [{ inputTokens: 7 }],
    });
    await expectWellFormed(events);
  });

  it('an aborted run is cancelled; what it left open is closed first', async () => {
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'text-delta', id: 't', delta: 'half' },
      { type: 'tool-input-start', id: 'c', toolName: 'x' },
      finish('aborted', { usage: { inputTokens: undefined, outputTokens: undefined } }),
    ]);
    expect(events.at(-1)).toEqual({
      type: 'RUN_FINISHED',
      threadId: 'thread-1',
      runId: 'run-1',
      outcome: { type: 'cancelled' },
    });
    expect(events.map((e) => e.type).slice(-5)).toEqual([
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_END',
      'STEP_FINISHED',
      'RUN_FINISHED',
    ]);
    await expectWellFormed(events);
  });

  it("a failed run: one RUN_ERROR with the error's kind, after the finish's usage", async () => {
    const error = new ModelCallError('model-unreachable', { baseURL: 'http://x' });
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'text-delta', id: 't', delta: 'par' },
      { type: 'error', error },
      finish('error', { message: error.message }),
    ]);
    expect(events.slice(-3)).toEqual([
      { type: 'TEXT_MESSAGE_END', messageId: 'run-1:text:1' },
      { type: 'STEP_FINISHED', stepName: 'step-1' },
      {
        type: 'RUN_ERROR',
        message: error.message,
        code: 'model-unreachable',
        usage: [{ inputTokens: 10, outputTokens: 5, totalTokens: 15 }],
      },
    ]);
    await expectWellFormed(events);
  });

  it('timeout, output-limit and max-failures are RUN_ERRORs coded by the stop reason', async () => {
    for (const reason of ['timeout', 'output-limit', 'max-failures'] as const) {
      const events = await collect([finish(reason, { message: `why: ${reason}` })]);
      expect(events.at(-1)).toMatchObject({
        type: 'RUN_ERROR',
        code: reason,
        message: `why: ${reason}`,
      });
      await expectWellFormed(events);
    }
  });

  it('events that stop early, or throw, still end the stream with one RUN_ERROR', async () => {
    const early = await collect([
      { type: 'step-start', step: 1 },
      { type: 'text-delta', id: 't', delta: 'cut' },
    ]);
    expect(early.at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'incomplete',
      message: "the run's events ended before the run did",
    });
    await expectWellFormed(early);

    async function* throwing(): AsyncGenerator<AgentEvent> {
      yield { type: 'step-start', step: 1 };
      throw new ToolwireError('store-unavailable', 'the store went away');
    }
    const thrown = await collect(throwing());
    expect(thrown.at(-1)).toEqual({
      type: 'RUN_ERROR',
      code: 'store-unavailable',
      message: 'the store went away',
    });
    await expectWellFormed(thrown);

    const nothing = await collect([]);
    expect(nothing.map((e) => e.type)).toEqual(['RUN_STARTED', 'RUN_ERROR']);
    await expectWellFormed(nothing);
  });

  it('a call gets one result, however many the events report', async () => {
    const events = await collect([
      { type: 'step-start', step: 1 },
      { type: 'tool-call', toolCallId: 'c', toolName: 'x', input: {} },
      { type: 'tool-result', toolCallId: 'c', toolName: 'x', output: 'one' },
      { type: 'tool-error', toolCallId: 'c', toolName: 'x', kind: 'execution', error: 'two' },
      finish('completed'),
    ]);
    expect(events.filter((e) => e.type === 'TOOL_CALL_RESULT')).toMatchObject([{ content: 'one' }]);
    await expectWellFormed(events);
  });

  it("results of calls the stream did not show are left out (a resumed run's front-end answers)", async () => {
    const events = await collect([
      { type: 'run-start', runId: 'r', protocol: 'hermes' },
      { type: 'tool-result', toolCallId: 'ask', toolName: 'ask_user', output: 'Oslo' },
      { type: 'step-start', step: 2 },
      stepFinish(2),
      finish('completed'),
    ]);
    expect(events.some((e) => e.type === 'TOOL_CALL_RESULT')).toBe(false);
    await expectWellFormed(events);
  });

  it('tail says what closes the stream as it stands, without closing it', () => {
    const encoder = new AgUiEncoder({ ...IDS, model: 'm' });
    expect(encoder.begin()).toEqual([
      { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1', protocolVersion: '1.0' },
    ]);
    expect(encoder.begin()).toEqual([]);
    encoder.push({ type: 'step-start', step: 1 });
    encoder.push({ type: 'text-delta', id: 't', delta: 'a' });
    const lost = { code: 'instance_lost', message: 'the instance running the run stopped' };
    const tail = encoder.tail(lost);
    expect(tail).toEqual([
      { type: 'TEXT_MESSAGE_END', messageId: 'run-1:text:1' },
      { type: 'STEP_FINISHED', stepName: 'step-1' },
      { type: 'RUN_ERROR', ...lost },
    ]);
    // Nothing changed: the run goes on, and the tail is the same.
    expect(encoder.tail(lost)).toEqual(tail);
    expect(encoder.push({ type: 'text-delta', id: 't', delta: 'b' })).toEqual([
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'run-1:text:1', delta: 'b' },
    ]);
    expect(encoder.push(finish('completed')).at(-1)).toEqual({
      type: 'RUN_FINISHED',
      threadId: 'thread-1',
      runId: 'run-1',
      usage: [{ model: 'm', inputTokens: 10, outputTokens: 5, totalTokens: 15 }],
    });
    expect(encoder.done).toBe(true);
    expect(encoder.tail(lost)).toEqual([]);
    expect(encoder.end()).toEqual([]);
    expect(encoder.push({ type: 'step-start', step: 9 })).toEqual([]);
  });
});

// ── property: any agent event sequence gives a valid AG-UI stream ─────────────────────────────

const idArb = fc.constantFrom('a', 'b', 'c', 'attempt');
const textArb = fc.oneof(fc.constantFrom('', ' ', '\n', 'x'), fc.string({ maxLength: 6 }));
const toolNameArb = fc.constantFrom('get_weather', 'ask_user', 'attempt_completion');
const usageArb = fc.record({
  inputTokens: fc.option(fc.nat(1000), { nil: undefined }),
  outputTokens: fc.option(fc.nat(1000), { nil: undefined }),
});
const faultArb = fc.record({
  code: fc.constant('malformed-call'),
  message: textArb,
  raw: textArb,
  offset: fc.nat(),
  toolCallId: fc.option(idArb, { nil: undefined }),
  dropped: fc.option(fc.boolean(), { nil: undefined }),
});
const stopArb = fc.constantFrom(
  'completed',
  'max-steps',
  'max-failures',
  'timeout',
  'aborted',
  'output-limit',
  'awaiting-tools',
  'error',
) as fc.Arbitrary<Extract<AgentEvent, { type: 'finish' }>['stopReason']>;

/** Any agent event but those that end a run. */
const nonTerminalEventArb = fc.oneof(
  fc.record({
    type: fc.constant('run-start'),
    runId: fc.constant('r'),
    protocol: fc.constant('xml'),
  }),
  fc.record({ type: fc.constant('step-start'), step: fc.integer({ min: 1, max: 3 }) }),
  fc.record({
    type: fc.constant('step-finish'),
    step: fc.integer({ min: 1, max: 3 }),
    usage: usageArb,
    finishReason: fc.constant('stop'),
    cut: fc.boolean(),
  }),
  fc.record({
    type: fc.constantFrom('text-start', 'text-end', 'reasoning-start', 'reasoning-end'),
    id: idArb,
  }),
  fc.record({
    type: fc.constantFrom('text-delta', 'reasoning-delta', 'tool-input-delta'),
    id: idArb,
    delta: textArb,
  }),
  fc.record({ type: fc.constant('tool-input-start'), id: idArb, toolName: toolNameArb }),
  fc.record({ type: fc.constant('tool-input-end'), id: idArb }),
  fc.record({
    type: fc.constant('tool-call'),
    toolCallId: idArb,
    toolName: toolNameArb,
    input: fc.oneof(fc.constant(undefined), fc.record({ result: textArb }), fc.jsonValue()),
    problems: fc.option(fc.constant([{ path: '', message: 'bad' }]), { nil: undefined }),
  }),
  fc.record({
    type: fc.constant('tool-result'),
    toolCallId: idArb,
    toolName: toolNameArb,
    output: fc.jsonValue(),
  }),
  fc.record({
    type: fc.constant('tool-error'),
    toolCallId: idArb,
    toolName: toolNameArb,
    kind: fc.constantFrom('invalid-input', 'execution', 'timeout', 'aborted'),
    error: textArb,
  }),
  fc.record({ type: fc.constant('protocol-error'), fault: faultArb }),
) as fc.Arbitrary<AgentEvent>;

/** The events that end a run: rarer, so a sequence has room before one. */
const terminalEventArb = fc.oneof(
  fc.record({
    type: fc.constant('awaiting-tools'),
    calls: fc.array(
      fc.record({ toolCallId: idArb, toolName: toolNameArb, input: fc.constant({}) }),
      {
        maxLength: 2,
      },
    ),
    state: fc.record({ usage: usageArb }),
  }),
  fc.record({
    type: fc.constant('error'),
    error: fc.constant(new ToolwireError('model-timeout', 'too slow')),
  }),
  fc.record({
    type: fc.constant('finish'),
    stopReason: stopArb,
    steps: fc.nat(5),
    usage: usageArb,
    answer: fc.option(textArb, { nil: undefined }),
    message: fc.option(textArb, { nil: undefined }),
  }),
) as fc.Arbitrary<AgentEvent>;

/** Any agent event, whatever its place: the encoder must make a valid stream of any order. */
const anyEventArb: fc.Arbitrary<AgentEvent> = fc.oneof(
  { arbitrary: nonTerminalEventArb, weight: 12 },
  { arbitrary: terminalEventArb, weight: 1 },
) as fc.Arbitrary<AgentEvent>;

/** Sequences the agent loop itself makes: steps of text, reasoning and calls, then an end. */
const stepArb = (step: number): fc.Arbitrary<AgentEvent[]> =>
  fc
    .array(
      fc.oneof(
        fc
          .array(textArb, { maxLength: 4 })
          .map((deltas): AgentEvent[] => [
            { type: 'text-start', id: `t${step}` },
            ...deltas.map((delta): AgentEvent => ({ type: 'text-delta', id: `t${step}`, delta })),
            { type: 'text-end', id: `t${step}` },
          ]),
        fc
          .array(textArb, { maxLength: 3 })
          .map((deltas): AgentEvent[] => [
            { type: 'reasoning-start', id: 'r' },
            ...deltas.map((delta): AgentEvent => ({ type: 'reasoning-delta', id: 'r', delta })),
            { type: 'reasoning-end', id: 'r' },
          ]),
        fc
          .tuple(fc.uuid(), toolNameArb, fc.boolean(), fc.boolean())
          .map(([id, toolName, streamed, malformed]): AgentEvent[] => {
            const input = toolName === 'attempt_completion' ? { result: 'done' } : { city: 'Oslo' };
            const json = JSON.stringify(input);
            const shown: AgentEvent[] = streamed
              ? [
                  { type: 'tool-input-start', id, toolName },
                  { type: 'tool-input-delta', id, delta: json.slice(0, 4) },
                  ...(malformed
                    ? []
                    : [{ type: 'tool-input-delta', id, delta: json.slice(4) } as AgentEvent]),
                ]
              : [];
            if (malformed)
              return [
                ...shown,
                {
                  type: 'protocol-error',
                  fault: {
                    code: 'incomplete-call',
                    message: 'cut',
                    raw: json.slice(0, 4),
                    offset: 0,
                    toolName,
                    ...(streamed ? { toolCallId: id } : {}),
                  },
                } as AgentEvent,
              ];
            return [
              ...shown,
              ...(streamed ? [{ type: 'tool-input-end', id } as AgentEvent] : []),
              { type: 'tool-call', toolCallId: id, toolName, input },
              ...(toolName === 'get_weather'
                ? [{ type: 'tool-result', toolCallId: id, toolName, output: 'sunny' } as AgentEvent]
                : []),
            ];
          }),
      ),
      { maxLength: 4 },
    )
    .map((parts): AgentEvent[] => [
      { type: 'step-start', step },
      ...parts.flat(),
      { type: 'step-finish', step, usage, finishReason: 'stop', cut: false },
    ]);

const endArb: fc.Arbitrary<AgentEvent[]> = fc.oneof(
  stopArb.map((stopReason): AgentEvent[] => [finish(stopReason, { answer: 'ok', message: 'why' })]),
  fc.constant<AgentEvent[]>([
    { type: 'awaiting-tools', calls: [], state: { usage } as unknown as RunState },
    finish('awaiting-tools'),
  ]),
  fc.constant<AgentEvent[]>([
    { type: 'error', error: new ToolwireError('model-timeout', 'too slow') },
    finish('error', { message: 'too slow' }),
  ]),
  fc.constant<AgentEvent[]>([]),
);

const runArb: fc.Arbitrary<AgentEvent[]> = fc
  .tuple(fc.array(fc.nat(), { maxLength: 3 }), endArb, fc.nat())
  .chain(([steps, end, cut]) =>
    fc.tuple(...steps.map((_, index) => stepArb(index + 1))).map((bodies): AgentEvent[] => {
      const events: AgentEvent[] = [
        { type: 'run-start', runId: 'r', protocol: 'xml' },
        ...bodies.flat(),
        ...end,
      ];
      // Sometimes the events stop anywhere (a run whose reader went away).
      return end.length === 0 ? events.slice(0, cut % (events.length + 1)) : events;
    }),
  );

describe('toAgUiEvents: properties', () => {
  it('any sequence the agent makes gives a schema-valid stream AG-UI verifies', async () => {
    await fc.assert(
      fc.asyncProperty(runArb, async (agentEvents) => {
        const events = await collect(agentEvents);
        await expectWellFormed(events);
        // Every call it shows is closed; every result answers a call it showed.
        const started = new Set(
          events.flatMap((e) => (e.type === 'TOOL_CALL_START' ? [e.toolCallId] : [])),
        );
        for (const event of events)
          if (event.type === 'TOOL_CALL_RESULT') expect(started.has(event.toolCallId)).toBe(true);
        // The completion tool is never shown as a call unless its input was invalid.
        expect(
          events.some(
            (e) => e.type === 'TOOL_CALL_START' && e.toolCallName === 'attempt_completion',
          ),
        ).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('any order of any events still gives a schema-valid stream AG-UI verifies', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyEventArb, { maxLength: 30 }), async (agentEvents) => {
        await expectWellFormed(await collect(agentEvents));
      }),
      { numRuns: 300 },
    );
  });

  it("the tail closes the stream cut after any event, whatever came before (a lost instance's end)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyEventArb, { maxLength: 15 }), async (agentEvents) => {
        const encoder = new AgUiEncoder(IDS);
        const written: AgUiEvent[] = [];
        const lost = { code: 'instance_lost', message: 'lost' };
        for (const event of [undefined, ...agentEvents]) {
          if (event !== undefined) written.push(...encoder.push(event));
          if (encoder.done) break;
          await expectWellFormed([...written, ...encoder.tail(lost)]);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('the text it sends is the text the agent wrote, white space that opens no message aside', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(textArb, { maxLength: 8 }), async (deltas) => {
        const events = await collect([
          { type: 'step-start', step: 1 },
          ...deltas.map((delta): AgentEvent => ({ type: 'text-delta', id: 't', delta })),
          { type: 'text-end', id: 't' },
          stepFinish(),
          finish('completed'),
        ]);
        const sent = events.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? [e.delta] : []));
        const written = deltas.join('');
        expect(sent.join('')).toBe(written.trim().length === 0 ? '' : written);
        expect(sent.every((delta) => delta.length > 0)).toBe(true);
      }),
    );
  });
});

// ── RunAgentInput → a run ────────────────────────────────────────────────────────────────────

describe('agUiInputToRun', () => {
  const weatherCall = {
    id: 'c1',
    type: 'function',
    function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
  } as const;

  it('a new run: the last user message is the prompt, the rest the conversation', () => {
    const run = agUiInputToRun({
      threadId: 't',
      runId: 'r2',
      messages: [
        { id: 's', role: 'system', content: 'Be brief.' },
        { id: '1', role: 'user', content: 'Weather in Oslo?' },
        { id: 'th', role: 'reasoning', content: 'look it up' },
        { id: '2', role: 'assistant', content: 'Checking.', toolCalls: [weatherCall] },
        { id: '3', role: 'tool', toolCallId: 'c1', content: 'sunny' },
        { id: 'act', role: 'activity', activityType: 'x', content: {} },
        { id: '4', role: 'assistant', content: 'Sunny.' },
        {
          id: '5',
          role: 'user',
          content: [
            { type: 'text', text: 'And' },
            { type: 'text', text: 'Bergen?' },
          ],
        },
      ],
      tools: [
        {
          name: 'ask_user',
          description: 'Ask the user',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
        },
        { name: 'confirm', description: '' },
      ],
      context: [{ description: 'city', value: 'Oslo' }],
    });
    expect(run.prompt).toBe('And\nBergen?');
    expect(run.conversation).toEqual([
      { type: 'user', content: 'Weather in Oslo?' },
      { type: 'think', content: 'look it up' },
      { type: 'respond', content: 'Checking.' },
      { type: 'call', toolCallId: 'c1', toolName: 'get_weather', input: { city: 'Oslo' } },
      {
        type: 'results',
        results: [{ toolCallId: 'c1', toolName: 'get_weather', output: 'sunny' }],
      },
      { type: 'respond', content: 'Sunny.' },
    ]);
    expect(run.toolResults).toEqual([]);
    expect({ ...run.tools }).toEqual({
      ask_user: {
        description: 'Ask the user',
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
      },
      confirm: { inputSchema: { type: 'object', properties: {} } },
    });
    expect(Object.values(run.tools).every((tool) => tool.execute === undefined)).toBe(true);
    expect(run.system).toBe('Be brief.\n\nContext from the application:\n- city: Oslo');
  });

  it('trailing tool messages are the results a paused run waits on', () => {
    const run = agUiInputToRun({
      threadId: 't',
      runId: 'r2',
      messages: [
        { id: '1', role: 'user', content: 'hi' },
        {
          id: '2',
          role: 'assistant',
          toolCalls: [
            weatherCall,
            { id: 'c2', type: 'function', function: { name: 'ask_user', arguments: 'not json' } },
          ],
        },
        { id: '3', role: 'tool', toolCallId: 'c1', content: '', error: 'no network' },
        { id: '4', role: 'tool', toolCallId: 'c2', content: 'Oslo' },
      ],
    });
    expect(run.prompt).toBeUndefined();
    expect(run.toolResults).toEqual([
      { toolCallId: 'c1', output: 'no network', isError: true },
      { toolCallId: 'c2', output: 'Oslo' },
    ]);
    expect(run.conversation.at(-2)).toEqual({
      type: 'call',
      toolCallId: 'c2',
      toolName: 'ask_user',
      input: 'not json',
    });
    expect(run.conversation.at(-1)).toMatchObject({ type: 'results' });
    expect(run.system).toBeUndefined();
    expect(run.tools).toEqual({});
  });

  it('refuses what it cannot read, naming the place', () => {
    const refused = (input: unknown) => {
      try {
        agUiInputToRun(input, { maxMessages: 3, maxArgumentsDepth: 4 });
      } catch (error) {
        expect(error).toBeInstanceOf(AgUiInputError);
        expect((error as AgUiInputError).kind).toBe('request-refused');
        return (error as AgUiInputError).message;
      }
      throw new Error('not refused');
    };
    const base = { threadId: 't', runId: 'r' };
    expect(refused(null)).toBe('input must be an object');
    expect(refused({ ...base, threadId: '' })).toBe('threadId must not be empty');
    expect(refused({ ...base, messages: {} })).toBe('messages must be an array of messages');
    expect(refused({ ...base, messages: [1, 2, 3, 4] })).toMatch(/more than the 3 taken/);
    expect(refused({ ...base, messages: [{ id: '1', role: 'robot' }] })).toMatch(
      /^messages\[0\]\.role must be/,
    );
    expect(
      refused({ ...base, messages: [{ id: '1', role: 'tool', toolCallId: 'x', content: 'y' }] }),
    ).toMatch(/^messages\[0\]\.toolCallId names no call/);
    expect(
      refused({
        ...base,
        messages: [{ id: '1', role: 'user', content: [{ type: 'image', source: {} }] }],
      }),
    ).toMatch(/^messages\[0\]\.content\[0\]\.type is "image"; only text parts are read/);
    expect(
      refused({
        ...base,
        messages: [
          {
            id: '1',
            role: 'assistant',
            toolCalls: [
              { id: 'c', type: 'function', function: { name: 'x', arguments: '[[[[[1]]]]]' } },
            ],
          },
        ],
      }),
    ).toBe('messages[0].toolCalls[0].function.arguments nests deeper than 4 levels');
    expect(
      refused({
        ...base,
        messages: [],
        tools: [
          { name: 'a', description: '' },
          { name: 'a', description: '' },
        ],
      }),
    ).toBe('tools[1].name repeats the tool a');
    expect(refused({ ...base, messages: [], tools: [{ name: 'a', parameters: [] }] })).toBe(
      'tools[0].parameters must be a JSON Schema object',
    );
  });

  it('a call no tool message answers gets an error result where its turn ends', () => {
    const run = agUiInputToRun({
      threadId: 't',
      runId: 'r',
      messages: [
        { id: '1', role: 'user', content: 'hi' },
        {
          id: '2',
          role: 'assistant',
          toolCalls: [
            { id: 'asked', type: 'function', function: { name: 'ask_user', arguments: '{}' } },
            weatherCall,
          ],
        },
        { id: 'x', role: 'activity', activityType: 'progress', content: {} },
        { id: '3', role: 'tool', toolCallId: 'c1', content: 'sunny' },
        { id: '4', role: 'user', content: 'never mind' },
      ],
    });
    expect(run.conversation.slice(-1)).toEqual([
      {
        type: 'results',
        results: [
          { toolCallId: 'c1', toolName: 'get_weather', output: 'sunny' },
          { toolCallId: 'asked', toolName: 'ask_user', output: UNANSWERED_CALL, isError: true },
        ],
      },
    ]);
    expect(run.prompt).toBe('never mind');
  });

  it('pendingToolResults keeps the answers to the pending calls, in the order given', () => {
    const results = [
      { toolCallId: 'server', output: 'ran already' },
      { toolCallId: 'b', output: 2 },
      { toolCallId: 'a', output: 1, isError: true },
    ];
    expect(pendingToolResults(results, [{ toolCallId: 'a' }, { toolCallId: 'b' }])).toEqual([
      { toolCallId: 'b', output: 2 },
      { toolCallId: 'a', output: 1, isError: true },
    ]);
    expect(pendingToolResults(results, [{ toolCallId: 'missing' }])).toEqual([]);
  });

  it('a tool named __proto__ is a tool like any other', () => {
    const run = agUiInputToRun({
      threadId: 't',
      runId: 'r',
      messages: [],
      tools: [{ name: '__proto__', description: 'odd' }],
    });
    expect(Object.keys(run.tools)).toEqual(['__proto__']);
  });
});

// ── the front-end tool round trip, through AG-UI's own client pipeline ───────────────────────

describe('a front-end tool, round trip through an AG-UI client', () => {
  const serverTools: AgentTools = {
    get_weather: {
      description: 'Weather for a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: ({ city }: { city: string }) => `sunny in ${city}`,
    },
  };

  type Model = Parameters<typeof runAgent>[0]['model'];

  /** What a server does with AG-UI requests: toolwire runs, paused ones kept by thread. */
  class ThreadHost {
    readonly paused = new Map<string, RunState>();
    readonly inputs: RunAgentInput[] = [];
    readonly model: Model;
    constructor(model: Model) {
      this.model = model;
    }

    events(input: RunAgentInput): AsyncIterable<AgUiEvent> {
      this.inputs.push(structuredClone(input));
      const request = agUiInputToRun(input);
      const tools = { ...serverTools, ...request.tools };
      const state = this.paused.get(request.threadId);
      const settings = { model: this.model, protocol: 'hermes', tools } as const;
      const run =
        state && request.toolResults.length > 0
          ? resumeAgent(state, pendingToolResults(request.toolResults, state.pending), settings)
          : runAgent({
              ...settings,
              prompt: request.prompt ?? '',
              conversation: request.conversation,
            });
      this.paused.delete(request.threadId);
      run.result.then((result) => {
        if (result.state) this.paused.set(request.threadId, result.state);
      });
      return toAgUiEvents(run, { threadId: request.threadId, runId: request.runId });
    }
  }

  /** An AG-UI agent (the client's own run pipeline: verify, apply) over a `ThreadHost`. */
  class ToolwireAgent extends AbstractAgent {
    readonly host: ThreadHost;
    constructor(model: Model) {
      super({ threadId: 'thread-x' });
      this.host = new ThreadHost(model);
    }
    get paused() {
      return this.host.paused;
    }
    get inputs() {
      return this.host.inputs;
    }
    run(input: RunAgentInput): Observable<BaseEvent> {
      return from(this.host.events(input) as AsyncIterable<BaseEvent>);
    }
  }

  it('pauses on the call, and the tool message the client adds resumes the run', async () => {
    const { model, prompts } = scriptedModel([
      'Let me check.<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>\n<tool_call>{"name":"ask_user","arguments":{"question":"Which day?"}}</tool_call>',
      'Sunny in Oslo on Monday.',
    ]);
    const agent = new ToolwireAgent(model);
    agent.addMessage({ id: 'u1', role: 'user', content: 'Weather?' });
    const askUser = {
      name: 'ask_user',
      description: 'Ask the user a question',
      parameters: {
        type: 'object',
        properties: { question: { type: 'string' } },
        required: ['question'],
      },
    };

    let pending: string[] | undefined;
    const first = await agent.runAgent(
      { runId: 'run-a', tools: [askUser] },
      {
        onRunFinishedEvent: (params) => {
          pending = (params as unknown as { pendingToolCallIds?: string[] }).pendingToolCallIds;
        },
      },
    );
    // The client holds the assistant message with both calls, and the server tool's result.
    const assistant = agent.messages.find((m) => m.role === 'assistant');
    expect(assistant).toMatchObject({ content: 'Let me check.' });
    const calls = (
      assistant as { toolCalls: { id: string; function: { name: string; arguments: string } }[] }
    ).toolCalls;
    expect(calls.map((call) => call.function.name)).toEqual(['get_weather', 'ask_user']);
    expect(parseJsonText(calls[1]!.function.arguments)).toEqual({ question: 'Which day?' });
    const toolMessages = agent.messages.filter((m) => m.role === 'tool');
    expect(toolMessages).toMatchObject([{ toolCallId: calls[0]!.id, content: 'sunny in Oslo' }]);
    expect(pending).toEqual([calls[1]!.id]);
    expect(first.newMessages.length).toBeGreaterThan(0);

    // The application runs its tool and answers in a new run of the same thread.
    agent.addMessage({ id: 'answer', role: 'tool', toolCallId: calls[1]!.id, content: 'Monday' });
    await agent.runAgent({ runId: 'run-b', tools: [askUser] });
    expect(agent.inputs[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'Monday' });
    const last = agent.messages.at(-1);
    expect(last).toMatchObject({ role: 'assistant', content: 'Sunny in Oslo on Monday.' });
    // The client's own answer is not sent back to it: one tool message per call.
    expect(agent.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    // The model read the front-end answer.
    expect(JSON.stringify(prompts[1])).toContain('Monday');
    expect(agent.paused.size).toBe(0);
  });

  it('with no paused run, the messages the client keeps continue the conversation', async () => {
    const { model, prompts } = scriptedModel(['Hello again.']);
    const agent = new ToolwireAgent(model);
    agent.addMessages([
      { id: 'u1', role: 'user', content: 'Hi' },
      { id: 'a1', role: 'assistant', content: 'Hello.' },
      { id: 'u2', role: 'user', content: 'Again?' },
    ]);
    await agent.runAgent({ runId: 'run-c' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Hello again.' });
    const sent = JSON.stringify(prompts[0]);
    expect(sent.indexOf('Hi')).toBeLessThan(sent.indexOf('Hello.'));
    expect(sent).toContain('Again?');
  });
  it('over SSE with id: lines, as HttpAgent reads a server', async () => {
    const { model } = scriptedModel([
      '<tool_call>{"name":"ask_user","arguments":{"question":"Which city?"}}</tool_call>',
      'Bergen: rain.',
    ]);
    const host = new ThreadHost(model);
    const bodies: string[] = [];
    // The server side of POST /api/ag-ui, without a socket: every event framed with its id.
    const serve = async (_url: string, init: RequestInit): Promise<Response> => {
      expect(new Headers(init.headers).get('accept')).toBe('text/event-stream');
      const events = host
        .events(parseJsonText(init.body as string) as RunAgentInput)
        [Symbol.asyncIterator]();
      let id = 0;
      let text = '';
      const utf8 = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await events.next();
          if (next.done) {
            bodies.push(text);
            controller.close();
            return;
          }
          id++;
          const message = `id: 1700000000000-${id}\n${frameAgUiEvent(next.value)}`;
          text += message;
          // Split mid-message, as a network would.
          const half = Math.floor(message.length / 2);
          controller.enqueue(utf8.encode(message.slice(0, half)));
          controller.enqueue(utf8.encode(message.slice(half)));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    };
    const agent = new HttpAgent({ url: 'http://toolwire.test/api/ag-ui', fetch: serve as never });
    agent.addMessage({ id: 'u1', role: 'user', content: 'Weather?' });
    const askUser = { name: 'ask_user', description: 'Ask the user a question' };
    await agent.runAgent({ runId: 'http-1', tools: [askUser] });
    const call = agent.messages.flatMap((m) =>
      m.role === 'assistant' ? (m.toolCalls ?? []) : [],
    )[0]!;
    expect(call.function).toEqual({ name: 'ask_user', arguments: '{"question":"Which city?"}' });
    expect(bodies[0]).toMatch(/^id: 1700000000000-1\ndata: \{"type":"RUN_STARTED"/);

    agent.addMessage({ id: 'answer', role: 'tool', toolCallId: call.id, content: 'Bergen' });
    await agent.runAgent({ runId: 'http-2', tools: [askUser] });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Bergen: rain.' });
    expect(bodies[1]).toContain('"runId":"http-2"');
  });
});

describe('a real run', () => {
  it('xml with its completion tool: the answer is text, the stream valid', async () => {
    const { model } = scriptedModel([
      '<thinking>plan</thinking>\n<get_weather><city>Oslo</city></get_weather>',
      '<attempt_completion><result>Sunny.</result></attempt_completion>',
    ]);
    const tools: AgentTools = {
      get_weather: {
        inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        execute: () => 'sunny',
      },
    };
    const events: AgUiEvent[] = [];
    for await (const event of toAgUiEvents(runAgent({ model, tools, prompt: 'Oslo?' }), IDS))
      events.push(event);
    await expectWellFormed(events);
    const texts = events.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? [e.delta] : []));
    expect(texts.join('')).toContain('Sunny.');
    expect(events.filter((e) => e.type === 'TOOL_CALL_START').map((e) => e.toolCallName)).toEqual([
      'get_weather',
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: 'Sunny.' });
    expect(events.some((e) => e.type === 'REASONING_MESSAGE_CONTENT')).toBe(true);
  });
});
