import { describe, expect, it } from 'vitest';
import { protocolByName, type ToolDefinition } from '../../../../src/index.ts';
import { chunksOf, contentAtEverySplit, contentOf, streamEvents, TOOLS } from '../../helpers.ts';

/**
 * Long argument strings stream from their source text (the tokenizer's source pieces) rather
 * than decoded and escaped again: the calls, their deltas and their problems must be exactly
 * those of the whole-text path, at every split, with escapes of every kind in the strings.
 */

const hermes = protocolByName('hermes');

const LIMITED: ToolDefinition = {
  name: 'note',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', maxLength: 20 }, n: { type: 'integer' } },
    required: ['text'],
  },
};
const tools = [...TOOLS, LIMITED];

const CODE = 'if (a < b && c > d) {\n\treturn "x\\\\y";\n}\n';

function call(name: string, argumentsJson: string, extra = ''): string {
  return `<tool_call>\n{"name": "${name}", "arguments": ${argumentsJson}${extra}}\n</tool_call>`;
}

/** `JSON.stringify`, with `<` and `>` as `\u003c`/`\u003E` the way hermes prompts write them. */
function hermesJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003E');
}

const TEXTS: readonly string[] = [
  `Writing.\n${call('write_file', hermesJson({ path: 'a.ts', content: CODE.repeat(3) }))}\nDone.`,
  call('write_file', `{"path": "b", "content": "${'a\\/b \\u00e9 \\u4e2d '.repeat(6)}"}`),
  call('write_file', `{"path": "c", "content": "${'pair \\ud83d\\ude00 raw 😀 '.repeat(4)}"}`),
  call('write_file', `{"path": "d", "content": "${'lone \\ud83d then text '.repeat(4)}"}`),
  // Not the plain shape (a key besides name and arguments): read by the streaming path whole too.
  call('write_file', hermesJson({ path: 'e', content: CODE.repeat(2) }), ', "id": "7"'),
  // A held string (the schema wants an integer) and a string past its maxLength.
  call('note', `{"text": "${'long note with a line\\n'.repeat(3)}", "n": "${'4'.repeat(40)}"}`),
  // Arguments written as a JSON string.
  call('write_file', JSON.stringify(hermesJson({ path: 'f', content: CODE.repeat(2) }))),
];

describe('hermes: argument strings streamed from their source', () => {
  it('gives the whole-text content at every split of each text', () => {
    for (const text of TEXTS) {
      const content = contentAtEverySplit(hermes, text, { tools });
      expect(content.some((part) => (part as { type: string }).type === 'tool-call')).toBe(true);
    }
  });

  it('streams deltas that join to the input, whose value is what the source holds', () => {
    const text = TEXTS.join('\nand\n');
    const expected = contentOf(streamEvents(hermes, [text], { tools }));
    for (const size of [1, 7, 8, 33, 64, 100, 256]) {
      const events = streamEvents(hermes, chunksOf(text, size), { tools });
      expect(contentOf(events), `chunks of ${size}`).toEqual(expected);
      const deltas = new Map<string, string>();
      for (const event of events) {
        if (event.type === 'tool-input-delta')
          deltas.set(event.id, (deltas.get(event.id) ?? '') + event.delta);
        if (event.type === 'tool-call') expect(deltas.get(event.toolCallId)).toBe(event.input);
      }
    }
    const calls = expected.filter((part) => (part as { type: string }).type === 'tool-call') as {
      input: string;
      problems?: unknown[];
    }[];
    expect(JSON.parse(calls[0]!.input)).toEqual({ path: 'a.ts', content: CODE.repeat(3) });
    expect(calls[0]!.input).toBe(JSON.stringify({ path: 'a.ts', content: CODE.repeat(3) }));
    const note = calls.find((part) => part.input.startsWith('{"text"'))!;
    expect(note.problems?.length).toBeGreaterThan(0);
  });
});
