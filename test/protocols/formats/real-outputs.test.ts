/**
 * Outputs from real runs and parser reports (test/fixtures/real-outputs/<family>.json, each row
 * with its provenance), read by their family's format and by `auto`, whole and at every split:
 * the calls, no fault, the text and the reasoning each row expects.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { autoProtocol } from '../../../src/protocols/auto/index.ts';
import { gptOssProtocol } from '../../../src/protocols/gpt-oss/index.ts';
import { hermesProtocol } from '../../../src/protocols/hermes/index.ts';
import { llama3Protocol } from '../../../src/protocols/llama3/index.ts';
import { callsIn, errorsIn, partsOf, reasoningIn, textIn } from './json-format-checks.ts';

interface Row {
  readonly id: string;
  readonly tools: readonly ToolDefinition[];
  readonly text: string;
  readonly calls: readonly { name: string; input: unknown }[];
  readonly textOut: string;
  readonly reasoning?: string;
}

function rowsOf(family: string): Row[] {
  const url = new URL(`../../fixtures/real-outputs/${family}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { rows: Row[] }).rows;
}

const FAMILIES: readonly [string, ToolCallProtocol][] = [
  ['hermes', hermesProtocol()],
  ['llama3', llama3Protocol()],
  ['gpt-oss', gptOssProtocol()],
];

describe.each(FAMILIES)('%s: real outputs', (family, format) => {
  const rows = rowsOf(family);
  for (const [readerName, reader] of [
    [family, format],
    ['auto', autoProtocol()],
  ] as const) {
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
