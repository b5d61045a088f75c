import { readFileSync } from 'node:fs';

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
