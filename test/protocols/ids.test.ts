import { describe, expect, it, vi } from 'vitest';
import { createIdGenerator } from '../../src/core/ids.ts';
import { hermesProtocol, type ParseEvent, xmlProtocol } from '../../src/index.ts';
import { TOOLS } from './helpers.ts';

function idsOf(events: readonly ParseEvent[]): string[] {
  const ids: string[] = [];
  for (const event of events) {
    if ('id' in event && typeof event.id === 'string') ids.push(event.id);
    if (event.type === 'tool-call') ids.push(event.toolCallId);
  }
  return ids;
}

describe('default ids', () => {
  it('are unique across parsers and protocols, with a random prefix and a counter', () => {
    const seen = new Set<string>();
    let count = 0;
    for (const protocol of [hermesProtocol(), xmlProtocol(), hermesProtocol()]) {
      for (let run = 0; run < 3; run++) {
        const parser = protocol.createStreamParser({ tools: TOOLS });
        const text = `Checking.\n${protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })}\nDone.`;
        const events = [...parser.push(text), ...parser.end()];
        // One text id per text block and one id per call (its input events share it).
        const ids = new Set(idsOf(events));
        expect(ids.size).toBe(3);
        for (const id of ids) {
          expect(id).toMatch(/^tw_[0-9a-z]{10}_[0-9a-z]+$/);
          expect(seen.has(id)).toBe(false);
          seen.add(id);
          count++;
        }
      }
    }
    expect(seen.size).toBe(count);
  });
});

describe('createIdGenerator', () => {
  it('gives each generator its own random prefix, drawing random bytes a pool at a time', () => {
    const draw = vi.spyOn(globalThis.crypto, 'getRandomValues');
    try {
      const prefixes = new Set<string>();
      for (let i = 0; i < 2000; i++) prefixes.add(createIdGenerator('call')().slice(0, -1));
      expect(prefixes.size).toBe(2000);
      for (const prefix of prefixes) expect(prefix).toMatch(/^call_[0-9a-z]{10}_$/);
      // 2,000 prefixes of 10 bytes from pools of 4,096: a handful of draws, not one each.
      expect(draw.mock.calls.length).toBeLessThanOrEqual(6);
    } finally {
      draw.mockRestore();
    }
  });
});
