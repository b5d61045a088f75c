/**
 * Raw code in a spec: a `raw-code` form (the code is one argument of the first declared code
 * tool, or text), and a Python form that falls back to raw code, names its calls with a suffix
 * (`brave_search.call(…)`) and separates JSON calls with `;` (Llama 3's `<|python_tag|>`).
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { defineFormat, readFormatSpec } from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';
import { readAtEverySplit } from '../formats/tagged-spec-checks.ts';

const tool = (name: string): ToolDefinition => ({ name, inputSchema: { type: 'object' } });

const RAW: FormatSpec = {
  spec: 1,
  name: 'test-raw-code',
  calls: [
    {
      codec: 'raw-code',
      open: '<|python_tag|>',
      close: '<|eom_id|>',
      closeAlternatives: ['<|eot_id|>'],
      tools: ['python', 'ipython'],
    },
  ],
  write: { call: '<|python_tag|>{arguments}<|eom_id|>' },
  results: { each: '{output}' },
};

const PYTHON: FormatSpec = {
  spec: 1,
  name: 'test-python-raw-code',
  calls: [
    {
      codec: 'python',
      open: '<|python_tag|>',
      close: '<|eom_id|>',
      single: true,
      jsonFallback: true,
      nameSuffix: '.call',
      separator: ';',
      rawCode: { tools: ['code_interpreter'], closeAlternatives: ['<|eot_id|>'] },
    },
  ],
  write: { call: '<|python_tag|>{name}.call({arguments})<|eom_id|>' },
  results: { each: '{output}' },
};

describe('a raw-code form', () => {
  const protocol = defineFormat(RAW);

  it('is a call of the first declared code tool, at every split', () => {
    const text = '<|python_tag|>print(1)\nprint(2)<|eot_id|>';
    expect(readAtEverySplit(protocol, text, { tools: [tool('ipython')] }).calls).toEqual([
      ['ipython', { code: 'print(1)\nprint(2)' }],
    ]);
  });

  it('is text when no code tool is declared', () => {
    const text = '<|python_tag|>print(1)<|eom_id|>';
    expect(readAtEverySplit(protocol, text, { tools: [tool('other')] }).calls).toEqual([]);
  });

  it('writes the code argument as it is', () => {
    expect(protocol.formatToolCall({ toolName: 'python', input: { code: 'print(1)' } })).toBe(
      '<|python_tag|>print(1)<|eom_id|>',
    );
  });

  it('checks its fields', () => {
    expect(() => readFormatSpec({ ...RAW, calls: [{ ...RAW.calls[0], tools: [] }] })).toThrow(
      /calls\[0\]\.tools/,
    );
    expect(() => readFormatSpec({ ...RAW, calls: [{ ...RAW.calls[0], typo: 1 }] })).toThrow(
      /calls\[0\]\.typo/,
    );
  });
});

describe('a python form with nameSuffix, separator and rawCode', () => {
  const protocol = defineFormat(PYTHON);
  const tools = [tool('brave_search'), tool('code_interpreter'), tool('get_weather')];

  it('reads a suffixed call, JSON calls between semicolons, and raw code', () => {
    expect(
      readAtEverySplit(protocol, '<|python_tag|>brave_search.call(query="x")<|eom_id|>', {
        tools,
      }).calls,
    ).toEqual([['brave_search', { query: 'x' }]]);
    expect(
      readAtEverySplit(
        protocol,
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Oslo"}}; {"name": "get_weather", "parameters": {"city": "Rome"}}<|eom_id|>',
        { tools },
      ).calls,
    ).toEqual([
      ['get_weather', { city: 'Oslo' }],
      ['get_weather', { city: 'Rome' }],
    ]);
    expect(
      readAtEverySplit(protocol, '<|python_tag|>import os\nprint(os.getcwd())<|eot_id|>', {
        tools,
      }).calls,
    ).toEqual([['code_interpreter', { code: 'import os\nprint(os.getcwd())' }]]);
  });

  it('checks rawCode', () => {
    const form = { ...PYTHON.calls[0], rawCode: { tools: ['x'], typo: true } };
    expect(() => readFormatSpec({ ...PYTHON, calls: [form] })).toThrow(/calls\[0\]\.rawCode\.typo/);
  });
});

describe('a python form whose JSON fallback names its argument keys', () => {
  it('reads the arguments under those keys', () => {
    const protocol = defineFormat({
      ...PYTHON,
      calls: [{ ...PYTHON.calls[0]!, argumentKeys: ['params'] } as FormatSpec['calls'][number]],
    });
    expect(
      readAtEverySplit(
        protocol,
        '<|python_tag|>{"name": "get_weather", "params": {"city": "Oslo"}}<|eom_id|>',
        { tools: [tool('get_weather')] },
      ).calls,
    ).toEqual([['get_weather', { city: 'Oslo' }]]);
    expect(() =>
      readFormatSpec({ ...PYTHON, calls: [{ ...PYTHON.calls[0], argumentKeys: [''] }] }),
    ).toThrow(/calls\[0\]\.argumentKeys\[0\]/);
  });
});
