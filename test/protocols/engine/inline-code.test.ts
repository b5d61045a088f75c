/** A call written inside a one-line Markdown code span is text; fenced and plain calls are calls. */
import { describe, expect, it } from 'vitest';
import {
  executeProtocol,
  hermesProtocol,
  type ToolCallProtocol,
  type ToolDefinition,
  xmlProtocol,
} from '../../../src/index.ts';
import { InlineCodeTracker } from '../../../src/protocols/engine/inline-code.ts';
import { contentAtEverySplit } from '../helpers.ts';

const readFile: ToolDefinition = {
  name: 'read_file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const tools = [readFile];

const CALLS: [string, ToolCallProtocol, string][] = [
  ['xml', xmlProtocol(), '<read_file><path>a.ts</path></read_file>'],
  [
    'hermes',
    hermesProtocol(),
    '<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>',
  ],
  [
    'execute',
    executeProtocol(),
    '<execute>[{"name": "read_file", "args": {"path": "a.ts"}}]</execute>',
  ],
];

type Part = { type: string; text?: string };
const types = (content: unknown[]) => (content as Part[]).map((part) => part.type);

describe.each(CALLS)('%s: inline code', (_name, protocol, call) => {
  it('keeps a call inside a one-line code span as text', () => {
    const text = `Write \`${call}\` to read a file.`;
    const content = contentAtEverySplit(protocol, text, { tools });
    expect(content).toEqual([{ type: 'text', text }]);
  });

  it('keeps it as text with a double-backtick span', () => {
    const text = `Like \`\` ${call} \`\` this.`;
    expect(contentAtEverySplit(protocol, text, { tools })).toEqual([{ type: 'text', text }]);
  });

  it('keeps a reasoning tag in a code span as text', () => {
    const text = 'Models write `<think>` first.';
    expect(contentAtEverySplit(protocol, text, { tools })).toEqual([{ type: 'text', text }]);
  });

  it('reads a call after a closed code span', () => {
    const text = `Use \`read_file\`:\n${call}`;
    expect(types(contentAtEverySplit(protocol, text, { tools }))).toEqual(['text', 'tool-call']);
  });

  it('reads a call after an unclosed backtick when the line ends before a closing one', () => {
    const text = `It's a \`tick ${call}\nand more \` here.`;
    expect(types(contentAtEverySplit(protocol, text, { tools }))).toEqual([
      'text',
      'tool-call',
      'text',
    ]);
  });

  it('reads a call after an unclosed backtick at the end of the output', () => {
    const text = `a \` ${call}`;
    expect(types(contentAtEverySplit(protocol, text, { tools }))).toEqual(['text', 'tool-call']);
  });

  it('does not take a fence for a code span', () => {
    const text = `\`\`\`\n${call}\n\`\`\``;
    expect(types(contentAtEverySplit(protocol, text, { tools }))).toContain('tool-call');
  });
});

describe('InlineCodeTracker', () => {
  const inSpanAfter = (...pieces: string[]) => {
    const tracker = new InlineCodeTracker();
    for (const piece of pieces) tracker.read(piece);
    return tracker.inSpan();
  };

  it('opens a span at a run and closes it at a run of the same length', () => {
    expect(inSpanAfter('a `b')).toBe(true);
    expect(inSpanAfter('a `b` c')).toBe(false);
    expect(inSpanAfter('a ``b ` c')).toBe(true);
    expect(inSpanAfter('a ``b `` c')).toBe(false);
  });

  it('reads runs split across pieces', () => {
    expect(inSpanAfter('a `', '`b `', '` c')).toBe(false);
    expect(inSpanAfter('a `', '`b `')).toBe(true);
  });

  it('ends spans at a line break', () => {
    expect(inSpanAfter('a `b\nc')).toBe(false);
    expect(inSpanAfter('a `b', '\n', 'c')).toBe(false);
  });

  it('takes three backticks at a line start for a fence, not a span', () => {
    expect(inSpanAfter('```\n')).toBe(false);
    expect(inSpanAfter('text\n   ```js')).toBe(false);
    expect(inSpanAfter('text ```js')).toBe(true);
    expect(inSpanAfter('    ```js')).toBe(true);
  });
});

describe('inline code around calls', () => {
  const xml = xmlProtocol();
  const tools = [readFile, { ...readFile, name: 'list_dir' }];

  it('forgets a backtick left open before a call once the call is read', () => {
    const text =
      "It's `odd\n<read_file><path>a</path></read_file> then `<read_file><path>b</path></read_file>` shown.";
    const content = contentAtEverySplit(xml, text, { tools }) as { type: string; text?: string }[];
    expect(content.map((part) => part.type)).toEqual(['text', 'tool-call', 'text']);
    expect(content[2]!.text).toContain('`<read_file><path>b</path></read_file>`');
  });

  it('reads a tool name on its own line after a backtick left open on the line before', () => {
    const text = 'Use `x\nlist_dir\n<path>a</path>\nthen `<read_file><path>b</path></read_file>`.';
    const content = contentAtEverySplit(xml, text, { tools }) as { type: string }[];
    expect(content.map((part) => part.type)).toEqual(['text', 'tool-call', 'text']);
  });
});
