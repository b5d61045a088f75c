import { describe, expect, it } from 'vitest';
import { estimateBytes, formatBytes } from '../../src/http/memory-estimate.ts';

describe('estimateBytes', () => {
  it('counts strings at two bytes a unit, binary data at its length', () => {
    expect(estimateBytes('x'.repeat(1000))).toBeGreaterThanOrEqual(2000);
    expect(estimateBytes(new Uint8Array(4096))).toBeGreaterThanOrEqual(4096);
  });

  it('walks deep and circular values without a stack and counts shared objects once', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = { next: deep };
    expect(estimateBytes(deep)).toBeGreaterThan(100_000);
    const shared = { text: 'y'.repeat(10_000) };
    const circular: Record<string, unknown> = { a: shared, b: shared };
    circular.self = circular;
    expect(estimateBytes(circular)).toBeLessThan(estimateBytes(shared) * 2);
  });

  it('never throws on a getter that throws', () => {
    const hostile = {
      get boom(): never {
        throw new Error('no');
      },
    };
    expect(estimateBytes(hostile)).toBeGreaterThan(0);
  });
});

describe('formatBytes', () => {
  it('says KiB below a MiB, MiB from there, with at most one decimal', () => {
    expect(formatBytes(512 * 1024)).toBe('512 KiB');
    expect(formatBytes(1536 * 1024)).toBe('1.5 MiB');
    expect(formatBytes(100)).toBe('0.1 KiB');
  });
});
