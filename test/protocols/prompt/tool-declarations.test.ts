import { describe, expect, it } from 'vitest';
import {
  functionDeclaration,
  openAIToolDeclaration,
} from '../../../src/protocols/prompt/tool-declarations.ts';
import { namedResultLines } from '../../../src/protocols/results/result-text.ts';

const tool = { name: 'get_weather', inputSchema: { type: 'object' } } as const;

describe('tool declarations', () => {
  it("declare a tool with its description only when it has one, in the templates' key order", () => {
    expect(JSON.stringify(functionDeclaration(tool))).toBe(
      '{"name":"get_weather","parameters":{"type":"object"}}',
    );
    expect(JSON.stringify(openAIToolDeclaration({ ...tool, description: 'Weather' }))).toBe(
      '{"type":"function","function":{"name":"get_weather","description":"Weather","parameters":{"type":"object"}}}',
    );
  });

  it('write results one JSON object per line, failures as error, under the key asked for', () => {
    const results = [
      { toolName: 'a', output: { t: 1 } },
      { toolName: 'b', output: 'no', isError: true },
    ];
    // The envelope's keys as they are; the output prompt-safe (its first key escaped).
    expect(namedResultLines(results)).toBe(
      '{"name":"a","content":{"\\u0074":1}}\n{"name":"b","error":"no"}',
    );
    expect(namedResultLines(results, 'output').split('\n')[0]).toBe(
      '{"name":"a","output":{"\\u0074":1}}',
    );
    for (const line of namedResultLines(results).split('\n')) {
      expect(Object.keys(JSON.parse(line))).toHaveLength(2);
    }
  });
});
