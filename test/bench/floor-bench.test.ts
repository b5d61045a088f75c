/**
 * The parsers-vs-floor bench (bench/floor.ts) and its floor reader (bench/floor-reader.ts): the
 * floor must read the hermes text exactly, whole and at every split, or the bench would compare
 * the parsers with something that does less than it claims; the section run small must give
 * every figure it reports.
 */
import { describe, expect, it } from 'vitest';
import { chunksOf } from '../../bench/fixtures.ts';
import {
  benchFloor,
  FLOOR_BENCH_SETTINGS,
  floorTables,
  jsonFormats,
  manyCallsText,
} from '../../bench/floor.ts';
import { FloorStreamReader, floorParse, floorStream } from '../../bench/floor-reader.ts';
import { FORMAT_TOOLS, formatBenchInput } from '../../bench/formats.ts';
import { benchSelection } from '../../bench/sections.ts';
import { protocolByName } from '../../src/index.ts';

const hermes = protocolByName('hermes');

function calls(events: ReturnType<typeof floorParse>) {
  return events.filter((event) => event.type === 'tool-call');
}

function text(events: ReturnType<typeof floorParse>): string {
  return events.map((event) => (event.type === 'text' ? event.text : '')).join('');
}

describe('floor reader', () => {
  const input = formatBenchInput(hermes, { calls: 12, targetChars: 6000, seed: 5 });

  it('reads every call of the hermes text with its name and arguments, whole and in chunks', () => {
    const expected = input.calls.map((call) => ({
      toolName: call.toolName,
      input: call.input,
    }));
    for (const events of [
      floorParse(input.text),
      ...[1, 2, 3, 8, 11, 12, 64].map((size) => floorStream(chunksOf(input.text, size))),
    ]) {
      expect(
        calls(events).map((call) =>
          call.type === 'tool-call'
            ? { toolName: call.toolName, input: JSON.parse(call.input) }
            : undefined,
        ),
      ).toEqual(expected);
    }
  });

  it('gives the same text outside calls whatever the chunk size', () => {
    const whole = text(floorParse(input.text));
    expect(whole.length).toBeGreaterThan(100);
    expect(whole).not.toContain('<tool_call>');
    for (const size of [1, 5, 10, 11, 13, 256])
      expect(text(floorStream(chunksOf(input.text, size)))).toBe(whole);
  });

  it('keeps a cut-short opener and an unclosed call as text at the end', () => {
    const reader = new FloorStreamReader();
    expect(reader.push('a <tool_c')).toEqual([{ type: 'text', text: 'a ' }]);
    expect(reader.push('all>{"name":"x"')).toEqual([]);
    expect(reader.end()).toEqual([{ type: 'text', text: '<tool_call>{"name":"x"' }]);
    expect(text(floorStream(['<tool', '_cal']))).toBe('<tool_cal');
  });
});

describe('parsers vs floor bench', () => {
  it('measures the JSON formats (hermes first), not the tagged or Python ones', () => {
    const names = jsonFormats();
    expect(names[0]).toBe('hermes');
    expect(names).toEqual(expect.arrayContaining(['mistral', 'llama3', 'kimi-k2']));
    expect(names).not.toContain('qwen3-coder');
    expect(names).not.toContain('pythonic');
    expect(names).not.toContain('xml');
  });

  it('writes texts of N small calls that hermes and the floor both read in full', () => {
    const many = manyCallsText(hermes, 50, 3);
    expect(calls(floorParse(many))).toHaveLength(50);
    expect(
      hermes
        .parseGeneratedText(many, { tools: FORMAT_TOOLS })
        .filter((part) => part.type === 'tool-call'),
    ).toHaveLength(50);
  });

  it('run small, reports every ratio, the linear pair and a target for each', () => {
    const result = benchFloor({
      ...FLOOR_BENCH_SETTINGS,
      calls: 10,
      targetChars: 4000,
      modes: ['whole', 8],
      formats: ['hermes', 'mistral'],
      linearCalls: 20,
      sampling: { warmupRuns: 1, minRuns: 3, maxRuns: 3, budgetMs: 0 },
      linearSampling: { warmupRuns: 1, minRuns: 3, maxRuns: 3, budgetMs: 0 },
    });
    expect(result.failures).toEqual([]);
    expect(result.floorCheck).toMatchObject({ found: 10, expected: 10, exact: 10 });
    expect(result.modes).toEqual(['whole', '8']);
    expect(result.rows.map((row) => row.format)).toEqual(['hermes', 'mistral']);
    for (const row of result.rows) {
      expect(row.named).toMatchObject({ found: 10, expected: 10, exact: 10 });
      expect(row.auto).toMatchObject({ found: 10, expected: 10 });
      expect(Object.keys(row.modes).sort()).toEqual(['8', 'whole']);
      for (const figures of Object.values(row.modes)) {
        for (const ratio of [
          figures.namedOverFloor,
          figures.namedOverFloorOfMinimums,
          figures.autoOverFloor,
          figures.autoOverNamed,
        ])
          expect(ratio).toBeGreaterThan(0);
        expect(figures.floor.mbPerSecond).toBeGreaterThan(0);
      }
    }
    expect(result.linear?.calls).toEqual([20, 200]);
    expect(result.linear?.parserRatio).toBeGreaterThan(0);
    expect(result.targets).toHaveLength(5);
    const table = floorTables(result);
    expect(table).toContain('Parsers vs floor');
    expect(table).toContain('of minimums (per byte)');
    expect(table).toContain('200 calls in one text / 20 calls');
  });

  it('is selected by TOOLWIRE_BENCH=floor', () => {
    expect(benchSelection('floor')).toBe('floor');
  });
});
