/**
 * GLM outputs from real runs and parser reports (test/fixtures/real-outputs/glm.json, each row
 * with its provenance), read by `glm` and by `auto`, whole and at every split.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { autoProtocol } from '../../../src/protocols/auto/index.ts';
import { glmProtocol } from '../../../src/protocols/glm/index.ts';
import { callsIn, errorsIn, partsOf, textIn } from './json-format-checks.ts';

interface Row {
  readonly id: string;
  readonly tools: readonly ToolDefinition[];
  readonly text: string;
  readonly calls: readonly { name: string; input: unknown }[];
  readonly errors: readonly string[];
}

const { rows } = JSON.parse(
  readFileSync(new URL('../../fixtures/real-outputs/glm.json', import.meta.url), 'utf8'),
) as { rows: Row[] };

const READERS: readonly [string, ToolCallProtocol][] = [
  ['glm', glmProtocol()],
  ['auto', autoProtocol()],
];

describe('glm: real outputs', () => {
  for (const [readerName, reader] of READERS) {
    for (const row of rows) {
      it(`${readerName} reads ${row.id}`, () => {
        const parts = partsOf(reader, row.text, { tools: row.tools });
        expect(callsIn(parts)).toEqual(row.calls);
        const errors = errorsIn(parts);
        expect(errors.map((error) => error.code)).toEqual(row.errors);
        // A reported call keeps its raw text, which also stays text (nothing is lost).
        for (const error of errors) expect(row.text).toContain(error.raw);
        if (errors.some((error) => !error.dropped)) expect(textIn(parts)).toBe(row.text);
      });
    }
  }
});
