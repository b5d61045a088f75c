/**
 * Values as each codec writes them (value-syntax.ts, python-values.ts, dialect-values.ts),
 * checked with xgrammar: JSON that keeps a closer or a tag out of its strings, Python literals
 * and keyword arguments, a Gemma dialect's delimited strings; and character classes that both
 * parsers read alike.
 */
import { describe, expect, it } from 'vitest';
import type { JsonSchema, ToolDefinition } from '../../../src/index.ts';
import { dialectSyntax } from '../../../src/protocols/grammar/dialect-values.ts';
import { GrammarRules } from '../../../src/protocols/grammar/grammar-rules.ts';
import { type GbnfGrammar, grammarFor } from '../../../src/protocols/grammar/index.ts';
import { JsonValueRules } from '../../../src/protocols/grammar/json-value-rules.ts';
import { PYTHON_SYNTAX } from '../../../src/protocols/grammar/python-values.ts';
import { textExcluding } from '../../../src/protocols/grammar/text-excluding.ts';
import { jsonSyntax, type ValueSyntax } from '../../../src/protocols/grammar/value-syntax.ts';
import { FORMATS } from '../../../src/protocols/registry.ts';
import { disposedAfterAll } from '../../support/grammar-fixtures.ts';
import { accepts, compileEbnf, type EngineGrammar } from '../../support/xgrammar.ts';
import { gbnfProblems } from '../../support/xgrammar-gbnf-rules.ts';

const keep = disposedAfterAll();

function refuse(path: string, problem: string): never {
  throw new Error(`${path}: ${problem}`);
}

/** A grammar of one value under `schema`, written in `syntax`. */
async function valueGrammar(syntax: ValueSyntax, schema: JsonSchema): Promise<EngineGrammar> {
  const rules = new GrammarRules();
  const root = new JsonValueRules(rules, refuse, syntax).value(schema, 'value', 'value');
  const text = rules.render(root);
  expect(gbnfProblems(text)).toEqual([]);
  return keep(compileEbnf(text));
}

function protocolNamed(name: string) {
  const entry = FORMATS.find((one) => one.name === name);
  if (!entry) throw new Error(`no format ${name}`);
  return entry.create();
}

describe('JSON that keeps a literal out of its strings', () => {
  it('no string holds the closer as written; escaped, or cut short, it may', async () => {
    const grammar = await valueGrammar(jsonSyntax({ excluding: ['[/TOOL_CALL]'] }), {
      type: 'array',
      items: { type: 'string' },
    });
    for (const good of ['["[/TOOL_CAL]"]', '["[\\/TOOL_CALL]"]', '["[[/TOOL_CALL"]', '["a\\"b"]'])
      expect(await accepts(grammar, good), good).toBe(true);
    for (const bad of ['["[/TOOL_CALL]"]', '["x[/TOOL_CALL]y"]', '["[[/TOOL_CALL]"]'])
      expect(await accepts(grammar, bad), bad).toBe(false);
  });

  it('a string with length bounds is refused there, and so is a const holding the closer', () => {
    const rules = new GrammarRules();
    const values = new JsonValueRules(rules, refuse, jsonSyntax({ excluding: ['[/X]'] }));
    expect(() => values.value({ type: 'string', maxLength: 3 }, 'v', 'v')).toThrow(/length bounds/);
    expect(() => values.value({ const: 'a[/X]' }, 'v', 'v')).toThrow(/cannot be written/);
  });

  it("the arrow form's grammar refuses a call whose string holds [/TOOL_CALL]", async () => {
    const protocol = protocolNamed('arrow-calls');
    const tools: ToolDefinition[] = [
      { name: 'say', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    ];
    const { grammar } = grammarFor(protocol, {
      tools,
      toolChoice: 'required',
      syntax: 'gbnf',
    }) as GbnfGrammar;
    const engine = await keep(compileEbnf(grammar));
    const write = (text: string) => protocol.formatToolCall([{ toolName: 'say', input: { text } }]);
    expect(await accepts(engine, write('a [TOOL_CALL] b'))).toBe(true);
    expect(await accepts(engine, write('a [/TOOL_CALL] b'))).toBe(false);
  });
});

it('an integer has at most 15 digits, so it is a safe one whatever reads it', async () => {
  const grammar = await valueGrammar(jsonSyntax(), { type: 'array', items: { type: 'integer' } });
  expect(await accepts(grammar, '[123456789012345, -999999999999999]')).toBe(true);
  expect(await accepts(grammar, '[1234567890123456]')).toBe(false);
  expect(await accepts(grammar, '[606657323029142364760]')).toBe(false);
  // A number keeps JSON.stringify's 21 digits before the point (1.2345678901234568e20).
  const numbers = await valueGrammar(jsonSyntax(), { type: 'array', items: { type: 'number' } });
  expect(await accepts(numbers, `[${JSON.stringify(1.2345678901234568e20)}]`)).toBe(true);
});

describe('JSON inside markup', () => {
  it('holds a < only as \\u003c, in strings and in constants', async () => {
    const grammar = await valueGrammar(jsonSyntax({ markup: true }), {
      type: 'object',
      properties: { tag: { const: 'a<b' }, text: { type: 'string' } },
    });
    expect(await accepts(grammar, '{"tag": "a\\u003cb"}')).toBe(true);
    expect(await accepts(grammar, '{"tag": "a<b"}')).toBe(false);
    expect(await accepts(grammar, '{"text": "x\\u003c/p>"}')).toBe(true);
    expect(await accepts(grammar, '{"text": "x</p>"}')).toBe(false);
  });
});

describe('Python literals', () => {
  it('strings in double quotes with the writer escapes, True/False/None, lists and dicts', async () => {
    const grammar = await valueGrammar(PYTHON_SYNTAX, {
      type: 'object',
      properties: {
        text: { type: 'string' },
        flag: { type: ['boolean', 'null'] },
        list: { type: 'array', items: { type: 'integer' } },
      },
      required: ['text'],
    });
    for (const good of [
      '{"text": "a\\"b\\\\c\\n\\x01\\u00e9"}',
      '{"text": "é", "flag": None}',
      '{"text": "", "flag": True, "list": [1, -2]}',
    ])
      expect(await accepts(grammar, good), good).toBe(true);
    for (const bad of [
      "{'text': 'a'}",
      '{"text": "a\nb"}',
      '{"text": "a", "flag": true}',
      '{"text":"a"}',
      '{"text": "\\ud800"}',
    ])
      expect(await accepts(grammar, bad), bad).toBe(false);
  });

  it('a keyword argument that is no Python name is refused', () => {
    const tools: ToolDefinition[] = [
      {
        name: 'f',
        inputSchema: { type: 'object', properties: { 'not-a-name': { type: 'string' } } },
      },
    ];
    expect(() =>
      grammarFor(protocolNamed('pythonic'), { tools, toolChoice: 'required', syntax: 'gbnf' }),
    ).toThrow(
      /no grammar for format "pythonic": tool "f", argument not-a-name: a keyword argument/,
    );
  });
});

describe('a Gemma dialect', () => {
  const gemma = dialectSyntax({
    codec: 'dialect',
    open: '<|tool_call>',
    stringDelimiters: ['<|"|>', '<|"|>'],
    quotedStrings: true,
  });
  const functionGemma = dialectSyntax({
    codec: 'dialect',
    open: '<start_function_call>',
    stringDelimiters: ['<escape>', '<escape>'],
  });

  it('a string ends at its first closing delimiter; JSON strings only where the form reads them', async () => {
    const schema: JsonSchema = { type: 'object', properties: { s: { type: 'string' } } };
    const quoted = await valueGrammar(gemma, schema);
    expect(await accepts(quoted, '{s:<|"|>a<|"b<|"|>}')).toBe(true);
    expect(await accepts(quoted, '{s:"a<|\\"|>"}')).toBe(true);
    expect(await accepts(quoted, '{s:<|"|>a<|"|>b<|"|>}')).toBe(false);
    const plain = await valueGrammar(functionGemma, schema);
    expect(await accepts(plain, '{s:<escape>a<escape>}')).toBe(true);
    expect(await accepts(plain, '{s:"a"}')).toBe(false);
    expect(await accepts(plain, '{s:<escape>a<escape>b<escape>}')).toBe(false);
  });

  it('keys are bare where they are names, and any key of a map may be either', async () => {
    const grammar = await valueGrammar(functionGemma, {
      type: 'object',
      properties: { 'two words': { type: 'integer' }, map: { type: 'object' } },
    });
    expect(await accepts(grammar, '{<escape>two words<escape>:1}')).toBe(true);
    expect(await accepts(grammar, '{two words:1}')).toBe(false);
    expect(await accepts(grammar, '{map:{a.b:true,<escape>x y<escape>:null}}')).toBe(true);
  });

  it('a string with length bounds is refused', () => {
    const values = new JsonValueRules(new GrammarRules(), refuse, functionGemma);
    expect(() => values.value({ type: 'string', minLength: 1 }, 'v', 'v')).toThrow(/length bounds/);
  });
});

it('a character class never puts \\xHH before a hex digit (xgrammar would read \\x01A as one escape)', async () => {
  const rules = new GrammarRules();
  const text = textExcluding(rules, 'text', ['\u0001', 'A'], '');
  const grammar = await keep(compileEbnf(rules.render(text)));
  expect(await accepts(grammar, 'xyz\u001a')).toBe(true);
  expect(await accepts(grammar, 'xA')).toBe(false);
  expect(await accepts(grammar, 'x\u0001')).toBe(false);
});
