/**
 * Qwen3-Coder family near misses (test/fixtures/real-outputs/qwen3-coder.json, each row
 * with its provenance), read by `qwen3-coder` and by `auto`, whole and at every split.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { autoProtocol } from '../../../src/protocols/auto/index.ts';
import { qwen3CoderProtocol } from '../../../src/protocols/qwen3-coder/index.ts';
import { callsIn, errorsIn, partsOf, textIn } from './json-format-checks.ts';

interface Row {
  readonly id: string;
  readonly tools: readonly ToolDefinition[];
  readonly text: string;
  readonly calls: readonly { name: string; input: unknown }[];
  readonly errors: readonly string[];
  /** The faults through `auto` where they differ (another format reads the same opener). */
  readonly autoErrors?: readonly string[];
  readonly textOut: string;
}

const { rows } = JSON.parse(
  readFileSync(new URL('../../fixtures/real-outputs/qwen3-coder.json', import.meta.url), 'utf8'),
) as { rows: Row[] };

const READERS: readonly [string, ToolCallProtocol][] = [
  ['qwen3-coder', qwen3CoderProtocol()],
  ['auto', autoProtocol()],
];

describe('qwen3-coder: near misses of real outputs', () => {
  for (const [readerName, reader] of READERS) {
    for (const row of rows) {
      it(`${readerName} reads ${row.id}`, () => {
        const parts = partsOf(reader, row.text, { tools: row.tools });
        expect(callsIn(parts)).toEqual(row.calls);
        const errors = errorsIn(parts);
        const expected = readerName === 'auto' ? (row.autoErrors ?? row.errors) : row.errors;
        expect(errors.map((error) => error.code)).toEqual(expected);
        // A reported call keeps its raw text, which also stays text (nothing is lost).
        for (const error of errors) expect(row.text).toContain(error.raw);
        expect(textIn(parts)).toBe(row.textOut);
      });
    }
  }
});
