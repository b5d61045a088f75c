import { describe, expect, it } from 'vitest';
import { isErrorOfKind, ToolwireError } from '../../src/core/errors.ts';
import { ModelCallError } from '../../src/core/model-call-error.ts';
import { HttpError } from '../../src/http/http-error.ts';

describe('HttpError', () => {
  it('is a ToolwireError of kind request-refused with its status, param, extra and cause', () => {
    const cause = new Error('underneath');
    const error = new HttpError(422, 'the answers do not match', {
      param: 'results[0].tool_use_id',
      extra: { pending: [{ tool_use_id: 'c1' }] },
      cause,
    });
    expect(error).toBeInstanceOf(ToolwireError);
    expect(error).toBeInstanceOf(Error);
    expect(HttpError.isInstance(error)).toBe(true);
    expect(isErrorOfKind(error, 'request-refused')).toBe(true);
    expect(error).toMatchObject({
      name: 'HttpError',
      kind: 'request-refused',
      status: 422,
      message: 'the answers do not match',
      param: 'results[0].tool_use_id',
      extra: { pending: [{ tool_use_id: 'c1' }] },
      cause,
    });
  });

  it('has no param, no extra and no cause unless given', () => {
    const error = new HttpError(404, 'no such run');
    expect(error.param).toBeUndefined();
    expect(error.extra).toEqual({});
    expect('cause' in error).toBe(false);
  });

  it('is recognised across copies of the package by its marker, not by instanceof', () => {
    const error = new HttpError(429, 'busy');
    const copy = Object.assign(Object.create(null), error, {
      [Symbol.for('toolwire.error')]: ['HttpError', 'ToolwireError'],
    });
    expect(HttpError.isInstance(copy)).toBe(true);
    expect(HttpError.isInstance(new ToolwireError('usage', 'x'))).toBe(false);
    expect(HttpError.isInstance(new Error('plain'))).toBe(false);
  });

  it('refuses a status that is not an error status', () => {
    for (const status of [200, 302, 399, 600, 404.5])
      expect(() => new HttpError(status, 'x')).toThrow(RangeError);
  });

  it('keeps the kind of the failure it passes on, or the kind it is given', () => {
    const timeout = new ModelCallError('model-timeout', { timeoutMs: 1000 });
    expect(new HttpError(504, 'late', { cause: timeout }).kind).toBe('model-timeout');
    expect(new HttpError(422, 'no call', { kind: 'tool-choice-not-followed' }).kind).toBe(
      'tool-choice-not-followed',
    );
    expect(new HttpError(500, 'odd', { cause: new Error('plain') }).kind).toBe('request-refused');
  });
});
