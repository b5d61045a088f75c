/**
 * A bench section run alone (`TOOLWIRE_BENCH=<key>`): its tables printed, its key of the results
 * file replaced and the others kept, its failures reported with a failing exit code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { failureLines, runSectionAlone, targetLines } from '../../bench/sections.ts';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

function resultsFile(content: unknown): URL {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-sections-'));
  made.push(dir);
  const file = join(dir, 'results.json');
  writeFileSync(file, JSON.stringify(content));
  return pathToFileURL(file);
}

describe('runSectionAlone', () => {
  it('prints the tables and replaces its key only', async () => {
    const file = resultsFile({ floor: { kept: true }, families: { old: 1 } });
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    await runSectionAlone(
      file,
      'families',
      async () => ({ failures: [], figure: 2 }),
      (result) => `table ${result.figure}`,
    );
    expect(log).toHaveBeenCalledWith('table 2');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      floor: { kept: true },
      families: { failures: [], figure: 2 },
    });
    expect(process.exitCode).toBeUndefined();
  });

  it('reports failures and sets a failing exit code', async () => {
    const file = resultsFile({});
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    await runSectionAlone(
      file,
      'derive',
      async () => ({ failures: ['x missed'] }),
      () => '',
    );
    expect(errors.mock.calls.map((call) => call[0])).toEqual([
      'bench FAILED: 1 derive failure(s):',
      '  x missed',
    ]);
    expect(process.exitCode).toBe(1);
  });
});

describe('the summary lines every section prints', () => {
  it('counts the targets met and lists each one missed with its figure', () => {
    expect(
      targetLines([
        { target: 'whole ≥ 100 MB/s', value: '63 MB/s', pass: false },
        { target: '4 MiB < 4.5x', value: '3.9x', pass: true },
      ]),
    ).toEqual(['   targets: 1 of 2 met; missed:', '     whole ≥ 100 MB/s: 63 MB/s']);
    expect(targetLines([{ target: 't', value: 'v', pass: true }])).toEqual([
      '   targets: 1 of 1 met',
    ]);
  });

  it('lists failures under their heading, and nothing when there is none', () => {
    expect(failureLines([])).toEqual([]);
    expect(failureLines(['a'], 'FAILED (why):')).toEqual(['   FAILED (why):', '     a']);
  });
});
