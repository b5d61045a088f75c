/**
 * hermes outputs from real runs and parser reports (test/fixtures/real-outputs/hermes.json, each row
 * with its provenance), read by `hermes` and by `auto`, whole and at every split.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { autoProtocol } from '../../../src/protocols/auto/index.ts';
import { hermesProtocol } from '../../../src/protocols/hermes/index.ts';
import { callsIn, errorsIn, partsOf, reasoningIn, textIn } from './json-format-checks.ts';

interface Row {
  readonly id: string;
  readonly tools: readonly ToolDefinition[];
  readonly text: string;
  readonly calls: readonly { name: string; input: unknown }[];
  readonly textOut: string;
  readonly reasoning?: string;
}

const { rows } = JSON.parse(
  readFileSync(new URL('../../fixtures/real-outputs/hermes.json', import.meta.url), 'utf8'),
) as { rows: Row[] };

const READERS: readonly [string, ToolCallProtocol][] = [
  ['hermes', hermesProtocol()],
  ['auto', autoProtocol()],
];

describe('hermes: real outputs', () => {
  for (const [readerName, reader] of READERS) {
    for (const row of rows) {
      it(`${readerName} reads ${row.id}`, () => {
        const parts = partsOf(reader, row.text, { tools: row.tools });
        expect(callsIn(parts)).toEqual(row.calls);
        expect(errorsIn(parts)).toEqual([]);
        expect(textIn(parts)).toBe(row.textOut);
        expect(reasoningIn(parts)).toBe(row.reasoning ?? '');
      });
    }
  }
});
