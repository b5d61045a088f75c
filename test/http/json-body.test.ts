import { describe, expect, it, vi } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import {
  type JsonBodyLimits,
  type JsonBodyOptions,
  readJsonBody,
} from '../../src/http/json-body.ts';

const LIMITS: JsonBodyLimits = { maxBytes: 1024 * 1024, maxDepth: 8, maxValues: 1000 };

function jsonRequest(
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
): Request {
  return new Request('http://127.0.0.1/api/run', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

/** The refusal's status and message, or a failure when the body was read. */
async function refusal(
  request: Request,
  limits = LIMITS,
  options: JsonBodyOptions = {},
): Promise<{ status: number; message: string }> {
  try {
    await readJsonBody(request, limits, options);
  } catch (error) {
    expect(HttpError.isInstance(error)).toBe(true);
    const refused = error as HttpError;
    expect(refused.kind).toBe('request-refused');
    return { status: refused.status, message: refused.message };
  }
  throw new Error('the body was read');
}

describe('readJsonBody', () => {
  it('reads a body within its limits, with its count of values', async () => {
    expect(await readJsonBody(jsonRequest('{"prompt":"hi","n":[1,2]}'), LIMITS)).toEqual({
      body: { prompt: 'hi', n: [1, 2] },
      values: 7,
    });
  });

  it('refuses a body that nests too deep with a 400 naming the limit, before parsing it', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    const deep = `${'['.repeat(9)}${']'.repeat(9)}`;
    expect(await refusal(jsonRequest(deep))).toEqual({
      status: 400,
      message: 'the body nests arrays and objects deeper than 8 levels, the most this server reads',
    });
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    const within = `${'['.repeat(8)}${']'.repeat(8)}`;
    await expect(readJsonBody(jsonRequest(within), LIMITS)).resolves.toMatchObject({
      values: 8,
    });
  });

  it('refuses a small body of many values with a 413 (it would cost a hundred times its bytes)', async () => {
    const many = `[${'{},'.repeat(1000)}{}]`;
    expect(await refusal(jsonRequest(many))).toEqual({
      status: 413,
      message:
        'the body holds more than 1000 JSON values (keys included), the most this server reads',
    });
    const within = `[${'{},'.repeat(998)}{}]`;
    await expect(readJsonBody(jsonRequest(within), LIMITS)).resolves.toMatchObject({
      values: 1000,
    });
  });

  it('names who reads and the setting behind each limit when told them', async () => {
    const options: JsonBodyOptions = {
      reader: 'the proxy',
      settings: { maxBytes: 'limits.maxBodyBytes', maxDepth: 'limits.maxJsonDepth' },
    };
    expect(await refusal(jsonRequest('[[[[[[[[[[]]]]]]]]]]'), LIMITS, options)).toEqual({
      status: 400,
      message:
        'the body nests arrays and objects deeper than 8 levels, the most the proxy reads (limits.maxJsonDepth)',
    });
    expect(await refusal(jsonRequest('"x"'), { ...LIMITS, maxBytes: 2 }, options)).toEqual({
      status: 413,
      message: 'the body is larger than 2 bytes, the most the proxy reads (limits.maxBodyBytes)',
    });
  });

  it('refuses what is not a JSON body: its type (415), no body, bad UTF-8, bad JSON (400)', async () => {
    const text = new Request('http://127.0.0.1/', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(await refusal(text)).toEqual({
      status: 415,
      message: 'the body must be JSON, sent with content-type application/json (got "text/plain")',
    });
    const empty = new Request('http://127.0.0.1/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(await refusal(empty)).toEqual({
      status: 400,
      message: 'the request has no body; a JSON object is expected',
    });
    expect(await refusal(jsonRequest(new Uint8Array([0x22, 0xff, 0x22])))).toEqual({
      status: 400,
      message: 'the body is not valid UTF-8',
    });
    expect((await refusal(jsonRequest('{not json'))).message).toMatch(
      /^the body is not valid JSON: /,
    );
  });

  it('reads a body of any content type as JSON when told anyContentType', async () => {
    const request = () => jsonRequest('{"a":1}', { 'content-type': 'text/plain' });
    expect((await refusal(request())).status).toBe(415);
    expect(await readJsonBody(request(), LIMITS, { anyContentType: true })).toEqual({
      body: { a: 1 },
      values: 3,
    });
  });

  it('refuses a body larger than maxBytes (413) by its Content-Length or as its bytes arrive', async () => {
    const limits = { ...LIMITS, maxBytes: 10 };
    expect(await refusal(jsonRequest('"x"', { 'content-length': '11' }), limits)).toEqual({
      status: 413,
      message: 'the body is larger than 10 bytes, the most this server reads',
    });
    const chunks = ['["aaaa",', '"bbbb",', '"cccc"]'];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    expect((await refusal(jsonRequest(stream), limits)).status).toBe(413);
  });

  it('gives a body timeoutMs to arrive in whole (408), and tells a body broken off (400)', async () => {
    const slow = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('['));
      },
    });
    expect(
      await refusal(
        jsonRequest(slow),
        { ...LIMITS, timeoutMs: 50 },
        {
          settings: { timeoutMs: 'limits.bodyTimeoutMs' },
        },
      ),
    ).toEqual({
      status: 408,
      message: 'the body did not arrive within 0.05 s (limits.bodyTimeoutMs)',
    });
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error('the client went away'));
      },
    });
    expect(await refusal(jsonRequest(broken))).toEqual({
      status: 400,
      message: 'the body could not be read: the client went away',
    });
  });

  it('tells onBytes each chunk and onMeasured the shape, and refuses with what they throw', async () => {
    const seen: number[] = [];
    let measured: unknown;
    await readJsonBody(jsonRequest('[1,2,3]'), LIMITS, {
      onBytes: (bytes) => seen.push(bytes),
      onMeasured: (bytes, shape) => {
        measured = { bytes, shape };
      },
    });
    expect(seen.reduce((a, b) => a + b, 0)).toBe(7);
    expect(measured).toEqual({ bytes: 7, shape: { values: 4, depth: 1 } });
    const full = new HttpError(503, 'short of memory');
    await expect(
      readJsonBody(jsonRequest('[1]'), LIMITS, {
        onBytes: () => {
          throw full;
        },
      }),
    ).rejects.toBe(full);
  });
});
