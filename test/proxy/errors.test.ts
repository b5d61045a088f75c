import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import { errorResponse } from '../../src/proxy/errors.ts';

describe('errors in the client API shape', () => {
  it("carries an error's code in OpenAI's shape, and null without one", async () => {
    const missing = new HttpError(404, "Previous response with id 'resp_x' not found.", {
      param: 'previous_response_id',
      extra: { code: 'previous_response_not_found' },
    });
    const response = errorResponse('openai', missing);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: "Previous response with id 'resp_x' not found.",
        type: 'not_found_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      },
    });
    const plain = await errorResponse('openai', new HttpError(400, 'bad')).json();
    expect(plain).toMatchObject({ error: { code: null, param: null } });
  });

  it("leaves the code out of Anthropic's shape, which has none", async () => {
    const error = new HttpError(404, 'gone', { extra: { code: 'x' } });
    expect(await errorResponse('anthropic', error).json()).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: 'gone' },
    });
  });
});
