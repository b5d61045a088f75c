/**
 * A tools file whose schema cannot be used fails once, when it is read, with the tool's place,
 * instead of being accepted and reported on every call.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidToolDefinitionError, placeOf, readToolsFile } from '../../src/cli/read-tools.ts';
import { runCommandLine } from '../../src/cli/run-command-line.ts';
import { isErrorOfKind } from '../../src/core/errors.ts';
import { UnsupportedPatternError } from '../../src/schema/index.ts';

const directory = mkdtempSync(join(tmpdir(), 'toolwire-tools-'));

function toolsFile(tools: unknown): string {
  const file = join(directory, `tools-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(tools));
  return file;
}

const object = { type: 'object' };
const BACKREFERENCE = {
  type: 'object',
  properties: { q: { type: 'string', pattern: '(a)\\1' } },
};

async function failure(file: string): Promise<unknown> {
  try {
    await readToolsFile(file);
  } catch (error) {
    return error;
  }
  throw new Error('the file was accepted');
}

describe('readToolsFile: every schema is checked at load', () => {
  it('a pattern that cannot run in linear time: its place and why, kind invalid-tool-definition', async () => {
    const file = toolsFile([
      { name: 'a', inputSchema: object },
      { name: 'b', inputSchema: object },
      { name: 'search', inputSchema: BACKREFERENCE },
    ]);
    const error = await failure(file);
    expect(InvalidToolDefinitionError.isInstance(error)).toBe(true);
    expect(isErrorOfKind(error, 'invalid-tool-definition')).toBe(true);
    expect((error as Error).message).toBe(
      `${file}: tools[2] "search": inputSchema.properties.q.pattern: the pattern "(a)\\\\1" uses a backreference (\\1), which cannot be matched in linear time`,
    );
    expect(UnsupportedPatternError.isInstance((error as Error).cause)).toBe(true);
  });

  it('a schema that does not compile, given as `parameters`', async () => {
    const file = toolsFile([{ name: 's', parameters: { type: 'strin' } }]);
    const error = await failure(file);
    expect(isErrorOfKind(error, 'invalid-tool-definition')).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^${file.replaceAll(/[.\\/]/g, '\\$&')}: tools\\[0\\] "s": parameters: not a JSON Schema`,
      ),
    );
  });

  it('a pattern under patternProperties keys and lists is placed too', async () => {
    const file = toolsFile([
      {
        name: 't',
        inputSchema: { anyOf: [object, { patternProperties: { '(?<=a)b': object } }] },
      },
    ]);
    expect((await failure(file)) as Error).toMatchObject({
      place: 'tools[0] "t": inputSchema.anyOf[1].patternProperties["(?<=a)b"]',
    });
  });

  it('usable schemas load as before', async () => {
    const schema = { type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } } };
    expect(await readToolsFile(toolsFile([{ name: 'ok', inputSchema: schema }]))).toEqual([
      { name: 'ok', inputSchema: schema },
    ]);
  });

  it('through the CLI: status 2 and the one line that says where', async () => {
    const file = toolsFile([{ name: 'search', inputSchema: BACKREFERENCE }]);
    let stderr = '';
    const status = await runCommandLine(['parse', '--protocol', 'xml', '--tools', file], {
      stdout: { write: () => {} },
      stderr: {
        write: (text) => {
          stderr += text;
        },
      },
    });
    expect(status).toBe(2);
    expect(stderr).toBe(
      `toolwire: ${file}: tools[0] "search": inputSchema.properties.q.pattern: the pattern "(a)\\\\1" uses a backreference (\\1), which cannot be matched in linear time\n`,
    );
  });
});

describe('placeOf', () => {
  it('writes a JSON Pointer as a property path', () => {
    expect(placeOf('')).toBe('');
    expect(placeOf('/properties/q/pattern')).toBe('.properties.q.pattern');
    expect(placeOf('/allOf/0/properties/a~1b/pattern')).toBe('.allOf[0].properties["a/b"].pattern');
    expect(placeOf('/properties/x y~0')).toBe('.properties["x y~"]');
  });
});

describe('readToolsFile: the shapes a tools file may take', () => {
  const weather = {
    name: 'get_weather',
    description: 'Weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  };
  const expected = [
    { name: 'get_weather', description: 'Weather', inputSchema: weather.parameters },
  ];

  it("OpenAI's request entries ({type: function, function}), bare or in {tools: [...]}", async () => {
    const wrapped = [{ type: 'function', function: weather }];
    expect(await readToolsFile(toolsFile(wrapped))).toEqual(expected);
    expect(await readToolsFile(toolsFile({ model: 'm', tools: wrapped }))).toEqual(expected);
    expect(await readToolsFile(toolsFile([weather]))).toEqual(expected);
  });

  it('a wrapped entry without a name is still refused, with its index', async () => {
    const error = await failure(toolsFile([{ type: 'function', function: { parameters: {} } }]));
    expect((error as Error).message).toContain('entry 0: "name" must be a non-empty string');
  });
});
