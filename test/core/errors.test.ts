import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { isErrorOfKind, TOOLWIRE_ERROR_KINDS, ToolwireError } from '../../src/core/errors.ts';
import {
  classifyModelFailure,
  ModelCallError,
  networkErrorCode,
} from '../../src/core/model-call-error.ts';

class PathError extends ToolwireError {
  readonly path: string;
  constructor(path: string) {
    super('path-not-found', `no ${path}`);
    this.path = path;
  }
}

describe('ToolwireError', () => {
  it('carries kind, cause, name and message', () => {
    const cause = new Error('underneath');
    const error = new ToolwireError('usage', 'bad option', { cause });
    expect(error.kind).toBe('usage');
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('bad option');
    expect(error.name).toBe('ToolwireError');
    expect(error).toBeInstanceOf(Error);
    expect('cause' in new ToolwireError('usage', 'x')).toBe(false);
  });

  it('isInstance tells subclasses apart and ignores look-alikes', () => {
    const error = new PathError('a.txt');
    expect(error.name).toBe('PathError');
    expect(ToolwireError.isInstance(error)).toBe(true);
    expect(PathError.isInstance(error)).toBe(true);
    expect(ModelCallError.isInstance(error)).toBe(false);
    expect(PathError.isInstance(new ToolwireError('path-not-found', 'x'))).toBe(false);
    expect(ToolwireError.isInstance(new Error('x'))).toBe(false);
    expect(ToolwireError.isInstance({ kind: 'usage', message: 'x' })).toBe(false);
    expect(ToolwireError.isInstance(null)).toBe(false);
    expect(ToolwireError.isInstance('usage')).toBe(false);
  });

  it('isInstance works across realms, where instanceof does not', () => {
    const foreign = runInNewContext(
      `const e = new Error('from elsewhere');
       e[Symbol.for('toolwire.error')] = Object.freeze(['ModelCallError', 'ToolwireError']);
       e.kind = 'model-timeout'; e;`,
    ) as unknown;
    expect(foreign instanceof ToolwireError).toBe(false);
    expect(ToolwireError.isInstance(foreign)).toBe(true);
    expect(ModelCallError.isInstance(foreign)).toBe(true);
    expect(isErrorOfKind(foreign, 'model-timeout', 'model-unreachable')).toBe(true);
    expect(isErrorOfKind(foreign, 'usage')).toBe(false);
  });

  it('lists every kind once', () => {
    expect(new Set(TOOLWIRE_ERROR_KINDS).size).toBe(TOOLWIRE_ERROR_KINDS.length);
  });
});

describe('model call failures', () => {
  const where = { baseURL: 'http://127.0.0.1:9/v1', model: 'm' };

  it('builds its message from its fields', () => {
    expect(
      new ModelCallError('model-unreachable', { ...where, detail: 'ECONNREFUSED' }).message,
    ).toBe('no model server answers at http://127.0.0.1:9/v1 (ECONNREFUSED)');
    expect(new ModelCallError('model-timeout', { ...where, timeoutMs: 5000 }).message).toBe(
      'the model server at http://127.0.0.1:9/v1 did not finish within 5 s',
    );
    expect(
      new ModelCallError('model-http-status', { status: 404, detail: 'no model' }).message,
    ).toBe('the model server answered with HTTP 404: no model');
  });

  it('reads the network code under fetch failed, at any depth', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    expect(networkErrorCode(refused)).toBe('ECONNREFUSED');
    const failure = classifyModelFailure(refused, where);
    expect(failure?.kind).toBe('model-unreachable');
    expect(failure?.detail).toBe('ECONNREFUSED');
    expect(failure?.cause).toBe(refused);
  });

  it('classifies statuses, timeouts, aborts and unreadable replies', () => {
    const apiCallError = Object.assign(new Error('Not Found'), { statusCode: 404 });
    expect(classifyModelFailure(apiCallError, where)).toMatchObject({
      kind: 'model-http-status',
      status: 404,
    });
    const timeout = new DOMException('timed out', 'TimeoutError');
    expect(classifyModelFailure(timeout)?.kind).toBe('model-timeout');
    expect(classifyModelFailure(new DOMException('stop', 'AbortError'))).toBeUndefined();
    expect(classifyModelFailure(new SyntaxError('Unexpected token'))?.kind).toBe('model-bad-reply');
    const typed = new ModelCallError('model-timeout');
    expect(classifyModelFailure(typed)).toBe(typed);
  });

  it('reads a call that got no answer as unreachable, even without an error code', () => {
    const badPort = new TypeError('fetch failed', { cause: new Error('bad port') });
    const unanswered = Object.assign(new Error('Cannot connect to API: bad port'), {
      name: 'AI_APICallError',
      cause: badPort,
    });
    expect(classifyModelFailure(unanswered, where)?.kind).toBe('model-unreachable');
    const deep = new Error('stream failed', { cause: new TypeError('network error') });
    expect(classifyModelFailure(deep)?.kind).toBe('model-unreachable');
    const answered = Object.assign(new Error('Bad Request'), {
      name: 'AI_APICallError',
      statusCode: 400,
    });
    expect(classifyModelFailure(answered)?.kind).toBe('model-http-status');
  });
});
