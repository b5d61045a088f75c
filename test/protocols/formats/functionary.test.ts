import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import {
  functionaryFormat,
  functionaryProtocol,
  functionarySpec,
} from '../../../src/protocols/functionary/index.ts';
import { specOf } from '../../../src/protocols/spec/define.ts';
import { callWriter } from '../../../src/protocols/spec/writers.ts';
import {
  callsIn,
  errorsIn,
  itKeepsTheStreamInvariants,
  itStaysLinear,
  partsOf,
  TOOLS,
  textIn,
} from './json-format-checks.ts';

const functionary = functionaryProtocol();
const python: ToolDefinition = {
  name: 'python',
  inputSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
};
const withPython = [...TOOLS, python];

describe('functionary', () => {
  it('reads v3.2 recipients: text for all, JSON calls for tools (llama.cpp)', () => {
    const parts = partsOf(
      functionary,
      'all\nHello, world!\nWhat\'s up?>>>get_weather\n{"city": "Oslo", "days": "2"}\n>>>search\n{"query": "rain"}',
    );
    expect(textIn(parts).trim()).toBe("Hello, world!\nWhat's up?");
    expect(callsIn(parts)).toEqual([
      { name: 'get_weather', input: { city: 'Oslo', days: 2 } },
      { name: 'search', input: { query: 'rain' } },
    ]);
  });

  it('reads the first call without >>> at the start only', () => {
    expect(callsIn(partsOf(functionary, 'get_weather\n{"city": "A"} \n   '))).toEqual([
      { name: 'get_weather', input: { city: 'A' } },
    ]);
    const prose = 'Sure.\nget_weather\n{"city": "A"}';
    expect(callsIn(partsOf(functionary, prose))).toEqual([]);
    expect(textIn(partsOf(functionary, prose))).toBe(prose);
  });

  it('reads raw python code as the code argument (v3.2 and <|python_tag|>)', () => {
    expect(
      callsIn(partsOf(functionary, "python\n# A program:\nprint('hey')\n", { tools: withPython })),
    ).toEqual([{ name: 'python', input: { code: "# A program:\nprint('hey')" } }]);
    expect(
      callsIn(
        partsOf(functionary, '>>>python\nx = "é"\n>>>get_weather\n{"city": "B"}', {
          tools: withPython,
        }),
      ),
    ).toEqual([
      { name: 'python', input: { code: 'x = "é"' } },
      { name: 'get_weather', input: { city: 'B' } },
    ]);
    expect(
      callsIn(partsOf(functionary, '<|python_tag|>print(1 > 0)<|eom_id|>', { tools: withPython })),
    ).toEqual([{ name: 'python', input: { code: 'print(1 > 0)' } }]);
    expect(textIn(partsOf(functionary, '<|python_tag|>print(1)'))).toBe('<|python_tag|>print(1)');
  });

  it('never runs code cut off by an interrupted output', () => {
    const parts = partsOf(functionary, '>>>python\nimport os\nos.rem', {
      tools: withPython,
      interrupted: true,
    });
    expect(callsIn(parts)).toEqual([]);
    expect(errorsIn(parts).map((error) => error.code)).toEqual(['incomplete-call']);
  });

  it('reads v3.1 <function=NAME> tags; a cut-off one is reported', () => {
    expect(
      callsIn(partsOf(functionary, 'Sure. <function=get_weather>{"city": "Oslo"}</function>')),
    ).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    const cut = partsOf(functionary, '<function=get_weather>{"city": "Os');
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut).map((error) => error.code)).toEqual(['incomplete-call']);
  });

  it('keeps undeclared recipients and REPL prompts as text', () => {
    const text = '>>> print(1)\n1\n>>>fly\n{"to": "moon"}';
    expect(callsIn(partsOf(functionary, text))).toEqual([]);
    expect(textIn(partsOf(functionary, text))).toBe(text);
  });

  it('prompts each version in its own convention', () => {
    const tools = [
      { name: 'get_weather', description: 'Weather', inputSchema: { type: 'object' } },
    ];
    expect(functionary.formatTools(tools)).toContain(
      'namespace functions {\n\n// Weather\ntype get_weather = () => any;',
    );
    const v31 = functionaryProtocol({ version: 'v3.1' });
    expect(v31.formatTools(tools)).toContain("Use the function 'get_weather' to 'Weather'");
    expect(v31.formatToolCall({ toolName: 'get_weather', input: { city: 'A' } })).toBe(
      '<function=get_weather>{"city":"A"}</function>',
    );
    expect(functionary.formatToolCall({ toolName: 'get_weather', input: { city: 'A' } })).toBe(
      '>>>get_weather\n{"city":"A"}',
    );
    expect(functionaryFormat.toolNamesIn?.('>>>all\nhi>>>fly\n{}')).toEqual(['fly']);
  });

  itKeepsTheStreamInvariants(functionary, [
    '>>>',
    'all\n',
    '>>>all\n',
    'python\n',
    '<|python_tag|>',
    '<|eom_id|>',
    '<function=',
    '</function>',
    '\n',
  ]);
  itKeepsTheStreamInvariants(functionaryProtocol({ version: 'v3.1' }), ['<function=', '>']);

  itStaysLinear(
    functionary,
    (index) => `>>>get_weather\n{"city": "c${index}"}`,
    (argument) => `>>>write_file\n{"path": "a", "content": "${argument}"}`,
  );
});

describe('functionary as a spec', () => {
  it('is built from its spec, in either version', () => {
    expect(specOf(functionaryFormat.create())?.name).toBe('functionary');
    expect(specOf(functionaryProtocol({ version: 'v3.1' }))?.name).toBe('functionary');
  });

  it("the spec's writer writes each version's calls", () => {
    const calls = [
      { toolName: 'get_weather', input: { city: 'A' } },
      { toolName: 'search', input: { query: 'b' } },
    ];
    expect(callWriter(functionarySpec('v3.2'))(calls)).toBe(
      '>>>get_weather\n{"city":"A"}>>>search\n{"query":"b"}',
    );
    expect(callWriter(functionarySpec('v3.1'))(calls)).toBe(
      '<function=get_weather>{"city":"A"}</function><function=search>{"query":"b"}</function>',
    );
  });

  it('a first recipient is read only for a declared tool, all, or a declared code tool', () => {
    expect(callsIn(partsOf(functionary, 'search\n{"query": "x"}'))).toEqual([
      { name: 'search', input: { query: 'x' } },
    ]);
    for (const text of ['fly\n{"to": "moon"}', 'python\nprint(1)']) {
      expect(callsIn(partsOf(functionary, text)), text).toEqual([]);
      expect(textIn(partsOf(functionary, text)), text).toBe(text);
    }
    expect(textIn(partsOf(functionary, 'all\nHi.'))).toBe('Hi.');
  });

  it('raw code after >>>python ends at the next >>>, which is read again', () => {
    const parts = partsOf(functionary, '>>>python\nprint(">")\n\n>>>all\nDone.', {
      tools: withPython,
    });
    expect(callsIn(parts)).toEqual([{ name: 'python', input: { code: 'print(">")' } }]);
    expect(textIn(parts)).toBe('Done.');
  });
});

describe('functionary: a line that names no recipient', () => {
  it('is text, and what follows it is read again (a call in it, >>>> before a recipient)', () => {
    for (const [text, before] of [
      ['allocate the rooms >>>get_weather\n{"city": "Oslo"}', 'allocate the rooms '],
      ['Done >>>>get_weather\n{"city": "Oslo"}', 'Done >'],
      ['get_weathers are nice >>>get_weather\n{"city": "Oslo"}', 'get_weathers are nice '],
    ] as const) {
      const parts = partsOf(functionary, text);
      expect(textIn(parts)).toBe(before);
      expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    }
  });
});
