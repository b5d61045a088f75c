import Ajv2020Module from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import {
  type CodeTool,
  createCodeTools,
  InvalidRootError,
} from '../../../src/agent/tools/index.ts';
import { createValidator } from '../../../src/schema/index.ts';
import { FIXTURE } from './workspace.ts';

type AjvClass = new (options: object) => { compile(schema: object): unknown };
// Ajv is CommonJS: depending on the loader the default import is the class or holds it.
const Ajv2020 =
  (Ajv2020Module as unknown as { default?: AjvClass }).default ??
  (Ajv2020Module as unknown as AjvClass);

describe('createCodeTools', () => {
  const tools = createCodeTools({ root: FIXTURE });
  const all: CodeTool[] = Object.values(tools);

  it('returns the four tools keyed by their names, with descriptions', () => {
    expect(Object.keys(tools)).toEqual(['search', 'extract', 'query', 'list_files']);
    for (const [key, tool] of Object.entries(tools)) {
      expect(tool.name).toBe(key);
      expect(tool.description.length).toBeGreaterThan(80);
      expect(typeof tool.execute).toBe('function');
    }
  });

  it('declares seed 000 parameters, each described, in schemas draft 2020-12 accepts', () => {
    const expected: Record<string, [string[], string[]]> = {
      search: [['query', 'path', 'allow_tests'], ['query']],
      extract: [['file_path', 'line', 'end_line'], ['file_path']],
      query: [['pattern', 'language', 'path'], ['pattern']],
      list_files: [['path', 'glob'], []],
    };
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const tool of all) {
      const [properties, required] = expected[tool.name]!;
      expect(Object.keys(tool.inputSchema.properties)).toEqual(properties);
      expect(tool.inputSchema.required).toEqual(required);
      for (const property of Object.values(tool.inputSchema.properties)) {
        expect(String(property.description).length).toBeGreaterThan(20);
      }
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    }
  });

  it('has schemas the project validator uses to name bad parameters', () => {
    const validator = createValidator();
    expect(validator.validate({ query: 'x', allow_tests: true }, tools.search.inputSchema)).toEqual(
      [],
    );
    const problems = validator.validate(
      { file_path: 'a.ts', line: 0, extra: 1 },
      tools.extract.inputSchema,
    );
    expect(problems.map((problem) => problem.path).sort()).toEqual(['/extra', '/line']);
  });

  it('refuses a root that is missing or not a folder, and unusable limits', () => {
    expect(() => createCodeTools({ root: `${FIXTURE}/nope` })).toThrow(InvalidRootError);
    expect(() => createCodeTools({ root: `${FIXTURE}/README.md` })).toThrow(InvalidRootError);
    expect(() => createCodeTools({ root: '' })).toThrow(InvalidRootError);
    expect(() => createCodeTools({ root: FIXTURE, maxOutputChars: 500 })).toThrow(RangeError);
    expect(() => createCodeTools({ root: FIXTURE, contextLines: -1 })).toThrow(RangeError);
    expect(() => createCodeTools({ root: FIXTURE, maxFileBytes: 1.5 })).toThrow(RangeError);
  });
});
