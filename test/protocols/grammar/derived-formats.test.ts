/**
 * Grammars for formats derived from a model's own chat template (`--chat-template`), as for
 * built-in ones: every template in test/fixtures/chat-templates that derives a format gets a
 * GBNF grammar (or says why not), the engine accepts the call the derived format writes, and
 * what a random walk of the grammar writes, the derived parser reads as valid calls.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { grammarCommand } from '../../../src/cli/grammar-command.ts';
import type { ToolCallProtocol } from '../../../src/index.ts';
import { protocolFromChatTemplate } from '../../../src/protocols/derive/chat-template.ts';
import { type GbnfGrammar, grammarFor } from '../../../src/protocols/grammar/index.ts';
import { closersOf, toolWith } from '../../support/grammar-fixtures.ts';
import { accepts, compileEbnf, randomWalk, seededRandom } from '../../support/xgrammar.ts';

const FOLDER = new URL('../../fixtures/chat-templates/', import.meta.url);
/**
 * Values from short lists, so a random walk ends soon (a byte-level walk rarely closes a free
 * string; the built-in formats' tests walk free strings with the format's closers as hints).
 */
const TOOLS = [
  toolWith(
    {
      type: 'object',
      properties: { city: { enum: ['Oslo', 'Lima'] }, days: { type: 'integer', minimum: 1 } },
      required: ['city'],
    },
    'get_weather',
  ),
  toolWith(
    {
      type: 'object',
      properties: { query: { enum: ['news', 'maps'] }, exact: { type: 'boolean' } },
      required: ['query'],
    },
    'search',
  ),
];

/** The templates that derive a format, with it. */
const DERIVED = readdirSync(FOLDER)
  .filter((name) => name.endsWith('.jinja'))
  .flatMap((name): [string, ToolCallProtocol][] => {
    try {
      return [[name, protocolFromChatTemplate(readFileSync(new URL(name, FOLDER), 'utf8'))]];
    } catch {
      return [];
    }
  });

function gbnfOf(protocol: ToolCallProtocol): GbnfGrammar | Error {
  try {
    return grammarFor(protocol, {
      tools: TOOLS,
      toolChoice: 'required',
      syntax: 'gbnf',
    }) as GbnfGrammar;
  } catch (error) {
    return error as Error;
  }
}

describe('grammars for formats derived from chat templates', () => {
  it('most templates derive a format, and every derived format gets a GBNF grammar', () => {
    expect(DERIVED.length).toBeGreaterThanOrEqual(20);
    const refused = DERIVED.flatMap(([name, protocol]) => {
      const grammar = gbnfOf(protocol);
      return grammar instanceof Error ? [`${name}: ${grammar.message}`] : [];
    });
    expect(refused).toEqual([]);
  });

  it.each(DERIVED)(
    '%s: the written call is accepted, and random walks read back as valid calls',
    async (_name, protocol) => {
      const grammar = gbnfOf(protocol);
      if (grammar instanceof Error) throw grammar;
      const compiled = await compileEbnf(grammar.grammar);
      try {
        const written = protocol.formatToolCall([
          { toolName: 'get_weather', input: { city: 'Oslo', days: 3 } },
        ]);
        expect(await accepts(compiled, written)).toBe(true);
        expect(await accepts(compiled, 'No call here.')).toBe(false);
        const random = seededRandom(7);
        let read = 0;
        for (let walk = 0; walk < 12; walk++) {
          const text = await randomWalk(compiled, random, {
            maxBytes: 2500,
            // A derived format may keep the default reasoning tags, which closersOf does not list.
            hints: [...closersOf(protocol), '</think>', '</thinking>'],
          });
          if (text === undefined) continue;
          const events = protocol.parseGeneratedText(text, { tools: TOOLS });
          expect(
            events.filter((event) => event.type === 'error'),
            text,
          ).toEqual([]);
          const calls = events.filter((event) => event.type === 'tool-call');
          expect(calls.length, text).toBeGreaterThan(0);
          for (const call of calls) {
            if (call.type !== 'tool-call') continue;
            expect(['get_weather', 'search'], text).toContain(call.toolName);
            // The parser checks the input against the tool's schema: no problems, valid.
            expect(call.problems, text).toBeUndefined();
          }
          read++;
        }
        expect(read).toBeGreaterThan(4);
      } finally {
        compiled.dispose();
      }
    },
  );
});

describe('toolwire grammar --chat-template', () => {
  it('prints the GBNF of the format a template derives, which accepts that format’s call', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'toolwire-derived-grammar-'));
    const toolsFile = join(folder, 'tools.json');
    writeFileSync(toolsFile, JSON.stringify(TOOLS));
    const template = fileURLToPath(new URL('qwen3-coder.vllm.jinja', FOLDER));
    let out = '';
    const status = await grammarCommand(
      [
        '--tools',
        toolsFile,
        '--chat-template',
        template,
        '--tool-choice',
        'required',
        '--syntax',
        'gbnf',
      ],
      {
        write: (text) => {
          out += text;
        },
      },
      { write: () => {} },
    );
    expect(status).toBe(0);
    const protocol = protocolFromChatTemplate(readFileSync(template, 'utf8'));
    const compiled = await compileEbnf(out);
    try {
      const written = protocol.formatToolCall([{ toolName: 'search', input: { query: 'maps' } }]);
      expect(written).toContain('<function=search>');
      expect(await accepts(compiled, written)).toBe(true);
    } finally {
      compiled.dispose();
    }
  });
});
