/**
 * Which sections `npm run bench` runs, and how a section run alone updates the results file:
 * `TOOLWIRE_BENCH=formats`, `floor`, `proxy`, `families`, `derive`, `grammar` or `store` runs that
 * one and replaces its key of bench/results.json, keeping the others as they were.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export const BENCH_SELECTIONS = [
  'all',
  'formats',
  'floor',
  'proxy',
  'families',
  'derive',
  'grammar',
  'store',
] as const;
export type BenchSelection = (typeof BENCH_SELECTIONS)[number];

/** The sections asked for: `all` unless `TOOLWIRE_BENCH` names one. */
export function benchSelection(value = process.env.TOOLWIRE_BENCH): BenchSelection {
  const selection = value?.trim().toLowerCase() || 'all';
  const known = BENCH_SELECTIONS.find((name) => name === selection);
  if (known) return known;
  throw new TypeError(
    `TOOLWIRE_BENCH must be ${BENCH_SELECTIONS.map((name) => `"${name}"`).join(', ')} or unset, not "${value}"`,
  );
}

/** The results file's text with `key` replaced by `value`, every other key kept. */
export function withSection(resultsJson: string | undefined, key: string, value: unknown): string {
  let results: Record<string, unknown> = {};
  if (resultsJson !== undefined) {
    const parsed: unknown = JSON.parse(resultsJson);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      results = parsed as Record<string, unknown>;
  }
  return `${JSON.stringify({ ...results, [key]: value }, null, 2)}\n`;
}

/** Replaces one section of the results file (creating the file when there is none). */
export function writeSection(resultsFile: URL, key: string, value: unknown): void {
  let previous: string | undefined;
  try {
    previous = readFileSync(resultsFile, 'utf8');
  } catch {
    previous = undefined;
  }
  writeFileSync(resultsFile, withSection(previous, key, value));
}

/** Names a section's failures on stderr and makes the bench exit with a failure. */
export function reportSectionFailures(section: string, failures: readonly string[]): void {
  if (failures.length === 0) return;
  console.error(`bench FAILED: ${failures.length} ${section} failure(s):`);
  for (const failure of failures) console.error(`  ${failure}`);
  process.exitCode = 1;
}

/**
 * `TOOLWIRE_BENCH=<key>`: one section alone, run in a process of its own, its tables printed,
 * its key of the results file replaced, its failures reported.
 */
export async function runSectionAlone<Result extends { readonly failures: readonly string[] }>(
  resultsFile: URL,
  key: string,
  run: () => Promise<Result>,
  tables: (result: Result) => string,
): Promise<void> {
  const result = await run();
  console.log(tables(result));
  writeSection(resultsFile, key, result);
  reportSectionFailures(key, result.failures);
}

/** One target of a section: what it asks, what was measured, whether that meets it. */
export interface BenchTarget {
  readonly target: string;
  readonly value: string;
  readonly pass: boolean;
}

/** `targets: N of M met`, then each target missed with its figure. */
export function targetLines(targets: readonly BenchTarget[]): string[] {
  const missed = targets.filter((target) => !target.pass);
  return [
    `   targets: ${targets.length - missed.length} of ${targets.length} met` +
      (missed.length > 0 ? '; missed:' : ''),
    ...missed.map((target) => `     ${target.target}: ${target.value}`),
  ];
}

/** `FAILED:` (or the heading given) and each failure; nothing when there is none. */
export function failureLines(failures: readonly string[], heading = 'FAILED:'): string[] {
  if (failures.length === 0) return [];
  return [`   ${heading}`, ...failures.map((failure) => `     ${failure}`)];
}
