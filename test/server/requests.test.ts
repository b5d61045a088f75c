import { describe, expect, it } from 'vitest';
import { onlyKeys, RequestError } from '../../src/server/requests.ts';

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
