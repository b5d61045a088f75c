/**
 * docs/grammars.md cannot rot: its table of grammars per format is what `grammarFor` gives today
 * (made by scripts/grammar-support.ts; `node scripts/grammar-support.ts --write` renews it), its
 * table of syntaxes names every syntax, and its `toolwire grammar` usage every flag the command
 * takes.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GRAMMARS_DOC,
  grammarSupportRows,
  grammarSupportTable,
  TABLE_END,
  TABLE_START,
  withTable,
} from '../../scripts/grammar-support.ts';
import { GRAMMAR_USAGE } from '../../src/cli/usage.ts';
import {
  FORMATS,
  GRAMMAR_SYNTAXES,
  GrammarUnsupportedError,
  grammarFor,
  type JsonSchema,
  protocolByName,
} from '../../src/index.ts';

const DOC = readFileSync(GRAMMARS_DOC, 'utf8');

/** The cells of a Markdown table's rows (header and rule left out), unescaped. */
function tableCells(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .slice(2)
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replaceAll('\\|', '|').replaceAll('&lt;', '<')),
    );
}

function generatedTable(doc: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  expect(start, 'the table start marker').toBeGreaterThan(-1);
  expect(end, 'the table end marker').toBeGreaterThan(start);
  return doc.slice(start + TABLE_START.length, end);
}

describe('docs/grammars.md', () => {
  const rows = grammarSupportRows();

  it("the table of grammars per format is grammarFor's (run: node scripts/grammar-support.ts --write)", () => {
    expect(tableCells(generatedTable(DOC))).toEqual(rows);
    expect(rows.map((row) => row[0])).toEqual(FORMATS.map((entry) => entry.name));
    // Byte for byte too, so the script's --write leaves the doc as it is.
    expect(withTable(DOC, grammarSupportTable(rows))).toBe(DOC);
  });

  it('the table says a missing syntax with its reason, and none without one', () => {
    for (const row of rows) {
      const missing = row.slice(1, -1).some((cell) => cell !== 'yes');
      expect(row.at(-1) !== '', row[0]).toBe(missing);
    }
  });

  it('names every syntax in the table of syntaxes', () => {
    const section = DOC.slice(DOC.indexOf('## The four syntaxes'), DOC.indexOf('## `grammarFor`'));
    const named = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => /^\| `([^`]+)`/.exec(line)?.[1]);
    expect(named).toEqual([...GRAMMAR_SYNTAXES]);
  });

  it("gives every flag of toolwire grammar's usage", () => {
    const usage = /```sh\n(toolwire grammar [^\n]*)\n```/.exec(DOC)?.[1];
    expect(usage).toBeDefined();
    const flags = (text: string) => [...new Set(text.match(/--[a-z][a-z-]*/g))].sort();
    expect(flags(usage!)).toEqual(flags(GRAMMAR_USAGE.split('\n\n')[0]!));
  });
});

/** A schema of one argument that uses the keyword, for each keyword the limits name. */
const KEYWORD_SAMPLES: Readonly<Record<string, JsonSchema>> = {
  type: { type: 'string' },
  enum: { enum: ['a', 'b'] },
  const: { const: 'a' },
  properties: { type: 'object', properties: { b: { type: 'string' } } },
  required: { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] },
  additionalProperties: {
    type: 'object',
    properties: { b: { type: 'string' } },
    additionalProperties: false,
  },
  items: { type: 'array', items: { type: 'integer' } },
  minItems: { type: 'array', items: { type: 'integer' }, minItems: 1 },
  maxItems: { type: 'array', items: { type: 'integer' }, maxItems: 3 },
  minLength: { type: 'string', minLength: 1 },
  maxLength: { type: 'string', maxLength: 8 },
  anyOf: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
  oneOf: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  minimum: { type: 'integer', minimum: 1 },
  description: { type: 'string', description: 'said' },
  title: { type: 'string', title: 'said' },
  default: { type: 'string', default: 'a' },
  pattern: { type: 'string', pattern: '^a' },
  format: { type: 'string', format: 'date' },
  maximum: { type: 'integer', maximum: 5 },
};

/** The keywords in backticks in `text`. */
const keywordsIn = (text: string) => [...text.matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]!);

function hermesGrammarOf(schema: JsonSchema): void {
  grammarFor(protocolByName('hermes'), {
    tools: [
      { name: 'f', inputSchema: { type: 'object', properties: { a: schema }, required: ['a'] } },
    ],
    toolChoice: 'required',
    syntax: 'gbnf',
  });
}

describe("docs/grammars.md's schema keywords", () => {
  const bullet = DOC.slice(DOC.indexOf('- **Schema keywords.**'), DOC.indexOf('The xml format\n'));
  const held = keywordsIn(bullet.slice(0, bullet.indexOf('Any other keyword')));
  const refused = keywordsIn(bullet.slice(bullet.indexOf('Any other keyword')));

  it('are held as it says', () => {
    expect(held.length).toBeGreaterThan(10);
    for (const keyword of held) {
      expect(KEYWORD_SAMPLES[keyword], `a sample schema for ${keyword}`).toBeDefined();
      expect(() => hermesGrammarOf(KEYWORD_SAMPLES[keyword]!), keyword).not.toThrow();
    }
  });

  it('are refused by name as it says', () => {
    expect(refused.length).toBeGreaterThan(0);
    for (const keyword of refused) {
      expect(KEYWORD_SAMPLES[keyword], `a sample schema for ${keyword}`).toBeDefined();
      let error: unknown;
      try {
        hermesGrammarOf(KEYWORD_SAMPLES[keyword]!);
      } catch (caught) {
        error = caught;
      }
      expect(GrammarUnsupportedError.isInstance(error), keyword).toBe(true);
      expect((error as Error).message).toContain(`"${keyword}"`);
      expect((error as Error).message).toContain('tool "f", argument a');
    }
  });

  it('refuses an integer minimum other than 0 or 1', () => {
    expect(() => hermesGrammarOf({ type: 'integer', minimum: 2 })).toThrow(/minimum/);
  });
});

describe('the table script', () => {
  it('escapes what would end a cell or open an HTML tag, and reads back the same', () => {
    const rows = [['a|b', 'yes', 'no', 'yes', 'no', 'its closer "<|end|>" is not read']];
    const table = grammarSupportTable(rows);
    expect(table).toContain('a\\|b');
    expect(table).toContain('"&lt;\\|end\\|>"');
    expect(tableCells(table)).toEqual(rows);
  });

  it('puts a table between the markers, and only there', () => {
    const doc = `intro\n${TABLE_START}\n\nold\n\n${TABLE_END}\nafter\n`;
    expect(withTable(doc, '| new |')).toBe(
      `intro\n${TABLE_START}\n\n| new |\n\n${TABLE_END}\nafter\n`,
    );
    expect(() => withTable('no markers', '| new |')).toThrow(/markers/);
  });
});
