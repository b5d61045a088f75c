import { describe, expect, it } from 'vitest';
import {
  BODY_SHAPE_LIMITS,
  onlyKeys,
  RequestError,
  readJsonBody,
} from '../../src/server/requests.ts';

describe('onlyKeys', () => {
  it('refuses unknown fields with 400, quoting at most five, each cut to 40 characters', () => {
    const body = Object.fromEntries(
      ['prompt', ...Array.from({ length: 7 }, (_, i) => `${'k'.repeat(1000)}${i}`)].map((key) => [
        key,
        1,
      ]),
    );
    let refusal: unknown;
    try {
      onlyKeys(body, ['prompt'], 'POST /api/runs');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(RequestError);
    const message = (refusal as RequestError).message;
    expect((refusal as RequestError).status).toBe(400);
    expect(message).toMatch(/^POST \/api\/runs: unknown fields /);
    expect(message.match(/"k+"/g)).toHaveLength(5);
    expect(message.length).toBeLessThan(400);
    expect(message).toContain('expected prompt');
  });

  it('lets known fields through', () => {
    expect(() => onlyKeys({ prompt: 'x' }, ['prompt', 'protocol'], 'here')).not.toThrow();
  });
});

describe('readJsonBody', () => {
  function jsonRequest(body: string): Request {
    return new Request('http://127.0.0.1/api/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
  }

  async function refusal(body: string): Promise<{ status: number; message: string }> {
    try {
      await readJsonBody(jsonRequest(body), 1024 * 1024);
    } catch (error) {
      const refused = error as RequestError;
      return { status: refused.status, message: refused.message };
    }
    throw new Error('the body was read');
  }

  it('reads a body within its limits', async () => {
    expect(await readJsonBody(jsonRequest('{"prompt":"hi","n":[1,2]}'), 1024)).toEqual({
      prompt: 'hi',
      n: [1, 2],
    });
  });

  it('refuses a body that nests too deep with a 400 naming the limit, before parsing it', async () => {
    const deep = `${'['.repeat(BODY_SHAPE_LIMITS.maxDepth + 1)}${']'.repeat(BODY_SHAPE_LIMITS.maxDepth + 1)}`;
    expect(await refusal(deep)).toEqual({
      status: 400,
      message: `the body nests deeper than ${BODY_SHAPE_LIMITS.maxDepth} levels`,
    });
    const within = `${'['.repeat(BODY_SHAPE_LIMITS.maxDepth)}${']'.repeat(BODY_SHAPE_LIMITS.maxDepth)}`;
    await expect(readJsonBody(jsonRequest(within), 1024)).resolves.toBeInstanceOf(Array);
  });

  it('refuses a small body of many values with a 413 (it would cost a hundred times its bytes)', async () => {
    const limits = { maxDepth: 8, maxValues: 1000 };
    const many = `[${'{},'.repeat(limits.maxValues)}{}]`;
    await expect(
      readJsonBody(jsonRequest(many), 1024 * 1024, limits).catch((error: RequestError) => [
        error.status,
        error.message,
      ]),
    ).resolves.toEqual([413, 'the body holds more than 1000 JSON values']);
    const within = `[${'{},'.repeat(limits.maxValues - 2)}{}]`;
    await expect(readJsonBody(jsonRequest(within), 1024 * 1024, limits)).resolves.toHaveLength(
      limits.maxValues - 1,
    );
  });
});
