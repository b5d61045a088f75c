/**
 * DeepSeek V4's DSML: V3.2's invoke and parameter tags in a block renamed from
 * `<｜DSML｜function_calls>` to `<｜DSML｜tool_calls>`. The outputs are in
 * test/fixtures/real-outputs/deepseek.json, each with its provenance (two quoted from real runs).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { autoProtocol } from '../../../src/protocols/auto/index.ts';
import { deepseekFormat, deepseekProtocol } from '../../../src/protocols/deepseek/index.ts';
import {
  callsIn,
  errorsIn,
  itIsChunkInvariantOnItsMarkup,
  partsOf,
  reasoningIn,
  TOOLS,
  textIn,
} from './json-format-checks.ts';

interface Row {
  readonly id: string;
  readonly provenance: string;
  readonly tools: readonly ToolDefinition[];
  readonly text: string;
  readonly calls: readonly { name: string; input: unknown }[];
  readonly reasoning?: string;
  readonly textOut: string;
}

const { rows } = JSON.parse(
  readFileSync(new URL('../../fixtures/real-outputs/deepseek.json', import.meta.url), 'utf8'),
) as { rows: Row[] };

const READERS: readonly [string, ToolCallProtocol][] = [
  ['deepseek', deepseekProtocol()],
  ['deepseek v3.2', deepseekProtocol({ version: 'v3.2' })],
  ['auto', autoProtocol()],
];

const DSML = '｜DSML｜';

describe('deepseek V4 DSML (<｜DSML｜tool_calls>)', () => {
  it('has at least 8 outputs, two of them from real runs', () => {
    expect(rows.length).toBeGreaterThanOrEqual(8);
    expect(rows.filter((row) => (row as { real?: boolean }).real).length).toBeGreaterThanOrEqual(2);
  });

  for (const [readerName, reader] of READERS) {
    for (const row of rows) {
      it(`${readerName} reads ${row.id}, streamed at every split`, () => {
        const parts = partsOf(reader, row.text, { tools: row.tools });
        expect(errorsIn(parts)).toEqual([]);
        expect(callsIn(parts)).toEqual(row.calls);
        expect(textIn(parts)).toBe(row.textOut);
        expect(reasoningIn(parts)).toBe(row.reasoning ?? '');
      });
    }
  }

  it('still reads the V3.2 block, and each block only up to its own closer', () => {
    const invoke = `<${DSML}invoke name="get_weather">\n<${DSML}parameter name="city" string="true">Oslo</${DSML}parameter>\n</${DSML}invoke>`;
    for (const block of ['function_calls', 'tool_calls']) {
      const parts = partsOf(
        deepseekProtocol(),
        `A<${DSML}${block}>\n${invoke}\n</${DSML}${block}>B`,
      );
      expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
      expect(textIn(parts)).toBe('AB');
    }
  });

  it('reports a V4 block cut off inside a value and never runs it', () => {
    for (const [, reader] of READERS) {
      const cut = partsOf(
        reader,
        `<${DSML}tool_calls>\n<${DSML}invoke name="write_file">\n<${DSML}parameter name="path" string="true">a.txt</${DSML}parameter>\n<${DSML}parameter name="content" string="true">hel`,
      );
      expect(callsIn(cut)).toEqual([]);
      expect(errorsIn(cut).map((error) => error.code)).toEqual(['incomplete-call']);
      expect(errorsIn(cut)[0]!.raw).toContain('<｜DSML｜tool_calls>');
    }
  });

  it('drops and reports a parameter closer written twice, never merging it into the value', () => {
    const text = `<${DSML}tool_calls>\n<${DSML}invoke name="write_file">\n<${DSML}parameter name="path" string="true">a.txt</${DSML}parameter></${DSML}parameter>\n<${DSML}parameter name="content" string="true">hi</${DSML}parameter>\n</${DSML}invoke>\n</${DSML}tool_calls>`;
    for (const [, reader] of READERS) {
      const parts = partsOf(reader, text);
      expect(callsIn(parts)).toEqual([
        { name: 'write_file', input: { path: 'a.txt', content: 'hi' } },
      ]);
      expect(errorsIn(parts).map((error) => [error.code, error.raw])).toEqual([
        ['stray-markup', `</${DSML}parameter>`],
      ]);
    }
  });

  it('keeps an undeclared tool and a block with no invoke as text', () => {
    for (const [, reader] of READERS) {
      const unknown = `<${DSML}tool_calls>\n<${DSML}invoke name="launch">\n</${DSML}invoke>\n</${DSML}tool_calls>`;
      const parts = partsOf(reader, unknown);
      expect(callsIn(parts)).toEqual([]);
      expect(textIn(parts)).toBe(unknown);
      const prose = `The block opens with <${DSML}tool_calls> and then the calls.`;
      expect(textIn(partsOf(reader, prose))).toBe(prose);
    }
  });

  it('names the tools of a V4 block for the agent’s feedback', () => {
    const text = `<${DSML}tool_calls>\n<${DSML}invoke name="fly">\n</${DSML}invoke>\n</${DSML}tool_calls><|DSML|function_calls><|DSML|invoke name="swim"></|DSML|invoke></|DSML|function_calls>`;
    expect(deepseekFormat.toolNamesIn?.(text)).toEqual(['fly', 'swim']);
  });

  itIsChunkInvariantOnItsMarkup(
    deepseekProtocol(),
    [
      `<${DSML}tool_calls>`,
      `</${DSML}tool_calls>`,
      `<${DSML}function_calls>`,
      `</${DSML}function_calls>`,
      `<${DSML}invoke name="get_weather">`,
      `</${DSML}invoke>`,
      `<${DSML}parameter name="city" string="true">`,
      `<${DSML}parameter name="days" string="false">`,
      `</${DSML}parameter>`,
      '<|DSML|tool_calls>',
      `<${DSML}tool`,
    ],
    TOOLS,
  );
});

// vLLM's tests/parser/engine/test_deepseek_v41.py (its CALLS output) and SGLang's
// DeepSeekV41Detector: V4.1 names the block ` calls` and puts a space before every tag name.
describe('deepseek V4.1 DSML (<｜DSML｜ calls>, spaced tag names)', () => {
  const tools: ToolDefinition[] = [
    {
      name: 'get_weather',
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, count: { type: 'integer' } },
      },
    },
    {
      name: 'add',
      inputSchema: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } },
    },
  ];
  const calls =
    '\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name="get_weather">\n' +
    '<｜DSML｜ parameter name="city" string="true">杭州</｜DSML｜ parameter>\n' +
    '<｜DSML｜ parameter name="count" string="false">42</｜DSML｜ parameter>\n' +
    '</｜DSML｜ invoke>\n<｜DSML｜ invoke name="add">\n' +
    '<｜DSML｜ parameter name="x" string="false">1.5</｜DSML｜ parameter>\n' +
    '<｜DSML｜ parameter name="y" string="false">2.25</｜DSML｜ parameter>\n' +
    '</｜DSML｜ invoke>\n</｜DSML｜ calls>';

  for (const [readerName, reader] of READERS)
    it(`${readerName} reads its calls, streamed at every split, the block gone from the text`, () => {
      const parts = partsOf(reader, `Checking.${calls}`, { tools });
      expect(errorsIn(parts)).toEqual([]);
      expect(callsIn(parts)).toEqual([
        { name: 'get_weather', input: { city: '杭州', count: 42 } },
        { name: 'add', input: { x: 1.5, y: 2.25 } },
      ]);
      expect(textIn(parts)).toBe('Checking.\n\n');
    });

  it('is chosen for deepseek-v4.1 model names', () => {
    expect(deepseekFormat.models.some((pattern) => pattern.test('deepseek-ai/deepseek-v4.1'))).toBe(
      true,
    );
  });
});
