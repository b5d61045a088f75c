/**
 * A call's own opening tag written without its block (`<invoke name="…">`, `<function=…>`,
 * `<function …>`) and then prose or the end of the output is a mention, not a call: before, a
 * tool with no required parameter ran with `{}` from `Use <function=ping> to check.`.
 */
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/index.ts';
import { autoProtocol } from '../../../src/protocols/auto/index.ts';
import { minimaxProtocol } from '../../../src/protocols/minimax/index.ts';
import { qwen3CoderProtocol } from '../../../src/protocols/qwen3-coder/index.ts';
import { seedOssProtocol } from '../../../src/protocols/seed-oss/index.ts';
import { callsIn, errorsIn, partsOf, textIn } from './json-format-checks.ts';

const ping: ToolDefinition = {
  name: 'ping',
  inputSchema: { type: 'object', properties: { host: { type: 'string' } } },
};

const CASES: readonly [string, ToolCallProtocol, readonly string[], string][] = [
  ['minimax', minimaxProtocol(), ['<invoke name="ping">'], '<invoke name="ping"></invoke>'],
  ['seed-oss', seedOssProtocol(), ['<function=ping>'], '<function=ping>\n</function>'],
  [
    'qwen3-coder',
    qwen3CoderProtocol(),
    ['<function=ping>', '<function ping>'],
    '<function ping>\n</function>',
  ],
];

describe('a bare opening tag in prose is a mention', () => {
  for (const [name, format, tags, call] of CASES) {
    for (const [readerName, reader] of [
      [name, format],
      ['auto', autoProtocol()],
    ] as const) {
      it(`${readerName} keeps ${tags.join(' and ')} followed by prose or the end as text`, () => {
        for (const tag of tags) {
          for (const text of [`Use ${tag} to check the host.`, `Call ${tag}`, `${tag} <b>x</b>`]) {
            const parts = partsOf(reader, text, { tools: [ping] });
            expect(callsIn(parts), text).toEqual([]);
            expect(errorsIn(parts), text).toEqual([]);
            expect(textIn(parts), text).toBe(text);
          }
        }
      });

      it(`${readerName} still runs a bare call closed by its own closer`, () => {
        const parts = partsOf(reader, `Now ${call}`, { tools: [ping] });
        expect(callsIn(parts)).toEqual([{ name: 'ping', input: {} }]);
        expect(textIn(parts)).toBe('Now ');
      });
    }
  }
});
