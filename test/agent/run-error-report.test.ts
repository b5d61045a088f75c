/**
 * describeRunError: a failed run's typed error as the page's payload, chosen by `kind` (no
 * reading of words): the `type` the page knows, the `kind`, and a hint where one helps.
 */
import { describe, expect, it } from 'vitest';
import { describeRunError } from '../../src/agent/run-error-report.ts';
import { ToolwireError } from '../../src/core/errors.ts';
import { ModelCallError } from '../../src/core/model-call-error.ts';

const endpoint = { baseURL: 'http://127.0.0.1:9/v1', model: 'qwen2.5-coder:7b' };

describe('describeRunError', () => {
  it('nothing answers: model_unreachable, how to start a server', () => {
    const error = new ModelCallError('model-unreachable', { detail: 'ECONNREFUSED' });
    const payload = describeRunError(error, endpoint);
    expect(payload).toMatchObject({
      type: 'model_unreachable',
      kind: 'model-unreachable',
      message: 'No model server answers at http://127.0.0.1:9/v1.',
      detail: error.message,
    });
    expect(payload.hint).toContain('ollama pull qwen2.5-coder:7b');
    expect(payload.hint).toContain('--base-url (TOOLWIRE_BASE_URL)');
    expect(payload.detail).toContain('ECONNREFUSED');
  });

  it('a reply that broke off is not "no server answers"', () => {
    const error = new ModelCallError('model-unreachable', { brokeOff: true, detail: 'ECONNRESET' });
    const payload = describeRunError(error, endpoint);
    expect(payload.type).toBe('model_error');
    expect(payload.message).toContain('broke off');
    expect(payload.hint).toBeUndefined();
  });

  it('404: the model name to check; 401/403: the key; other statuses: the error alone', () => {
    const notFound = describeRunError(
      new ModelCallError('model-http-status', { status: 404, detail: 'model "x" not found' }),
      endpoint,
    );
    expect(notFound).toMatchObject({
      type: 'model_error',
      kind: 'model-http-status',
      message:
        'The model server at http://127.0.0.1:9/v1 answered with an error: model "x" not found',
    });
    expect(notFound.hint).toContain('--model, TOOLWIRE_MODEL');
    const refused = describeRunError(
      new ModelCallError('model-http-status', { status: 401, detail: 'bad key' }),
      endpoint,
    );
    expect(refused.hint).toContain('TOOLWIRE_API_KEY');
    const busy = describeRunError(
      new ModelCallError('model-http-status', { status: 503, detail: 'busy' }),
      endpoint,
    );
    expect(busy.message).toContain('busy');
    expect(busy.hint).toBeUndefined();
  });

  it('words that look like another kind do not change the kind', () => {
    // Once a regular expression on the message: "not found" read as a 404, ECONNREFUSED as unreachable.
    const said = 'ECONNREFUSED: the file was not found';
    const payload = describeRunError(
      new ModelCallError('model-bad-reply', { detail: said }),
      endpoint,
    );
    expect(payload).toMatchObject({ type: 'model_error', kind: 'model-bad-reply' });
    expect(payload.message).toContain(said);
    expect(payload.hint).toBeUndefined();
  });

  it('a timeout, and any other toolwire error', () => {
    expect(
      describeRunError(new ModelCallError('model-timeout', { timeoutMs: 1000 }), endpoint),
    ).toMatchObject({ type: 'model_error', kind: 'model-timeout' });
    expect(describeRunError(new ToolwireError('aborted', 'stopped'), {})).toEqual({
      type: 'model_error',
      kind: 'aborted',
      message: 'The run failed: stopped',
    });
  });

  it('without an address, says "the configured address"', () => {
    expect(describeRunError(new ModelCallError('model-unreachable'), {}).message).toBe(
      'No model server answers at the configured address.',
    );
  });
});
