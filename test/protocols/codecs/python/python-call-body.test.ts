/**
 * The Python-call reader (src/protocols/codecs/python/python-call-body.ts and python-call-values.ts),
 * through the pythonic protocol: literals, keyword arguments, speculation on bare lists, faults,
 * cut-off calls, chunk invariance and linear time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../../src/core/parse-json.ts';
import type { ParseEvent, ToolDefinition } from '../../../../src/index.ts';
import {
  pythonLiteral,
  pythonString,
} from '../../../../src/protocols/codecs/python/python-call-format.ts';
import { pythonicProtocol } from '../../../../src/protocols/pythonic/index.ts';
import { expectLinearGrowth } from '../../../support/growth.ts';
import {
  callsOf,
  contentAtEverySplit,
  counterIds,
  searchTool,
  streamingViolations,
  TOOLS,
  textOf,
} from '../../helpers.ts';

const pythonic = pythonicProtocol();
const anyTool: ToolDefinition = { name: 'f', inputSchema: { type: 'object' } };
const tools = [...TOOLS, anyTool];
const options = { tools };

function literalValue(literal: string): unknown {
  const calls = callsOf(pythonic, `[f(x=${literal})]`, tools);
  expect(calls).toHaveLength(1);
  return (calls[0]!.input as { x: unknown }).x;
}

describe('Python literals', () => {
  it.each([
    ["'single'", 'single'],
    ['"double"', 'double'],
    ["'''triple ' '' quoted'''", "triple ' '' quoted"],
    ['"""a\n"b"\n"""', 'a\n"b"\n'],
    ["''", ''],
    ['""""""', ''],
    ["'it\\'s'", "it's"],
    ['"tab\\tnew\\nline\\\\ \\x41\\u00e9\\U0001F600\\101\\0"', 'tab\tnew\nline\\ Aé😀A\0'],
    ["'unknown \\d escape'", 'unknown \\d escape'],
    ["r'raw \\n \\''", "raw \\n \\'"],
    ['\'joined\' "strings"', 'joinedstrings'],
    ["'line \\\ncontinued'", 'line continued'],
    ['42', 42],
    ['-3.5e2', -350],
    ['1_000', 1000],
    ['0x1F', 31],
    ['.5', 0.5],
    ['True', true],
    ['False', false],
    ['None', null],
    ['true', true],
    ['null', null],
    ['[1, [2, "three"], ]', [1, [2, 'three']]],
    ['(1, 2)', [1, 2]],
    ['()', []],
    ["{'k': {'n': None}, \"j\": [True]}", { k: { n: null }, j: [true] }],
    ['{1: "one"}', { '1': 'one' }],
    ['{}', {}],
  ])('%s', (literal, expected) => {
    expect(literalValue(literal)).toEqual(expected);
  });

  it('reads every literal the formatter writes back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, text) => {
        expect(literalValue(pythonLiteral(value))).toEqual(parseJsonText(JSON.stringify(value)));
        expect(literalValue(pythonString(text))).toEqual(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe('calls', () => {
  it('reads keyword arguments typed by the schema and validated', () => {
    expect(callsOf(pythonic, "[get_weather(city='Oslo', days='3')]", tools)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo', days: 3 } },
    ]);
    const [call] = callsOf(pythonic, '[get_weather(days=2)]', tools);
    expect(call!.problems?.[0]).toMatchObject({ keyword: 'required' });
  });

  it('streams tool-input-start once the call begins, and the arguments as JSON deltas', () => {
    const parser = pythonic.createStreamParser({ tools, generateId: counterIds() });
    const first = parser.push('[get_weather(city="Os');
    expect(first.filter((event) => event.type === 'tool-input-start')).toHaveLength(1);
    const events: ParseEvent[] = [...first, ...parser.push('lo")]'), ...parser.end()];
    expect(streamingViolations(events)).toEqual([]);
    const deltas = events.flatMap((event) =>
      event.type === 'tool-input-delta' ? [event.delta] : [],
    );
    expect(deltas.join('')).toBe('{"city":"Oslo"}');
  });

  it('reads several calls, with or without spaces, and names with dots or hyphens', () => {
    const dotted: ToolDefinition = { name: 'web.search-v2', inputSchema: { type: 'object' } };
    expect(
      callsOf(pythonic, "[get_weather(city='A'),web.search-v2(q=1) , f()]", [...tools, dotted]).map(
        (call) => call.toolName,
      ),
    ).toEqual(['get_weather', 'web.search-v2', 'f']);
  });

  it('keeps text around a list, and the same content at every split', () => {
    const content = contentAtEverySplit(
      pythonic,
      "Sure. [get_weather(city='Oslo'), search(query=\"x\", tags=('a', 'b'))] Done.",
      options,
    );
    expect(content).toEqual([
      { type: 'text', text: 'Sure. ' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
      { type: 'tool-call', toolName: 'search', input: '{"query":"x","tags":["a","b"]}' },
      { type: 'text', text: ' Done.' },
    ]);
  });
});

describe('speculative bare lists', () => {
  it.each([
    '[special delivery]',
    '[1, 2]',
    '[]',
    'see [the docs](https://example.com)',
    '[unknown_tool(x=1)]',
    '[get_weather is a tool]',
    '[get_weather(1)]',
    '[[nested]]',
  ])('%s stays text, nothing lost', (text) => {
    const content = contentAtEverySplit(pythonic, text, options) as {
      type: string;
      text: string;
    }[];
    expect(content.every((part) => part.type === 'text')).toBe(true);
    expect(content.map((part) => part.text).join('')).toBe(text);
  });

  it('a call to an undeclared tool in a list of calls stays text', () => {
    const content = contentAtEverySplit(
      pythonic,
      "[unknown(x=1), get_weather(city='Oslo')]",
      options,
    );
    expect(content).toEqual([
      { type: 'text', text: 'unknown(x=1)' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
    ]);
  });

  it('a list left open ends with its last call; the text after it is text', () => {
    expect(textOf(pythonic, "[get_weather(city='Oslo') and then", tools)).toBe(' and then');
  });
});

describe('faults', () => {
  it('a positional argument is a malformed call reported with its raw text', () => {
    const content = contentAtEverySplit(pythonic, "<|python_start|>[get_weather('Oslo')]", options);
    expect(content[0]).toMatchObject({
      type: 'error',
      error: { code: 'malformed-call', raw: '<|python_start|>[get_weather(' },
    });
    expect(content).not.toContainEqual(expect.objectContaining({ type: 'tool-call' }));
  });

  it('a broken value after the call began is a fault; calls before it stand', () => {
    // A word is a string only where the property admits strings (see "bare values"): not here.
    const content = contentAtEverySplit(
      pythonic,
      "[get_weather(city='Oslo'), search(query='x', allow_tests=unquoted)]",
      options,
    );
    expect(content[0]).toMatchObject({ type: 'tool-call', toolName: 'get_weather' });
    expect(content[1]).toMatchObject({ type: 'error', error: { code: 'malformed-call' } });
    expect((content[1] as { error: { raw: string } }).error.raw).toContain('search(query=');
  });

  it('a value JSON cannot hold (bytes, an infinite number) faults that call only', () => {
    const content = contentAtEverySplit(
      pythonic,
      "[search(query=b'z'), f(x=1e999), get_weather(city='Oslo')]",
      options,
    );
    expect(content.map((part) => (part as { type: string }).type)).toEqual([
      'error',
      'text',
      'error',
      'text',
      'tool-call',
    ]);
  });

  it('nesting deeper than maxDepth is a too-deep fault', () => {
    const content = pythonic.parseGeneratedText(`[f(x=${'['.repeat(10)}${']'.repeat(10)})]`, {
      tools,
      maxDepth: 5,
    });
    expect(content[0]).toMatchObject({ type: 'error', error: { code: 'too-deep' } });
  });
});

describe('cut-off calls', () => {
  it('never runs a call cut inside its arguments', () => {
    for (const text of ["[get_weather(city='Os", "<|python_start|>[get_weather(city='Oslo'"]) {
      const content = contentAtEverySplit(pythonic, text, options);
      expect(content).not.toContainEqual(expect.objectContaining({ type: 'tool-call' }));
      expect(content[0]).toMatchObject({
        type: 'error',
        error: { code: 'incomplete-call', raw: text },
      });
    }
  });

  it('completes a call when only the closing markup is missing', () => {
    expect(callsOf(pythonic, "<|python_start|>[get_weather(city='Oslo')", tools)).toHaveLength(1);
    expect(callsOf(pythonic, "[get_weather(city='Oslo')", tools)).toHaveLength(1);
  });

  it('a cut-off bare list that had not begun a call is text', () => {
    expect(contentAtEverySplit(pythonic, '[get_weath', options)).toEqual([
      { type: 'text', text: '[get_weath' },
    ]);
  });
});

describe('linear time', () => {
  const parse = (text: string) => pythonic.parseGeneratedText(text, { tools });

  it('a long argument, and many openers, take time proportional to their size', () => {
    const argument = (size: number) => `[f(x="${'a\\n\\"'.repeat(size / 6)}")]`;
    const openers = (count: number) => '[x '.repeat(count);
    expectLinearGrowth(argument, parse, 1 << 15);
    expectLinearGrowth(openers, parse, 2_000);
  });

  it('reads surrogate pairs and escapes cut anywhere as it reads them whole', () => {
    const text = `[search(query="${'é😀\\\\\\u00e9'.repeat(20)}", options={'depth': '2'})]`;
    expect(contentAtEverySplit(pythonic, text, options)).toEqual([
      {
        type: 'tool-call',
        toolName: searchTool.name,
        input: JSON.stringify({ query: 'é😀\\é'.repeat(20), options: { depth: 2 } }),
      },
    ]);
  });

  it('reads a string whose next chunk is the same text as the last (positions found are per chunk)', () => {
    // `",` then `",`: the second chunk equals the first, and its closing quote was missed once.
    const parser = pythonic.createStreamParser(options);
    const events: ParseEvent[] = [];
    for (const chunk of ['[get_weather(city=', '",', '",', ' days=1)]'])
      events.push(...parser.push(chunk));
    events.push(...parser.end());
    expect(events.filter((event) => event.type === 'tool-call')).toMatchObject([
      { toolName: 'get_weather', input: JSON.stringify({ city: ',', days: 1 }) },
    ]);
    expect(events.some((event) => event.type === 'error')).toBe(false);
  });
});

describe('a dict as the only argument (what Gemma 3’s template renders)', () => {
  it('is the arguments of a declared tool, JSON or Python, at every split', () => {
    expect(
      contentAtEverySplit(
        pythonic,
        "[get_weather({\"city\": \"Oslo\", \"days\": 3}), search({'query': 'x', 'options': {'depth': 2}})]",
        options,
      ),
    ).toEqual([
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo","days":3}' },
      { type: 'tool-call', toolName: 'search', input: '{"query":"x","options":{"depth":2}}' },
    ]);
    expect(callsOf(pythonic, '[f({})]', tools)).toEqual([{ toolName: 'f', input: {} }]);
  });

  it('nests as deep as the same arguments written as keywords', () => {
    const parse = (text: string) => pythonic.parseGeneratedText(text, { tools, maxDepth: 3 });
    expect(parse('[f(x=[[1]])]')[0]).toMatchObject({ type: 'tool-call', input: '{"x":[[1]]}' });
    expect(parse('[f({"x": [[1]]})]')[0]).toMatchObject({
      type: 'tool-call',
      input: '{"x":[[1]]}',
    });
    expect(parse('[f(x=[[[1]]])]')[0]).toMatchObject({
      type: 'error',
      error: { code: 'too-deep' },
    });
    expect(parse('[f({"x": [[[1]]]})]')[0]).toMatchObject({
      type: 'error',
      error: { code: 'too-deep' },
    });
  });

  it('begins the call at its first key, as `name=` does', () => {
    const parser = pythonic.createStreamParser({ tools, generateId: counterIds() });
    const started = (events: ParseEvent[]) =>
      events.filter((event) => event.type === 'tool-input-start').length;
    expect(started(parser.push('[get_weather({'))).toBe(0);
    expect(started(parser.push('"city":'))).toBe(1);
    const events = [...parser.push(' "Oslo"})]'), ...parser.end()];
    expect(events.filter((event) => event.type === 'tool-call')).toHaveLength(1);
  });

  it.each(['[unknown({"a": 1})]', '[get_weather({city})]', '[get_weather({see below})]'])(
    '%s stays text: an undeclared tool, or no dict before its first key',
    (text) => {
      expect(contentAtEverySplit(pythonic, text, options)).toEqual([{ type: 'text', text }]);
    },
  );

  it.each([
    ['<|python_start|>[get_weather({"city": "Oslo"}, days=3)]', 'must be its only argument'],
    ['<|python_start|>[get_weather({"city": "Oslo"}, {"days": 3})]', 'must be its only argument'],
    ['<|python_start|>[get_weather(days=3, {"city": "Oslo"})]', 'positional argument'],
  ])('%s: a dict beside other arguments is a fault, never run', (text, message) => {
    const content = contentAtEverySplit(pythonic, text, options);
    expect(content[0]).toMatchObject({ type: 'error', error: { code: 'malformed-call' } });
    expect((content[0] as { error: { message: string } }).error.message).toContain(message);
    expect(content).not.toContainEqual(expect.objectContaining({ type: 'tool-call' }));
  });
});

describe('bare values (what "%s"|format renders: Llama 3.2’s and ToolACE’s templates)', () => {
  const input = (text: string) => {
    const calls = callsOf(pythonic, text, tools);
    expect(calls).toHaveLength(1);
    return calls[0]!.input;
  };

  it('a word where the property admits strings is that string; other values stay literals', () => {
    expect(
      contentAtEverySplit(
        pythonic,
        '[get_weather(city=Oslo, days=3), search(query=tide tables)]',
        options,
      ),
    ).toEqual([
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo","days":3}' },
      { type: 'tool-call', toolName: 'search', input: '{"query":"tide tables"}' },
    ]);
  });

  it('runs to the next top-level "," or ")", whatever it holds (quotes, <, &, line breaks)', () => {
    expect(
      contentAtEverySplit(
        pythonic,
        '[write_file(path=a.txt, content=<p class="x">A & B</p>\nÆØÅ 😀 it\'s)]',
        options,
      ),
    ).toEqual([
      {
        type: 'tool-call',
        toolName: 'write_file',
        input: JSON.stringify({ path: 'a.txt', content: '<p class="x">A & B</p>\nÆØÅ 😀 it\'s' }),
      },
    ]);
  });

  it('brackets it opens hold their own "," and ")"', () => {
    expect(input('[search(query=f(a, b) and [c, d] or {e, f}, path=x)]')).toEqual({
      query: 'f(a, b) and [c, d] or {e, f}',
      path: 'x',
    });
  });

  it('white space around it is not part of it', () => {
    expect(input('[search(query=  tide tables \n , path=x )]')).toEqual({
      query: 'tide tables',
      path: 'x',
    });
  });

  it('nothing before the delimiter is the empty string', () => {
    expect(input('[search(query=, path=)]')).toEqual({ query: '', path: '' });
  });

  it.each([
    ['None', null],
    ['True', true],
    ['3', 3],
    ['-2.5', -2.5],
    ["r'raw'", 'raw'],
    ['None of them', 'None of them'],
    ['3 apples', '3 apples'],
    ['3rd', '3rd'],
    ['.env', '.env'],
    ['a.txt', 'a.txt'],
    ['x"y"', 'x"y"'],
    ['-', '-'],
    ['#1 @home', '#1 @home'],
  ])(
    'where the schema says nothing, %s is %j: a literal only when all of it is one',
    (written, value) => {
      expect(input(`[f(x=${written})]`)).toEqual({ x: value });
    },
  );

  it('is no string where the property admits none: a fault, the calls before it stand', () => {
    const content = contentAtEverySplit(
      pythonic,
      '[get_weather(city=Oslo), get_weather(city=Bergen, days=three)]',
      options,
    );
    expect(content[0]).toMatchObject({ type: 'tool-call', input: '{"city":"Oslo"}' });
    expect(content[1]).toMatchObject({ type: 'error', error: { code: 'malformed-call' } });
    expect((content[1] as { error: { raw: string } }).error.raw).toContain(
      'get_weather(city=Bergen, days=three',
    );
  });

  it('a bare word of an undeclared tool is text: only a declared schema makes a word a string', () => {
    const text = '[unknown(x=foo), get_weather(city=Oslo)]';
    expect(contentAtEverySplit(pythonic, text, options)).toEqual([{ type: 'text', text }]);
  });

  it('a bare value the output ends inside has no end: a fault with its raw text, never run', () => {
    for (const text of [
      '[get_weather(city=Oslo',
      '[search(query=f(a, path=x)',
      '[search(query=a, b',
    ]) {
      const content = contentAtEverySplit(pythonic, text, options);
      expect(content).not.toContainEqual(expect.objectContaining({ type: 'tool-call' }));
      expect(content[0]).toMatchObject({
        type: 'error',
        error: { code: 'incomplete-call', raw: text },
      });
    }
  });

  it('a "]" or "}" it did not open is a fault: the brackets around the value broke', () => {
    for (const text of ['[get_weather(city=Oslo]', '[search(query=f(a) b}, path=x)]']) {
      const content = contentAtEverySplit(pythonic, text, options);
      expect(content).not.toContainEqual(expect.objectContaining({ type: 'tool-call' }));
      expect(content[0]).toMatchObject({ type: 'error', error: { code: 'malformed-call' } });
      expect((content[0] as { error: { message: string } }).error.message).toContain('unmatched');
    }
  });

  it('in a list, the ")" that ends it counts only when "," or "]" follows: else a fault', () => {
    expect(contentAtEverySplit(pythonic, '[search(query=a (b)), f(x=c) ]', options)).toEqual([
      { type: 'tool-call', toolName: 'search', input: '{"query":"a (b)"}' },
      { type: 'tool-call', toolName: 'f', input: '{"x":"c"}' },
    ]);
    for (const text of ['[search(query=smile :))]', '[search(query=smile :) and more)]']) {
      const content = contentAtEverySplit(pythonic, text, options);
      expect(content).not.toContainEqual(expect.objectContaining({ type: 'tool-call' }));
      expect(content[0]).toMatchObject({ type: 'error', error: { code: 'malformed-call' } });
    }
    // The output ends after it: the list's "]" is missing, as with quoted values.
    expect(callsOf(pythonic, '[search(query=a)', tools)).toEqual([
      { toolName: 'search', input: { query: 'a' } },
    ]);
    const cut = contentAtEverySplit(pythonic, '[search(query=a)', options, { interrupted: true });
    expect(cut[0]).toMatchObject({ type: 'error', error: { code: 'incomplete-call' } });
  });

  it('streams as it is read; white space is held until text follows it', () => {
    const parser = pythonic.createStreamParser({ tools, generateId: counterIds() });
    const deltasOf = (events: ParseEvent[]) =>
      events.flatMap((event) => (event.type === 'tool-input-delta' ? [event.delta] : []));
    const events: ParseEvent[] = [...parser.push('[search(query=tide ')];
    const read = parser.push(' tables');
    expect(deltasOf(read).join('')).toContain('tide  tables');
    const space = parser.push('  ');
    expect(deltasOf(space)).toEqual([]);
    events.push(...read, ...space, ...parser.push(')]'), ...parser.end());
    expect(streamingViolations(events)).toEqual([]);
    expect(deltasOf(events).join('')).toBe('{"query":"tide  tables"}');
  });

  it('takes time proportional to its length', () => {
    const parse = (text: string) => pythonic.parseGeneratedText(text, { tools });
    expectLinearGrowth((size) => `[f(x=${'a (b) [c]  '.repeat(size / 12)})]`, parse, 1 << 15);
  });
});

describe('quotes Llama 4’s template does not escape (`content="<p class="x">"`)', () => {
  it('a " followed by other text than "," ")" or a string is the string’s own', () => {
    expect(
      contentAtEverySplit(
        pythonic,
        '[write_file(path="a.txt", content="<p class="x">A & B</p>\nsay "hi" now")]',
        options,
      ),
    ).toEqual([
      {
        type: 'tool-call',
        toolName: 'write_file',
        input: JSON.stringify({ path: 'a.txt', content: '<p class="x">A & B</p>\nsay "hi" now' }),
      },
    ]);
  });

  it('strings written side by side are still joined, as Python joins them', () => {
    expect(callsOf(pythonic, '[search(query="a" "b")]', tools)[0]!.input).toEqual({ query: 'ab' });
  });

  it.each([
    ["[get_weather(city='Oslo'), search(query='x 'y', path='z')]", 'an apostrophe'],
    ['[get_weather(city="Oslo", days="3"x)]', 'a property that admits no string'],
    ['[search(options={"depth": "2"x})]', 'a string inside a container'],
  ])('%s: not for %s (a broken literal is a fault)', (text) => {
    const content = contentAtEverySplit(pythonic, text, options);
    expect(content).toContainEqual(
      expect.objectContaining({
        type: 'error',
        error: expect.objectContaining({ code: 'malformed-call' }),
      }),
    );
  });

  it('a quote never followed by "," or ")" leaves the string open: a fault, never run', () => {
    const text = '[write_file(path="a.txt", content="a"b)]';
    const content = contentAtEverySplit(pythonic, text, options);
    expect(content).not.toContainEqual(expect.objectContaining({ type: 'tool-call' }));
    expect(content[0]).toMatchObject({ type: 'error', error: { code: 'incomplete-call' } });
  });
});
