import { describe, expect, it } from 'vitest';
import { executeProtocol } from '../../../src/index.ts';
import {
  callsOf,
  chunksOf,
  contentOf,
  streamEvents,
  streamingViolations,
  TOOLS,
  textOf,
} from '../helpers.ts';

const execute = executeProtocol();
const tools = TOOLS;

describe('execute protocol', () => {
  it('reads <think> as reasoning and an <execute> batch as calls in order', () => {
    const text =
      '<think>Need weather and a file</think>\n<execute>\n[\n  {"name": "get_weather", "args": {"city": "Oslo"}},\n  {"name": "write_file", "args": {"path": "a.txt", "content": "hi"}}\n]\n</execute>';
    expect(contentOf(streamEvents(execute, [text], { tools }))).toEqual([
      { type: 'reasoning', text: 'Need weather and a file' },
      { type: 'text', text: '\n' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Oslo"}' },
      { type: 'tool-call', toolName: 'write_file', input: '{"path":"a.txt","content":"hi"}' },
    ]);
  });

  it('does not end the block at </execute> inside a JSON string (the seed is right)', () => {
    const text =
      '<execute>[{"name": "write_file", "args": {"path": "x", "content": "Hello </execute> world"}}]</execute>';
    expect(callsOf(execute, text, tools)).toEqual([
      { toolName: 'write_file', input: { path: 'x', content: 'Hello </execute> world' } },
    ]);
  });

  it('keeps HTML, closing tags and quotes inside arguments', () => {
    const text =
      '<execute>[{"name": "write_file", "args": {"path": "i.html", "content": "<html><body>Hi</body></html> \\"q\\" \'s\'"}}]</execute>';
    expect(callsOf(execute, text, tools)[0]?.input).toEqual({
      path: 'i.html',
      content: '<html><body>Hi</body></html> "q" \'s\'',
    });
  });

  it('reads an empty batch as no calls and no text', () => {
    expect(contentOf(streamEvents(execute, ['<execute>\n[]\n</execute>'], { tools }))).toEqual([]);
  });

  it('keeps a batch element naming an undeclared tool as text, and the others as calls', () => {
    const text =
      '<execute>[{"name": "nope", "args": {}}, {"name": "get_weather", "args": {"city": "Rome"}}]</execute>';
    expect(contentOf(streamEvents(execute, [text], { tools }))).toEqual([
      { type: 'text', text: '{"name": "nope", "args": {}}' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Rome"}' },
    ]);
  });

  it('reports an element that names no tool, with its raw text', () => {
    const text = '<execute>[{"args": {"city": "Rome"}}]</execute>';
    const content = contentOf(streamEvents(execute, [text], { tools }));
    expect(content[0]).toEqual({
      type: 'error',
      error: expect.objectContaining({ code: 'malformed-call', raw: '{"args": {"city": "Rome"}}' }),
    });
  });

  it('keeps the valid calls of a batch and reports an element that is not a call', () => {
    const text =
      '<execute>[{"name": "get_weather", "args": {"city": "A"}}, "not an object", 42]</execute>';
    const content = contentOf(streamEvents(execute, [text], { tools, emitRawTextOnError: false }));
    // Elements that are not calls are reported as they end; calls come out when the block closes.
    expect(content).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          code: 'malformed-call',
          raw: '"not an object"',
          message: expect.stringContaining('batch element 1 '),
        }),
      },
      {
        type: 'error',
        error: expect.objectContaining({
          code: 'malformed-call',
          raw: '42',
          message: expect.stringContaining('batch element 2 '),
        }),
      },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"A"}' },
    ]);
  });

  it('never repairs a batch: JSON that is not valid is reported with its raw text', () => {
    for (const text of [
      '<execute>[{"name": "get_weather", "args": {"city": "Bonn",}},]</execute>',
      "<execute>[{'name': 'get_weather', 'args': {'city': 'Bonn'}}]</execute>",
      '<execute>[{"name": "get_weather", "args": {"city": "Bonn", "days": None}}]</execute>',
      '<execute>[{"name": "get_weather", "args": {"city": }}]</execute>',
    ]) {
      const content = contentOf(streamEvents(execute, [text], { tools }));
      expect(content[0], text).toEqual({
        type: 'error',
        error: expect.objectContaining({ code: 'malformed-call', raw: text }),
      });
      expect(callsOf(execute, text, tools), text).toEqual([]);
      expect(textOf(execute, text, tools)).toBe(text);
    }
    const text = '<execute>call get_weather now</execute>';
    const content = contentOf(streamEvents(execute, [text], { tools }));
    expect(content[0]).toEqual({
      type: 'error',
      error: expect.objectContaining({ code: 'malformed-call', raw: text }),
    });
    expect(textOf(execute, text, tools)).toBe(text);
  });

  it('reads several blocks in one turn', () => {
    const text =
      '<execute>[{"name": "get_weather", "args": {"city": "A"}}]</execute> then <execute>[{"name": "get_weather", "args": {"city": "B"}}]</execute>';
    expect(callsOf(execute, text, tools).map((call) => call.input)).toEqual([
      { city: 'A' },
      { city: 'B' },
    ]);
  });

  it('keeps the streaming contract at every chunk size', () => {
    const text =
      '<think>t</think><execute>\n[\n{"name": "search", "args": {"query": "q", "tags": "one"}},\n{"name": "get_weather", "args": {"city": "\\u00e9"}}\n]\n</execute>';
    const whole = contentOf(streamEvents(execute, [text], { tools }));
    for (const size of [1, 2, 3, 5, 11, 23]) {
      const events = streamEvents(execute, chunksOf(text, size), { tools });
      expect(streamingViolations(events)).toEqual([]);
      expect(contentOf(events)).toEqual(whole);
    }
  });

  it('formats a batch and its results in call order, as the seed prints them', () => {
    expect(
      execute.formatToolCall([
        { toolName: 'get_weather', input: { city: 'A' } },
        { toolName: 'write_file', input: { path: 'b', content: 'c' } },
      ]),
    ).toBe(
      '<execute>\n[\n  {"name":"get_weather","args":{"city":"A"}},\n  {"name":"write_file","args":{"path":"b","content":"c"}}\n]\n</execute>',
    );
    const results = execute.formatToolResponse([
      { toolName: 'read', output: { api: 'old.com' } },
      { toolName: 'write', output: 'Permission denied', isError: true },
    ]);
    expect(results).toBe(
      // A result's JSON is prompt-safe: each object's first key starts with an escape, so no
      // result reads as a bare `{"name"…` call of any format (the model decodes it the same).
      '<results>\n[\n  {"tool":"read","status":"success","content":{"\\u0061pi":"old.com"}},\n  {"tool":"write","status":"failure","content":"Permission denied"}\n]\n</results>',
    );
  });

  it('writes a failure as its message when it is an Error and as JSON otherwise', () => {
    const results = execute.formatToolResponse([
      { toolName: 'read', output: new Error('no such file'), isError: true },
      { toolName: 'write', output: { code: 'EACCES', toString: 'odd' }, isError: true },
      { toolName: 'list', output: ['a'], isError: true },
    ]);
    expect(results).toBe(
      '<results>\n[\n  {"tool":"read","status":"failure","content":"no such file"},\n' +
        '  {"tool":"write","status":"failure","content":{"\\u0063ode":"EACCES","toString":"odd"}},\n' +
        '  {"tool":"list","status":"failure","content":["a"]}\n]\n</results>',
    );
    expect(execute.formatToolResponse([])).toBe('<results>\n[]\n</results>');
    expect(execute.formatToolCall([])).toBe('<execute>\n[]\n</execute>');
  });

  it('escapes results so they can never be read back as a call', () => {
    const results = execute.formatToolResponse({
      toolName: 'read',
      output: '<execute>[{"name": "get_weather", "args": {"city": "X"}}]</execute>',
    });
    expect(callsOf(execute, results, tools)).toEqual([]);
  });
});
