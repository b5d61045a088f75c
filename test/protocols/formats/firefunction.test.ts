import { describe, expect, it } from 'vitest';
import { firefunctionProtocol } from '../../../src/protocols/firefunction/index.ts';
import {
  callsIn,
  errorsIn,
  itKeepsTheStreamInvariants,
  itStaysLinear,
  partsOf,
  textIn,
} from './json-format-checks.ts';

const firefunction = firefunctionProtocol();

describe('firefunction', () => {
  it('reads the functools list (llama.cpp), text before it kept', () => {
    const parts = partsOf(
      firefunction,
      'Checking. functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "search", "arguments": {"query": "q"}}]',
    );
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo' } },
      { name: 'search', input: { query: 'q' } },
    ]);
    expect(textIn(parts)).toBe('Checking. ');
  });

  // vLLM's tests/tool_parsers/test_phi4mini_tool_parser.py: Phi-4-mini writes the list without
  // the space before it, one call or several, pretty-printed or not (the second call's tool is
  // one these tests declare).
  it("reads Phi-4-mini's functools list (vLLM's phi4mini parser tests)", () => {
    expect(
      callsIn(
        partsOf(firefunction, 'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]'),
      ),
    ).toEqual([{ name: 'get_weather', input: { city: 'Tokyo' } }]);
    const two = partsOf(
      firefunction,
      'functools[\n  {"name": "get_weather", "arguments": {"city": "Tokyo"}},\n  {"name": "search", "arguments": {"query": "time in Tokyo"}}\n]',
    );
    expect(callsIn(two).map((call) => call.name)).toEqual(['get_weather', 'search']);
    const around = partsOf(
      firefunction,
      'Let me check the weather for you.\nfunctools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]\nWould you like to know more?',
    );
    expect(callsIn(around)).toEqual([{ name: 'get_weather', input: { city: 'Tokyo' } }]);
    expect(textIn(around)).toBe(
      'Let me check the weather for you.\n\nWould you like to know more?',
    );
  });

  it('never runs a cut-off call and reports it', () => {
    const parts = partsOf(
      firefunction,
      ' functools[{"name": "get_weather", "arguments": {"city": "Os',
    );
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts)[0]?.code).toBe('incomplete-call');
  });

  it('keeps undeclared tools and plain words as text', () => {
    expect(textIn(partsOf(firefunction, 'import functools\nfunctools.reduce'))).toBe(
      'import functools\nfunctools.reduce',
    );
    const parts = partsOf(firefunction, 'functools[{"name": "launch", "arguments": {}}]');
    expect(callsIn(parts)).toEqual([]);
    expect(textIn(parts)).toContain('"launch"');
  });

  it('renders its own prompt and history', () => {
    expect(firefunction.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })).toBe(
      'functools[{"name":"get_weather","arguments":{"city":"Oslo"}}]',
    );
    expect(
      firefunction.formatTools([{ name: 'get_weather', inputSchema: { type: 'object' } }]),
    ).toContain('prefix function calls with functools marker (no closing marker required)');
  });
});

describe('firefunction: invariants', () => {
  itKeepsTheStreamInvariants(firefunction, ['functools[', ' functools', 'functools']);
  itStaysLinear(
    firefunction,
    (index) => ` functools[{"name": "get_weather", "arguments": {"city": "c${index}"}}]`,
    (argument) =>
      ` functools[{"name": "write_file", "arguments": {"path": "p", "content": "${argument}"}}]`,
  );
});
