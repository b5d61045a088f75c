/**
 * The pythonic format on what the Python-call chat templates of the visible conformance set
 * render (test/fixtures/chat-templates: vLLM's Gemma 3, Llama 3.2, Llama 4 and ToolACE
 * templates), whole and in 1- and 3-character chunks: exactly the calls each turn holds, its text,
 * and no error. What each template prints:
 *
 * - gemma3-pythonic: `[get_weather({"city": "Oslo", "days": 3})]`, the arguments as one JSON
 *   object (the renderer did not see them as a mapping, so the template's positional branch ran);
 * - llama3.2-pythonic, toolace: `[get_weather(city=Oslo, days=3)]`, every value through
 *   `"%s"|format`, so strings stand without quotes;
 * - llama4-pythonic: `[get_weather(city="Oslo", days="3")]`, every value between `"` that are
 *   not escaped inside it (`content="<p class="x">…"`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import { collectContent } from '../../../src/protocols/engine/collect-content.ts';
import { pythonicProtocol } from '../../../src/protocols/pythonic/index.ts';
import { chunksOf, streamEvents } from '../helpers.ts';

const FIXTURES = new URL('../../fixtures/chat-templates/', import.meta.url);

interface ConformanceCase {
  readonly id: string;
  readonly template: string;
  readonly text: string;
  readonly calls: readonly { readonly name: string; readonly input: unknown }[];
  readonly text_equals?: string;
  readonly text_contains?: readonly string[];
}

const data = JSON.parse(readFileSync(new URL('chat-template-cases.json', FIXTURES), 'utf8')) as {
  cases: ConformanceCase[];
};
const tools = JSON.parse(
  readFileSync(new URL('chat-template-tools.json', FIXTURES), 'utf8'),
) as ToolDefinition[];

const TEMPLATES = [
  'gemma3-pythonic.vllm.jinja',
  'llama3.2-pythonic.vllm.jinja',
  'llama4-pythonic.vllm.jinja',
  'toolace.vllm.jinja',
];
const cases = data.cases.filter((each) => TEMPLATES.includes(each.template));
const pythonic = pythonicProtocol();

function readOf(text: string, chunkSize: number | undefined) {
  const content =
    chunkSize === undefined
      ? pythonic.parseGeneratedText(text, { tools })
      : collectContent(streamEvents(pythonic, chunksOf(text, chunkSize), { tools }));
  return {
    calls: content
      .filter((part) => part.type === 'tool-call')
      .map((part) => ({ name: part.toolName, input: JSON.parse(part.input) as unknown })),
    errors: content.filter((part) => part.type === 'error'),
    text: content
      .filter((part) => part.type === 'text')
      .map((part) => part.text)
      .join(''),
  };
}

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('pythonic reads what the Python-call chat templates render', () => {
  it('has the turns of the four templates', () => {
    expect(cases.map((each) => each.id)).toEqual([
      'gemma3-pythonic.vllm/s1',
      'gemma3-pythonic.vllm/s2',
      'gemma3-pythonic.vllm/s3',
      'gemma3-pythonic.vllm/s4',
      'llama3.2-pythonic.vllm/s1',
      'llama3.2-pythonic.vllm/s2',
      'llama3.2-pythonic.vllm/s3',
      'llama4-pythonic.vllm/s1',
      'llama4-pythonic.vllm/s2',
      'llama4-pythonic.vllm/s3',
      'llama4-pythonic.vllm/s4',
      'toolace.vllm/s1',
      'toolace.vllm/s2',
      'toolace.vllm/s3',
    ]);
  });

  it.each(cases.map((each) => [each.id, each] as const))('%s', (_id, conformance) => {
    for (const chunkSize of [undefined, 1, 3]) {
      const read = readOf(conformance.text, chunkSize);
      const where = chunkSize === undefined ? 'whole' : `${chunkSize}-char chunks`;
      expect(read.calls, where).toEqual(conformance.calls);
      expect(read.errors, where).toEqual([]);
      if (conformance.text_equals !== undefined) {
        expect(collapse(read.text), where).toBe(collapse(conformance.text_equals));
      }
      for (const part of conformance.text_contains ?? []) expect(read.text, where).toContain(part);
    }
  });
});
