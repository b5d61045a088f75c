/**
 * The store section of the bench (`TOOLWIRE_BENCH=store`): named among the sections, its rows
 * put memory and Redis side by side as ratios and added latency, and its table says when Redis
 * was not measured. The measurement itself is the bench's (it needs the machine to itself).
 */
import { describe, expect, it } from 'vitest';
import { benchSelection } from '../../bench/sections.ts';
import {
  type StoreBenchResult,
  storeRows,
  storeTables,
  THROUGHPUT_CASES,
} from '../../bench/store.ts';

const round = (eventsPerSecond: number, p50Ms: number, p99Ms: number) => ({
  eventsPerSecond: THROUGHPUT_CASES.map(() => eventsPerSecond),
  latencyOther: { p50Ms, p99Ms },
  latencySame: { p50Ms: p50Ms / 2, p99Ms: p99Ms / 2 },
});

describe('the store bench section', () => {
  it('is a section TOOLWIRE_BENCH names', () => {
    expect(benchSelection('store')).toBe('store');
  });

  it('sets Redis beside memory: medians of the rounds, redis/memory, and the latency Redis adds', () => {
    const memory = [
      round(100_000, 0.002, 0.03),
      round(90_000, 0.004, 0.05),
      round(110_000, 0.003, 0.04),
    ];
    const redis = [round(2_000, 0.4, 3), round(1_000, 0.3, 2), round(3_000, 0.5, 4)];
    const rows = storeRows(memory, redis);
    expect(rows.throughput[0]).toMatchObject({ memory: 100_000, redis: 2_000, ratio: 0.02 });
    expect(rows.latency[0]).toMatchObject({
      name: 'reader on another instance',
      memory: { p50Ms: 0.003, p99Ms: 0.04 },
      redis: { p50Ms: 0.4, p99Ms: 3 },
    });
    expect(rows.latency[0]!.addedP50Ms).toBeCloseTo(0.397, 9);
    expect(rows.latency[1]!.addedP99Ms).toBeCloseTo(1.5 - 0.02, 9);
  });

  it('without Redis: memory alone, the Redis columns empty and the reason shown', () => {
    const rows = storeRows([round(100_000, 0.002, 0.03)], []);
    expect(rows.throughput[0]).toMatchObject({ redis: null, ratio: null });
    expect(rows.latency[0]).toMatchObject({ redis: null, addedP50Ms: null });
    const result: StoreBenchResult = {
      rounds: 1,
      latencyEvents: 350,
      ...rows,
      redisSkipped: '/usr/bin/redis-server is not installed',
      note: 'shared',
      loadAverage: { before: 1, after: 1 },
      failures: [],
      seconds: 1,
    };
    const table = storeTables(result);
    expect(table).toContain('Redis not measured: /usr/bin/redis-server is not installed.');
    expect(table).toMatch(/1 run, 1 event per append +100000 +- +-/);
  });
});
