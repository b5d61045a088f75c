/**
 * The 2026 families bench (bench/families.ts) and the chat-template derivation bench
 * (bench/derive.ts), run small: every family must be measured in every mode with all its calls
 * found, each figure must get its target's verdict, and the tables must hold a row per family or
 * template; otherwise the bench could rot into timing nothing. Nothing here depends on how fast
 * the machine is: only that the figures exist and are well formed.
 */
import { describe, expect, it } from 'vitest';
import {
  benchDerive,
  DERIVE_TARGET_MS,
  deriveTables,
  visibleTemplates,
} from '../../bench/derive.ts';
import {
  benchFamilies,
  FAMILIES_BENCH_SETTINGS,
  FAMILY_FORMATS,
  FAMILY_TARGETS,
  familiesTables,
} from '../../bench/families.ts';
import { benchSelection } from '../../bench/sections.ts';
import { FORMATS } from '../../src/index.ts';

const TINY_SAMPLING = { warmupRuns: 1, minRuns: 3, maxRuns: 3, budgetMs: 0 };

/** A table's body rows: the lines after the `---` rule up to the first indented line. */
function tableRows(table: string): string[] {
  const lines = table.split('\n');
  const rule = lines.findIndex((line) => /^-+( +-+)+$/.test(line));
  expect(rule, 'the table has a rule under its header').toBeGreaterThan(0);
  const rows: string[] = [];
  for (const line of lines.slice(rule + 1)) {
    if (line.startsWith(' ') || line === '') break;
    rows.push(line);
  }
  return rows;
}

describe('families bench', () => {
  it('lists only registered formats, each once', () => {
    const registered = FORMATS.map((entry) => entry.name);
    expect(FAMILY_FORMATS.filter((name) => !registered.includes(name))).toEqual([]);
    expect(new Set(FAMILY_FORMATS).size).toBe(FAMILY_FORMATS.length);
    expect(FAMILIES_BENCH_SETTINGS.modes).toEqual(['whole', 1, 8, 256]);
    expect(FAMILIES_BENCH_SETTINGS.largeSizes).toEqual([1024 * 1024, 4 * 1024 * 1024]);
  });

  it('run small, measures every family in every mode and flags each figure against its target', () => {
    const formats = ['gemma4', 'kimi-k3', 'step3'];
    const result = benchFamilies({
      ...FAMILIES_BENCH_SETTINGS,
      formats,
      calls: 8,
      targetChars: 3000,
      wholeRepeats: 1,
      largeSizes: [2048, 8192],
      sampling: TINY_SAMPLING,
      largeSampling: TINY_SAMPLING,
    });
    expect(result.failures).toEqual([]);
    expect(result.clock).toBe('cpu');
    expect(result.rows.map((row) => row.format)).toEqual(formats);
    for (const row of result.rows) {
      expect(row.check).toMatchObject({ found: 8, expected: 8, exact: 8 });
      expect(Object.keys(row.modes).sort()).toEqual(['1', '256', '8', 'whole']);
      for (const figure of Object.values(row.modes)) {
        expect(figure.samplesMs).toHaveLength(3);
        expect(figure.mbPerSecond).toBeGreaterThan(0);
      }
      expect(row.large?.ratio).toBeGreaterThan(0);
    }
    // A whole-text target and a linearity target per family, each with its verdict.
    expect(result.targets).toHaveLength(formats.length * 2);
    for (const target of result.targets) {
      expect(target.target).toMatch(
        new RegExp(`≥ ${FAMILY_TARGETS.wholeMbPerSecond} MB/s|< ${FAMILY_TARGETS.largeRatio}`),
      );
      expect(typeof target.pass).toBe('boolean');
    }

    const table = familiesTables(result);
    expect(table).toContain('CPU time (process.cpuUsage), not wall time');
    expect(table).toMatch(/whole MB\/s +1-char MB\/s +8-char MB\/s +256-char MB\/s/);
    expect(table).toContain('2 KiB ms');
    expect(table).toContain('8 KiB ms');
    const rows = tableRows(table);
    expect(rows.map((row) => row.split(/ +/)[0])).toEqual(formats);
    for (const row of rows) {
      expect(row).toMatch(/ 8\/8 +8\/8 /);
      // Two verdicts: whole MB/s and the large-argument ratio.
      expect(row.match(/\b(PASS|MISS)\b/g)).toHaveLength(2);
    }
    expect(table).toMatch(/targets: \d+ of 6 met/);
  });

  it('a format that is not registered fails its row, not the bench', () => {
    const result = benchFamilies({
      ...FAMILIES_BENCH_SETTINGS,
      formats: ['no-such-format'],
      calls: 2,
      targetChars: 500,
      sampling: TINY_SAMPLING,
      largeSampling: TINY_SAMPLING,
    });
    expect(result.failures).toHaveLength(1);
    expect(result.rows[0]?.failure).toBeDefined();
    expect(familiesTables(result)).toMatch(/no-such-format +FAILED/);
  });
});

describe('derive bench', () => {
  it('finds every visible chat template', () => {
    const names = visibleTemplates().map((path) => path.split('/').at(-1));
    expect(names.length).toBeGreaterThanOrEqual(27);
    expect(names).toContain('gemma4.vllm.jinja');
    expect(names.every((name) => name?.endsWith('.jinja'))).toBe(true);
  });

  it('run small, times each template cold in fresh processes and warm, with verdicts', async () => {
    const templates = visibleTemplates().filter((path) =>
      /\/(hermes|glm4)\.vllm\.jinja$/.test(path),
    );
    const result = await benchDerive({ templates, coldRuns: 1, warm: TINY_SAMPLING });
    expect(result.failures).toEqual([]);
    expect(result.clock).toBe('cpu');
    expect(result.rows.map((row) => row.template)).toEqual([
      'glm4.vllm.jinja',
      'hermes.vllm.jinja',
    ]);
    const [glm4, hermes] = result.rows;
    expect(hermes?.outcome).toBe('hermes');
    // glm4's template writes no tool call: refused, and timed up to the refusal.
    expect(glm4?.outcome).toBe('refused');
    expect(glm4?.refusal).toMatch(/renders no tool call/);
    for (const row of result.rows) {
      expect(row.cold?.runs).toHaveLength(1);
      expect(row.cold?.runs[0]?.outcome).toBe(row.outcome);
      expect(row.cold?.medianMs).toBeGreaterThan(0);
      expect(row.cold?.importMedianMs).toBeGreaterThan(0);
      expect(row.warm?.samplesMs).toHaveLength(3);
    }
    expect(result.targets).toHaveLength(4);
    expect(
      result.targets.every((target) => target.target.includes(`< ${DERIVE_TARGET_MS} ms`)),
    ).toBe(true);

    const table = deriveTables(result);
    expect(table).toContain('CPU ms');
    const rows = tableRows(table);
    expect(rows.map((row) => row.split(/ +/)[0])).toEqual(['glm4.vllm.jinja', 'hermes.vllm.jinja']);
    for (const row of rows) expect(row.match(/\b(PASS|MISS)\b/g)).toHaveLength(2);
    expect(table).toMatch(/glm4\.vllm\.jinja refused: the template renders no tool call/);
  }, 60_000);
});

describe('bench sections', () => {
  it('TOOLWIRE_BENCH takes families and derive', () => {
    expect(benchSelection('families')).toBe('families');
    expect(benchSelection(' Derive ')).toBe('derive');
  });
});
