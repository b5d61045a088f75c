import { describe, expect, it } from 'vitest';
import { isErrorOfKind, ToolwireError } from '../../src/core/errors.ts';
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
});
