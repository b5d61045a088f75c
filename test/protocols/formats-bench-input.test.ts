/**
 * The formats bench (bench/formats.ts) times every registered format on an output it generates:
 * that output must hold its 200 calls, readable by the format and by `auto`, or the bench
 * would time nothing. Also its checks and settings: a miscount throws, the results file keeps
 * the other sections.
 */
import { describe, expect, it } from 'vitest';
import {
  BENCH_CALLS,
  BENCH_TARGET_CHARS,
  CallCountError,
  checkCalls,
  expectCallCount,
  formatBenchInput,
  parseCalls,
  roundRatio,
  selectedFormats,
} from '../../bench/formats.ts';
import {
  FORMATS,
  protocolByName,
  type ToolCallProtocol,
  type ToolCallToFormat,
} from '../../src/index.ts';

const auto = protocolByName('auto');

describe('formats bench input', () => {
  for (const entry of FORMATS) {
    it(`${entry.name}: ${BENCH_CALLS} calls in ~200 KB, all found whole and streamed, named and by auto`, () => {
      const protocol = entry.create();
      const input = formatBenchInput(protocol);
      expect(input.calls).toHaveLength(BENCH_CALLS);
      expect(input.text.length).toBeGreaterThan(BENCH_TARGET_CHARS * 0.8);
      expect(input.text.length).toBeLessThan(BENCH_TARGET_CHARS * 1.25);
      const names = input.calls.map((call) => call.toolName);
      // A format auto leaves out (inAuto: false) is read by name only.
      for (const reader of entry.inAuto === false ? [protocol] : [protocol, auto]) {
        for (const mode of ['whole', 256] as const) {
          const calls = parseCalls(reader, input.text, mode);
          expect(
            calls.map((call) => call.toolName),
            `${reader.name} ${mode}`,
          ).toEqual(names);
        }
      }
    });
  }

  it('carries the same calls for every format, with code, numbers, nested objects and batches', () => {
    const batches: number[] = [];
    const hermes = protocolByName('hermes');
    const counting: ToolCallProtocol = {
      ...hermes,
      formatToolCall(call: ToolCallToFormat | readonly ToolCallToFormat[]) {
        batches.push(Array.isArray(call) ? call.length : 1);
        return hermes.formatToolCall(call);
      },
    };
    const { calls } = formatBenchInput(counting);
    expect(formatBenchInput(protocolByName('xml')).calls).toEqual(calls);
    expect(batches.reduce((sum, size) => sum + size, 0)).toBe(BENCH_CALLS);
    expect(batches.some((size) => size > 1)).toBe(true);

    const inputs = calls.map((call) => call.input);
    const written = inputs.map((input) => input.content).filter((v) => typeof v === 'string');
    expect(written.some((content) => content.includes('\n') && content.includes('\\'))).toBe(true);
    expect(inputs.some((input) => typeof input.estimate_hours === 'number')).toBe(true);
    expect(
      inputs.some((input) => typeof (input.due as { reminder?: unknown })?.reminder === 'object'),
    ).toBe(true);
    expect(inputs.some((input) => Array.isArray(input.edits) && input.edits.length > 1)).toBe(true);
  });
});

describe('formats bench checks', () => {
  it('a run that finds another number of calls throws, saying where', () => {
    expect(() => expectCallCount('xml (chunk 8)', 200, 200)).not.toThrow();
    expect(() => expectCallCount('xml (chunk 8)', 0, 200)).toThrow(CallCountError);
    expect(() => expectCallCount('xml (chunk 8)', 199, 200)).toThrow(
      'xml (chunk 8): parsed 199 tool calls, expected 200',
    );
  });

  it('counts exact calls and names the first difference from where the strings part', () => {
    const expected = [
      { toolName: 'write_file', input: { path: 'a.ts', content: `${'x'.repeat(80)}\n` } },
      { toolName: 'search', input: { query: 'q' } },
    ];
    const check = checkCalls(
      [
        {
          toolName: 'write_file',
          input: JSON.stringify({ path: 'a.ts', content: 'x'.repeat(80) }),
        },
        { toolName: 'search', input: '{"query":"q"}' },
      ],
      expected,
    );
    expect(check).toMatchObject({ found: 2, expected: 2, exact: 1 });
    expect(check.firstDifference).toBe(
      'call 0 write_file.content = [70]…"xxxxxxxxxx", rendered [70]…"xxxxxxxxxx\\n"',
    );
  });

  it('a ratio of two sides is the median of their ratios within each round', () => {
    // Round 2 was slowed for both sides alike: the ratio of medians (30 / 10) would say 3.
    const over = { samples: [20, 200, 30, 40, 30] };
    const under = { samples: [10, 100, 10, 20, 10] };
    expect(roundRatio(over, under)).toBe(2);
  });

  it('TOOLWIRE_BENCH_FORMATS keeps the formats it names (aliases too) and refuses unknown ones', () => {
    expect(selectedFormats(undefined)).toEqual(FORMATS.map((entry) => entry.name));
    expect(selectedFormats(' qwen3 , xml')).toEqual(['hermes', 'xml']);
    expect(() => selectedFormats('xml,nope')).toThrow('no format "nope" is registered');
  });
});
