/**
 * Repair never invents data: loose syntax is read, a missing value or key is reported with the
 * raw text. The execute protocol repairs nothing: its JSON must be valid.
 */
import { describe, expect, it } from 'vitest';
import {
  executeProtocol,
  hermesProtocol,
  type ToolCallProtocol,
  type ToolDefinition,
  xmlProtocol,
} from '../../src/index.ts';
import { contentAtEverySplit } from './helpers.ts';

const readTool: ToolDefinition = {
  name: 'read',
  inputSchema: {
    type: 'object',
    properties: { file: { type: 'string' }, lines: { type: 'array', items: { type: 'integer' } } },
  },
};
const tools = [readTool];
type Part = { type: string; input?: string; error?: { code: string; raw: string } };

const PROTOCOLS: Record<string, ToolCallProtocol> = {
  hermes: hermesProtocol(),
  xml: xmlProtocol(),
};
const hermes = (json: string) => `<tool_call>${json}</tool_call>`;
const xml = (json: string) => `<read>${json}</read>`;

describe('repair never invents data', () => {
  it.each([
    ['hermes', hermes('{"name": "read", "arguments": {"file": }}')],
    ['hermes', hermes('{"name": "read", "arguments": {"file": "a", "lines": [1,,2]}}')],
    ['hermes', hermes('{"name": "read", "arguments": {: "a"}}')],
    ['hermes', hermes('{"name": "read", "arguments": {"file": tru}}')],
    ['xml', xml('{"file": }')],
    ['xml', xml('{"file": "a", "lines": [1, -]}')],
  ])('%s: %s is reported, not filled in', (name, text) => {
    const protocol = PROTOCOLS[name]!;
    const content = contentAtEverySplit(protocol, text, { tools }) as Part[];
    expect(content.filter((part) => part.type === 'tool-call')).toEqual([]);
    const errors = content.filter((part) => part.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error!.raw).toBe(text);
  });

  it.each([
    ['hermes', hermes("{'name': 'read', 'arguments': {file: 'a', lines: [1, 2,],}}")],
    ['hermes', hermes('{"name": "read", "arguments": {"file": "a", "lines": [1, 2]}')],
    ['xml', xml("{file: 'a', lines: [1, 2,], }")],
  ])('%s: loose syntax %s is read', (name, text) => {
    const protocol = PROTOCOLS[name]!;
    const content = contentAtEverySplit(protocol, text, { tools }) as Part[];
    const calls = content.filter((part) => part.type === 'tool-call');
    expect(calls.map((call) => JSON.parse(call.input!))).toEqual([{ file: 'a', lines: [1, 2] }]);
  });

  it('a value written as loose JSON in an XML parameter is coerced without inventing nulls', () => {
    const ok = contentAtEverySplit(xmlProtocol(), '<read><lines>[1, 2,]</lines></read>', {
      tools,
    }) as Part[];
    expect(JSON.parse(ok.find((part) => part.type === 'tool-call')!.input!)).toEqual({
      lines: [1, 2],
    });
    const holed = contentAtEverySplit(xmlProtocol(), '<read><lines>[1,,2]</lines></read>', {
      tools,
    }) as Part[];
    expect(holed.find((part) => part.type === 'tool-call')!.input).not.toContain('null');
  });
});

describe('execute: invalid JSON is an error with the raw text', () => {
  it.each([
    '<execute>[{"name": "read", "args": {"file": "a",}}]</execute>',
    "<execute>[{'name': 'read', 'args': {'file': 'a'}}]</execute>",
    '<execute>[{"name": "read", "args": {"file": }}]</execute>',
    '<execute>[{"name": "read", "args": {"file": "a"}}</execute>',
  ])('%s', (text) => {
    const content = contentAtEverySplit(executeProtocol(), text, { tools }) as Part[];
    expect(content.filter((part) => part.type === 'tool-call')).toEqual([]);
    expect(content.find((part) => part.type === 'error')!.error).toMatchObject({
      code: 'malformed-call',
      raw: text,
    });
  });
});
