/**
 * A model call that fails ends the run with a typed error where it fails: the `error` event and
 * the result carry a `ModelCallError` whose `kind` says how, never words to read again.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { type AgentEvent, runAgent } from '../../src/agent/index.ts';
import { ToolwireError } from '../../src/core/errors.ts';
import { ModelCallError } from '../../src/core/model-call-error.ts';

function failingModel(failure: () => unknown) {
  return new MockLanguageModelV4({
    modelId: 'm1',
    doStream: async () => {
      throw failure();
    },
  });
}

/** A model whose stream starts, then reports `error` as an error part. */
function erroringStream(error: unknown) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'error', error });
          controller.close();
        },
      }),
    }),
  });
}

async function failureOf(model: MockLanguageModelV4) {
  const run = runAgent({ model, tools: {}, prompt: 'hi' });
  const events: AgentEvent[] = [];
  for await (const event of run) events.push(event);
  const result = await run.result;
  const errors = events.filter((event) => event.type === 'error');
  expect(errors).toHaveLength(1);
  const error = (errors[0] as Extract<AgentEvent, { type: 'error' }>).error;
  expect(result.stopReason).toBe('error');
  expect(result.error).toBe(error);
  expect(result.message).toBe(error.message);
  expect(events.at(-1)).toMatchObject({
    type: 'finish',
    stopReason: 'error',
    message: error.message,
  });
  return error;
}

describe('runAgent: a failed model call is a typed error', () => {
  it('nothing answers: model-unreachable, with the network code and the cause', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    const thrown = new TypeError('fetch failed', { cause: refused });
    const error = await failureOf(failingModel(() => thrown));
    expect(ModelCallError.isInstance(error)).toBe(true);
    expect(error.kind).toBe('model-unreachable');
    expect((error as ModelCallError).detail).toBe('ECONNREFUSED');
    expect((error as ModelCallError).model).toBe('m1');
    expect(error.cause).toBe(thrown);
  });

  it('a fetch the AI SDK wraps, failed without a network code (a refused port): model-unreachable', async () => {
    const fetchFailed = new TypeError('fetch failed', { cause: new Error('bad port') });
    const thrown = new Error('Cannot connect to API: bad port', { cause: fetchFailed });
    const error = await failureOf(failingModel(() => thrown));
    expect(error.kind).toBe('model-unreachable');
    expect(error.cause).toBe(thrown);
    expect(error.message).toContain('bad port');
  });

  it('the AI SDK’s APICallError with no status (it could not connect): model-unreachable', async () => {
    const thrown = Object.assign(
      new Error('Cannot connect to API: bad port', { cause: new Error('bad port') }),
      {
        name: 'AI_APICallError',
        statusCode: undefined,
        isRetryable: true,
      },
    );
    const error = await failureOf(failingModel(() => thrown));
    expect(error.kind).toBe('model-unreachable');
    expect(error.cause).toBe(thrown);
  });

  it('an HTTP error status (the AI SDK APICallError): model-http-status with the status', async () => {
    const thrown = Object.assign(new Error('model "nope" not found'), { statusCode: 404 });
    const error = await failureOf(failingModel(() => thrown));
    expect(error.kind).toBe('model-http-status');
    expect((error as ModelCallError).status).toBe(404);
    expect(error.message).toContain('model "nope" not found');
  });

  it('a timeout: model-timeout', async () => {
    const thrown = new DOMException('The operation timed out.', 'TimeoutError');
    expect((await failureOf(failingModel(() => thrown))).kind).toBe('model-timeout');
  });

  it('an error part in the stream is the model call failing too', async () => {
    const error = await failureOf(
      erroringStream(Object.assign(new Error('busy'), { status: 503 })),
    );
    expect(error.kind).toBe('model-http-status');
    expect((error as ModelCallError).status).toBe(503);
  });

  it('an AbortError the run did not ask for: aborted, still a toolwire error', async () => {
    const thrown = new DOMException('stopped', 'AbortError');
    const error = await failureOf(failingModel(() => thrown));
    expect(ToolwireError.isInstance(error)).toBe(true);
    expect(error.kind).toBe('aborted');
    expect(error.cause).toBe(thrown);
  });

  it('a toolwire error thrown by the model is kept as it is', async () => {
    const thrown = new ModelCallError('model-bad-reply', { detail: 'not JSON' });
    expect(await failureOf(failingModel(() => thrown))).toBe(thrown);
  });
});
