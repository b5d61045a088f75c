/**
 * A tool's name alone on a line, followed by its parameter tags: some models drop the opening
 * tag. Read as a call that ends at its closing tag, the next such line, or the end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ToolDefinition, xmlProtocol } from '../../../../src/index.ts';
import {
  contentAtEverySplit,
  contentOf,
  splitAt,
  streamEvents,
  streamingViolations,
} from '../../helpers.ts';

const xml = xmlProtocol();
const pathTool = (name: string): ToolDefinition => ({
  name,
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
});
const searchTool: ToolDefinition = {
  name: 'search',
  inputSchema: {
    type: 'object',
    properties: { query: { type: 'string' }, path: { type: 'string' } },
    required: ['query'],
  },
};
const noParameters: ToolDefinition = { name: 'status', inputSchema: { type: 'object' } };
const tools = [pathTool('list_dir'), pathTool('read_file'), searchTool, noParameters];

type Part = { type: string; text?: string; toolName?: string; input?: string };
const summary = (content: unknown[]) =>
  (content as Part[]).map((part) =>
    part.type === 'tool-call'
      ? `tool-call ${part.toolName} ${part.input}`
      : `${part.type}: ${part.text}`,
  );

describe('xml: a tool name on a bare line', () => {
  it('reads two calls, the first ended by the next tool-name line', () => {
    const text =
      'list_dir\n  <path>/src</path>\nread_file\n  <path>/src/main.ts</path>\n</read_file>';
    expect(summary(contentAtEverySplit(xml, text, { tools }))).toEqual([
      'tool-call list_dir {"path":"/src"}',
      'tool-call read_file {"path":"/src/main.ts"}',
    ]);
  });

  it('reads one after prose, ended by the end of the output', () => {
    const text = 'Let me search.\nsearch\n<query>login</query>\n<path>src</path>';
    expect(summary(contentAtEverySplit(xml, text, { tools }))).toEqual([
      'text: Let me search.',
      'tool-call search {"query":"login","path":"src"}',
    ]);
  });

  it('ends at prose on a later line, which stays text', () => {
    const text = 'read_file\n<path>a.ts</path>\nThat shows the file.';
    expect(summary(contentAtEverySplit(xml, text, { tools }))).toEqual([
      'tool-call read_file {"path":"a.ts"}',
      'text: \nThat shows the file.',
    ]);
  });

  it("ends at another tool's opening tag", () => {
    const text = 'list_dir\n<path>src</path>\n<read_file><path>b</path></read_file>';
    expect(summary(contentAtEverySplit(xml, text, { tools }))).toEqual([
      'tool-call list_dir {"path":"src"}',
      'tool-call read_file {"path":"b"}',
    ]);
  });

  it('is not a call when the next line does not start with one of its parameter tags', () => {
    for (const text of [
      'read_file\nthe file is long',
      'read_file\n<query>x</query>',
      'read_file is what I use\n<path>a</path>',
      'status\n<path>a</path>',
      'my read_file\n<path>a</path>',
    ]) {
      const content = contentAtEverySplit(xml, text, { tools }) as Part[];
      expect(
        content.some((part) => part.type === 'tool-call'),
        text,
      ).toBe(false);
      expect(content.map((part) => part.text ?? '').join(''), text).toBe(text);
    }
  });

  it('is reported, not run, when the output is cut off', () => {
    const text = 'read_file\n<path>a.ts</path>';
    const content = contentAtEverySplit(xml, text, { tools }, { interrupted: true }) as Part[];
    expect(content.map((part) => part.type)).toEqual(['error', 'text']);
  });
});

describe('xml: tool-name lines in any text, split anywhere', () => {
  it('give the same content and a whole streaming contract', () => {
    const pieces = [
      '\n',
      ' ',
      '\t',
      '\r',
      ' '.repeat(40),
      'list_dir',
      'list',
      'read_file',
      'read',
      '_x',
      'a',
      '<path>',
      '</path>',
      '<',
      '</read_file>',
      '<list_dir>',
      '`',
      '<x>',
      '<think>',
      '</think>',
    ];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 50 }).map((parts) => parts.join('')),
        fc.array(fc.nat(), { maxLength: 6 }),
        (text, cuts) => {
          const whole = streamEvents(xml, [text], { tools });
          const split = streamEvents(xml, splitAt(text, cuts), { tools });
          expect(contentOf(split)).toEqual(contentOf(whole));
          expect(streamingViolations(split)).toEqual([]);
          expect(contentOf(streamEvents(xml, [...text], { tools }))).toEqual(contentOf(whole));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
