import { describe, expect, it } from 'vitest';
import { estimateJsonCost, JsonTextReader, measureJson } from '../../src/http/json-shape.ts';

describe('measureJson: values and nesting counted on the bytes, in one pass', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const roomy = { maxDepth: 1000, maxValues: 1_000_000 };

  it('counts every value, keys included, and the deepest nesting', () => {
    expect(measureJson(bytes('{"a": [1, -2.5e3, true, null, "x,]}"], "b": {}}'), roomy)).toEqual({
      values: 10,
      depth: 2,
    });
    // Brackets, commas and escaped quotes inside strings are text, not structure.
    expect(measureJson(bytes('["[[[\\"]]]", "\\\\"]'), roomy)).toEqual({ values: 3, depth: 1 });
  });

  it('stops at the first value past a limit', () => {
    expect(measureJson(bytes('[{},{},{},{}]'), { maxDepth: 10, maxValues: 4 })).toEqual({
      exceeds: 'maxValues',
    });
    expect(
      measureJson(bytes(`${'['.repeat(11)}${']'.repeat(11)}`), { maxDepth: 10, maxValues: 99 }),
    ).toEqual({
      exceeds: 'maxDepth',
    });
  });
});

describe('estimateJsonCost', () => {
  it('grows with the bytes and with the count of values', () => {
    const base = estimateJsonCost(1000, { values: 10, depth: 1 });
    expect(estimateJsonCost(2000, { values: 10, depth: 1 })).toBeGreaterThan(base);
    expect(estimateJsonCost(1000, { values: 1000, depth: 1 })).toBeGreaterThan(base);
  });
});

describe('JsonTextReader', () => {
  it('parses texts while they fit what is left of the values, summing their cost', () => {
    const reader = new JsonTextReader({ maxDepth: 4, maxValues: 5 });
    expect(reader.parse('[1,2]')).toEqual({ value: [1, 2] });
    expect(reader.cost).toBeGreaterThan(0);
    // Three values used: a text of three more is past the five.
    expect(reader.parse('[1,2]')).toEqual({ problem: 'maxValues' });
    expect(new JsonTextReader({ maxDepth: 4, maxValues: 50 }).parse('[[[[[1]]]]]')).toEqual({
      problem: 'maxDepth',
    });
    expect(reader.parse('{x')).toMatchObject({ problem: 'syntax' });
  });
});
