import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import { onlyKeys, parseToolResults } from '../../src/server/requests.ts';

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
    expect(HttpError.isInstance(refusal)).toBe(true);
    const message = (refusal as HttpError).message;
    expect((refusal as HttpError).status).toBe(400);
    expect(message).toMatch(/^POST \/api\/runs: unknown fields /);
    expect(message.match(/"k+"/g)).toHaveLength(5);
    expect(message.length).toBeLessThan(400);
    expect(message).toContain('expected prompt');
  });

  it('lets known fields through', () => {
    expect(() => onlyKeys({ prompt: 'x' }, ['prompt', 'protocol'], 'here')).not.toThrow();
  });
});

describe('parseToolResults', () => {
  it('reads the results and refuses one without content with a 400 naming its place', () => {
    expect(parseToolResults({ results: [{ tool_use_id: 'c1', content: 'ok' }] })).toEqual([
      { toolUseId: 'c1', content: 'ok', isError: false },
    ]);
    expect(() => parseToolResults({ results: [{ tool_use_id: 'c1' }] })).toThrow(
      new HttpError(
        400,
        "POST /api/runs/:id/tool-results: results[0].content is missing (the tool's answer)",
      ),
    );
  });
});
