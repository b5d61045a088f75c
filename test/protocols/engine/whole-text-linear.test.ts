/**
 * Linear time for a whole text pushed at once (`parseGeneratedText`, the proxy's `stream: false`,
 * the middleware's generate path), not only for small chunks: text made of one format's openers
 * repeated, cut, or followed by junk or long lines costs four times the work at four times the
 * size, for every registered format and `auto`.
 *
 * Work is counted, not timed: the characters the engine searched and handed to call bodies and
 * copied to read again (`workMeter`), plus the text the events hold (what a consumer keeps).
 * A reader that rebuilds the rest of the text per failed opener, or a body that reads to the end
 * of the line and hands it all back, counts sixteen times the work at four times the size.
 */
import { describe, expect, it } from 'vitest';
import {
  autoProtocol,
  FORMATS,
  type ParseEvent,
  type ToolCallProtocol,
} from '../../../src/index.ts';
import { grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import { resolveParseOptions } from '../../../src/protocols/engine/stream-engine.ts';
import { workMeter } from '../../../src/protocols/engine/work-meter.ts';
import { TOOLS } from '../helpers.ts';

const protocols: [string, ToolCallProtocol][] = [
  ...FORMATS.map((entry): [string, ToolCallProtocol] => [entry.name, entry.create()]),
  ['auto', autoProtocol()],
];

/** Sizes of the two texts compared, in characters. */
const SMALL = 4_000;
const LARGE = 4 * SMALL;
/** Linear work is four times as much at four times the size; quadratic work sixteen times. */
const MAX_GROWTH = 6;

/** Characters the events hold: text and reasoning deltas, inputs, raw text of faults. */
function eventText(events: readonly ParseEvent[]): number {
  let total = 0;
  for (const event of events) {
    if (event.type === 'text-delta' || event.type === 'reasoning-delta') {
      total += event.delta.length;
    } else if (event.type === 'tool-input-delta') total += event.delta.length;
    else if (event.type === 'tool-call') total += event.input.length;
    else if (event.type === 'error') total += event.error.raw.length;
  }
  return total;
}

/** The work of reading `text` pushed whole, and the events' text. */
function workOf(protocol: ToolCallProtocol, text: string): number {
  const before = workMeter.characters;
  const parser = protocol.createStreamParser({ tools: TOOLS });
  const events = parser.push(text);
  for (const event of parser.end()) events.push(event);
  return workMeter.characters - before + eventText(events) + events.length;
}

/** `unit` repeated to `size` characters. */
function repeated(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/**
 * The literals a format's reader looks for: its openers and reasoning tags, one of each shape
 * (openers that differ only in their white space, as JSON arrays do, are read alike).
 */
function literalsOf(protocol: ToolCallProtocol): string[] {
  const grammar = grammarOf(protocol)!;
  const openers = grammar.callOpeners(resolveParseOptions({ tools: TOOLS }));
  const byShape = new Map<string, string>();
  for (const literal of [
    ...openers.map((opener) => opener.literal),
    ...grammar.reasoningTags.flatMap((tag) => [tag.open, tag.close]),
  ]) {
    const shape = literal.replace(/\s+/g, ' ');
    if (!byShape.has(shape)) byShape.set(shape, literal);
  }
  return [...byShape.values()];
}

/**
 * Units whose repetition makes the pathological texts: each opener whole, cut, followed by junk
 * or by a long line; and the pieces of a formatted call. `auto` reads every format's openers,
 * each of which its format's own test repeats in every way: for `auto` (hundreds of openers)
 * the fewer shapes keep the test short.
 */
function pathologicalUnits(protocol: ToolCallProtocol, everyShape: boolean): string[] {
  const units = new Set<string>();
  for (const literal of literalsOf(protocol)) {
    units.add(literal);
    if (literal.length > 1) units.add(literal.slice(0, -1));
    units.add(`${literal}t`);
    if (!everyShape) continue;
    if (literal.length > 3) units.add(literal.slice(0, literal.length >> 1));
    units.add(`${literal} x\n`);
    units.add(`${literal}${'x'.repeat(300)}\n`);
  }
  const sample = protocol.formatToolCall([
    { toolName: 'get_weather', input: { city: 'Qq', days: 7 } },
  ]);
  for (const piece of sample.split(/Qq|7/)) if (piece.length > 0) units.add(piece);
  units.add(sample.slice(0, sample.length >> 1));
  return [...units];
}

/**
 * Work is counted, not timed; the time limit only bounds a run. `auto` reads every format's
 * openers (over a thousand units here), which takes a minute on a machine shared by many runs.
 */
const AUTO_TIMEOUT_MS = 240_000;

describe.each(protocols)('%s: a whole text is read in linear work', (name, protocol) => {
  it(
    'on its openers repeated, cut, with junk and with long lines after them',
    () => {
      const superlinear: string[] = [];
      for (const unit of pathologicalUnits(protocol, name !== 'auto')) {
        const growth =
          workOf(protocol, repeated(unit, LARGE)) / workOf(protocol, repeated(unit, SMALL));
        if (growth > MAX_GROWTH) superlinear.push(`${JSON.stringify(unit)}: ×${growth.toFixed(1)}`);
      }
      expect(superlinear).toEqual([]);
    },
    name === 'auto' ? AUTO_TIMEOUT_MS : undefined,
  );
});

describe('whole texts of the repros of issue 20 section 3', () => {
  const cases: [string, string][] = [
    ['deepseek', '<｜tool▁call▁begin｜>'],
    ['auto', '<｜tool▁call▁begin｜>'],
    ['functionary', '>'],
    ['functionary', '>>> print(sorted(values))\n'],
    ['mistral', '[TOOL_CALLS]t'],
    ['auto', '[TOOL_CALLS]t'],
  ];
  it.each(cases)('%s on %j repeated: linear work', (name, unit) => {
    const protocol =
      name === 'auto' ? autoProtocol() : FORMATS.find((entry) => entry.name === name)!.create();
    const small = workOf(protocol, repeated(unit, 25_000));
    const large = workOf(protocol, repeated(unit, 100_000));
    expect(large / small).toBeLessThan(MAX_GROWTH);
  });
});

describe('text of openers that are not calls', () => {
  it.each([
    ['functionary', '>'],
    ['deepseek', '<｜tool▁call▁begin｜>'],
    ['auto', '>'],
  ])('%s on %j repeated comes out as one text delta per push, not one per opener', (name, unit) => {
    const protocol =
      name === 'auto' ? autoProtocol() : FORMATS.find((entry) => entry.name === name)!.create();
    const text = repeated(unit, 50_000);
    const parser = protocol.createStreamParser({ tools: TOOLS });
    const deltas = parser.push(text).filter((event) => event.type === 'text-delta');
    const all = [...deltas, ...parser.end().filter((event) => event.type === 'text-delta')];
    expect(all.length).toBeLessThanOrEqual(2);
    expect(all.map((event) => (event.type === 'text-delta' ? event.delta : '')).join('')).toBe(
      text,
    );
  });
});
