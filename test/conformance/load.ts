import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

const FIXTURES = new URL('../fixtures/conformance/', import.meta.url);

export function loadJson<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as T;
}

export function loadJsonLines<T>(name: string): T[] {
  return readFileSync(new URL(name, FIXTURES), 'utf8')
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => JSON.parse(line) as T);
}

/** Tallies matches, intentional deviations and failures per file, and prints them at the end. */
export class Tally {
  matches = 0;
  deviations = 0;
  failures: string[] = [];

  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  report(): string {
    return `${this.file}: ${this.matches} match, ${this.deviations} intentional deviation, ${this.failures.length} failure`;
  }
}

/**
 * Compares one case with the reference. A listed deviation must really deviate (a stale entry
 * fails); anything else must match. TOOLWIRE_CONFORMANCE_DUMP=1 prints failures as JSON lines.
 */
export function checkCase(
  tally: Tally,
  id: string,
  actual: unknown,
  expected: unknown,
  deviations: Readonly<Record<string, string>>,
): void {
  const deviation = deviations[id];
  if (deviation) {
    tally.deviations++;
    expect(actual, `listed as a deviation (${deviation}) but now matches`).not.toEqual(expected);
    return;
  }
  try {
    expect(actual).toEqual(expected);
    tally.matches++;
  } catch (error) {
    tally.failures.push(id);
    if (process.env.TOOLWIRE_CONFORMANCE_DUMP)
      console.log(JSON.stringify({ id, expected, actual }));
    throw error;
  }
}
