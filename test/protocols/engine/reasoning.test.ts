/**
 * Reasoning blocks, for every protocol: they do not nest, nothing in a closed block is a call,
 * and complete calls in a block the model never closed are emitted after it.
 */
import { describe, expect, it } from 'vitest';
import {
  executeProtocol,
  hermesProtocol,
  type ToolCallProtocol,
  type ToolDefinition,
  xmlProtocol,
} from '../../../src/index.ts';
import { expectLinearEngineWork, expectLinearGrowth } from '../../support/growth.ts';
import { contentAtEverySplit } from '../helpers.ts';

const listFiles: ToolDefinition = {
  name: 'list_files',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' } },
    required: ['path'],
  },
};
const tools = [listFiles];

const CALLS: [string, ToolCallProtocol, string][] = [
  ['xml', xmlProtocol(), '<list_files><path>src</path></list_files>'],
  [
    'hermes',
    hermesProtocol(),
    '<tool_call>{"name": "list_files", "arguments": {"path": "src"}}</tool_call>',
  ],
  [
    'execute',
    executeProtocol(),
    '<execute>[{"name": "list_files", "args": {"path": "src"}}]</execute>',
  ],
];

type Part = {
  type: string;
  text?: string;
  toolName?: string;
  input?: string;
  error?: { code: string; raw: string };
};

describe.each(CALLS)('%s: reasoning', (_name, protocol, call) => {
  it('ends at the first matching closer: blocks do not nest', () => {
    // A real agent: <thinking> never closed, later a second <thinking>…</thinking>, then a call.
    const text = `<thinking>Let me look.\n\n<thinking>I need the files.</thinking>\n${call}`;
    const content = contentAtEverySplit(protocol, text, { tools }) as Part[];
    expect(content.filter((part) => part.type === 'tool-call')).toMatchObject([
      { toolName: 'list_files', input: '{"path":"src"}' },
    ]);
    expect(content[0]).toEqual({
      type: 'reasoning',
      text: 'Let me look.\n\n<thinking>I need the files.',
    });
  });

  it('reads nothing inside a closed block as a call', () => {
    const text = `<think>I could write ${call} here.</think>Done.`;
    const content = contentAtEverySplit(protocol, text, { tools }) as Part[];
    expect(content.some((part) => part.type === 'tool-call')).toBe(false);
    expect(content.at(-1)).toEqual({ type: 'text', text: 'Done.' });
  });

  it('emits complete calls from a block that never closed, after the reasoning', () => {
    const text = `<think>I will list the files.\n${call}\nThen I read them.\n${call}`;
    const content = contentAtEverySplit(protocol, text, { tools }) as Part[];
    expect(content.map((part) => part.type)).toEqual(['reasoning', 'tool-call', 'tool-call']);
    expect(content[0]!.text).toBe(text.slice('<think>'.length));
  });

  it('does so when the template opened the block (startInReasoning)', () => {
    const text = `I will list the files.\n${call}`;
    const content = contentAtEverySplit(protocol, text, {
      tools,
      startInReasoning: true,
    }) as Part[];
    expect(content.map((part) => part.type)).toEqual(['reasoning', 'tool-call']);
  });

  it('drops an opener that repeats the one the template opened, at the output start only', () => {
    // ERNIE's template ends its prompt in <think>, and the model may write <think> again.
    const text = `<think>I will list the files.</think>\n${call}`;
    const content = contentAtEverySplit(protocol, text, {
      tools,
      startInReasoning: true,
    }) as Part[];
    expect(content.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call']);
    expect(content[0]!.text).toBe('I will list the files.');
    // Later, or after anything else, the opener is reasoning text as before (blocks do not nest).
    const later = contentAtEverySplit(protocol, ` <think>x</think>${call}`, {
      tools,
      startInReasoning: true,
    }) as Part[];
    expect(later[0]).toEqual({ type: 'reasoning', text: ' <think>x' });
    // An output that only begins like the opener keeps it as reasoning.
    const cut = contentAtEverySplit(protocol, '<thi', { tools, startInReasoning: true }) as Part[];
    expect(cut).toEqual([{ type: 'reasoning', text: '<thi' }]);
  });

  it('reports those calls instead when the output hit its length limit', () => {
    const text = `<think>I will list the files.\n${call}\nand then`;
    const content = contentAtEverySplit(protocol, text, { tools }, { interrupted: true }) as Part[];
    expect(content.map((part) => part.type)).toEqual(['reasoning', 'error']);
    expect(content[1]!.error).toMatchObject({ code: 'incomplete-call', raw: call });
  });

  it('emits no call for a block that never closed and holds only a cut-off call', () => {
    const text = `<think>I will list the files.\n${call.slice(0, call.indexOf('src') + 2)}`;
    const content = contentAtEverySplit(protocol, text, { tools }) as Part[];
    expect(content.map((part) => part.type)).toEqual(['reasoning']);
  });
});

describe('reasoning blocks that never close', () => {
  it('stay linear with many openers inside (they are not read again and again)', () => {
    const text = (count: number) =>
      `<think>${'<think> x '.repeat(count)}<list_files><path>a</path></list_files>`;
    const read = (source: string) => {
      const parser = xmlProtocol().createStreamParser({ tools });
      return [...parser.push(source), ...parser.end()];
    };
    expect(read(text(20_000)).filter((event) => event.type === 'tool-call')).toHaveLength(1);
    expectLinearEngineWork(text, read, 1_000);
    expectLinearGrowth(text, read, 1_000);
  });
});
