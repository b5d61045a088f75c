import { describe, expect, it } from 'vitest';
import { sseResponse } from '../../src/http/sse-response.ts';
import { SSE_HEADERS } from '../../src/stream/sse.ts';

describe('sseResponse', () => {
  it('streams the body with the SSE headers, and the caller’s beside them', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: hi\n\n'));
        controller.close();
      },
    });
    const response = sseResponse(body, { 'x-run-id': 'r1' });
    for (const [name, value] of Object.entries(SSE_HEADERS))
      expect(response.headers.get(name)).toBe(value);
    expect(response.headers.get('x-run-id')).toBe('r1');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('data: hi\n\n');
  });
});
