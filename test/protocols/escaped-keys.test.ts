/**
 * Every format reads keys its writer escapes (`"\n"` in JSON, `"\u003e"` where JSON stands inside
 * markup) as written, even after the process parsed a key `\` at the same place: V8's JSON.parse
 * then reads such keys as `\` (nodejs/node#63785), and the readers must not rely on it. Found by
 * the round-trip property of invariants.test.ts, which failed only after earlier cases had set
 * the trap.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import { FORMATS, type JsonSchema, type ToolDefinition } from '../../src/index.ts';

/** Keys the writers escape: a line break everywhere, `<` and `>` inside markup, a quote. */
const KEYS = ['\n', '>', '<', '"'];
/** The key before each: the trap is laid for an object of exactly these two keys. */
const FIRST_KEYS = ['x', '__proto__'];

/** An object of `first` and `key`, `first` an own key even when it is `__proto__`. */
function pair(first: string, key: string, value: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  Object.defineProperty(object, first, { value: 0, enumerable: true, writable: true });
  object[key] = value;
  return object;
}

/** The native parser reads `{FIRST:0,"\\":1}`: a later `{FIRST:0,"\u003e":1}` reads as `\`. */
function setTheTrap(): void {
  for (const first of FIRST_KEYS) JSON.parse(`{${JSON.stringify(first)}:0,"\\\\":1}`);
}

const input: Record<string, unknown> = {};
const properties: Record<string, JsonSchema> = {};
FIRST_KEYS.forEach((first, firstIndex) => {
  KEYS.forEach((key, index) => {
    const name = `m${firstIndex}${index}`;
    input[name] = pair(first, key, index + 1);
    properties[name] = {
      type: 'object',
      properties: Object.defineProperty({ [key]: { type: 'integer' } }, first, {
        value: { type: 'integer' },
        enumerable: true,
      }),
    };
  });
});
const TOOL: ToolDefinition = { name: 'probe_tool', inputSchema: { type: 'object', properties } };

describe.each(
  // XML writes nested keys as element names, which these keys cannot be.
  FORMATS.filter((entry) => entry.name !== 'xml').map((entry) => [entry.name, entry] as const),
)('%s', (_name, entry) => {
  it('reads escaped one-character keys as written after the native parser was trapped', () => {
    setTheTrap();
    const protocol = entry.create();
    const text = protocol.formatToolCall({ toolName: TOOL.name, input });
    const content = protocol.parseGeneratedText(text, { tools: [TOOL], startInReasoning: false });
    const calls = content.filter((part) => part.type === 'tool-call');
    expect(calls).toHaveLength(1);
    const read = parseJsonText(calls[0]!.input) as Record<string, Record<string, unknown>>;
    for (const [name, member] of Object.entries(input)) {
      expect(Object.keys(read[name]!)).toEqual(Object.keys(member as object));
    }
    expect(read).toEqual(input);
    expect(calls[0]!.problems).toBeUndefined();
  });
});
