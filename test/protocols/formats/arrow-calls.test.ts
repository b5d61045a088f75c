/**
 * The `[TOOL_CALL] {tool => …}` arrow form. Vectors from agents' parsers and tests of MiniMax
 * M2.5/M2.7 output (research-23 §17: a Rust `parse_text_tool_calls` test, a Rust
 * `rescue_tool_call_from_text`, a TS visible-text stripper, a Python MiniMax parser): CLI-flag,
 * JSON and bare-key arguments, no newlines, the bracket-less variant with an extra `}`, text
 * around blocks, and the rule that only declared tools are called.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../../src/index.ts';
import {
  arrowCallsFormat,
  arrowCallsProtocol,
  readArrowBlock,
} from '../../../src/protocols/formats/arrow-calls.ts';
import { TOOLS } from '../helpers.ts';
import {
  callsIn,
  errorsIn,
  itKeepsTheStreamInvariants,
  itStaysLinear,
  partsOf,
  textIn,
} from './json-format-checks.ts';
import {
  expectNoWrapperIn,
  itNeverReadsResultsAsCalls,
  itReadsProseAndItsOwnCallsBack,
} from './spec-format-checks.ts';

const arrow = arrowCallsProtocol();
const loose = (name: string): ToolDefinition => ({ name, inputSchema: { type: 'object' } });
const tools = [
  ...TOOLS,
  loose('memory_query'),
  loose('read_file'),
  loose('shell'),
  loose('echo_tool'),
  loose('memory_graph_search'),
  loose('Glob'),
  {
    name: 'top',
    inputSchema: { type: 'object', properties: { top_k: { type: 'integer' } } },
  } satisfies ToolDefinition,
];
const WRAPPERS = ['[TOOL_CALL]', '[/TOOL_CALL]', '{tool =>'];

describe('arrow-calls', () => {
  it('reads CLI-flag arguments, multi-line, with numbers', () => {
    const parts = partsOf(
      arrow,
      '\n\n\n[TOOL_CALL]\n{tool => "memory_query", args => {\n  --top_k 20\n}}\n[/TOOL_CALL]',
      { tools },
    );
    expect(callsIn(parts)).toEqual([{ name: 'memory_query', input: { top_k: 20 } }]);
    expect(textIn(parts).trim()).toBe('');
  });

  it('reads bare-key JSON, JSON, and a block with no newlines', () => {
    expect(
      callsIn(
        partsOf(
          arrow,
          '[TOOL_CALL]\n{tool => "read_file", args => {path: "README.md"}}\n[/TOOL_CALL]',
          {
            tools,
          },
        ),
      ),
    ).toEqual([{ name: 'read_file', input: { path: 'README.md' } }]);
    expect(
      callsIn(
        partsOf(arrow, '[TOOL_CALL]{tool => "Glob", args => {"pattern":"*"}}[/TOOL_CALL]', {
          tools,
        }),
      ),
    ).toEqual([{ name: 'Glob', input: { pattern: '*' } }]);
    expect(
      callsIn(
        partsOf(
          arrow,
          '[TOOL_CALL]{tool => "shell", args => {--command "echo hello"}}[/TOOL_CALL]',
          {
            tools,
          },
        ),
      ),
    ).toEqual([{ name: 'shell', input: { command: 'echo hello' } }]);
  });

  it('reads the bracket-less variant with an extra closing brace', () => {
    expect(
      callsIn(
        partsOf(
          arrow,
          'TOOL_CALL\n{tool => "shell", args => { --command "uname -a" }}}\n/TOOL_CALL',
          {
            tools,
          },
        ),
      ),
    ).toEqual([{ name: 'shell', input: { command: 'uname -a' } }]);
  });

  it('keeps the text around blocks, and no wrapper in it', () => {
    const parts = partsOf(
      arrow,
      'I will call the tool.\n\n[TOOL_CALL]\n{tool => "echo_tool", args => {\n  --value "tool output"\n}}\n[/TOOL_CALL]',
      { tools },
    );
    expect(callsIn(parts)).toEqual([{ name: 'echo_tool', input: { value: 'tool output' } }]);
    expect(textIn(parts)).toBe('I will call the tool.\n\n');
    const chinese = partsOf(
      arrow,
      '先看一下。\n[TOOL_CALL]\n{tool => "Glob", args => {"pattern":"*"}}\n[/TOOL_CALL]\n完成。',
      { tools },
    );
    expect(callsIn(chinese)).toEqual([{ name: 'Glob', input: { pattern: '*' } }]);
    expect(textIn(chinese)).toBe('先看一下。\n\n完成。');
    expectNoWrapperIn(textIn(chinese), WRAPPERS);
  });

  it('reads Perl pairs, a call with no arguments, and coerces by the schema', () => {
    expect(readArrowBlock('{tool => "memory_query", args => {query => "topic", k => 3}}')).toEqual({
      kind: 'call',
      name: 'memory_query',
      input: { query: 'topic', k: 3 },
    });
    expect(
      callsIn(partsOf(arrow, '[TOOL_CALL]{tool => "read_file"}[/TOOL_CALL]', { tools })),
    ).toEqual([{ name: 'read_file', input: {} }]);
    expect(
      callsIn(
        partsOf(arrow, '[TOOL_CALL]{tool => "top", args => {--top_k "5"}}[/TOOL_CALL]', { tools }),
      ),
    ).toEqual([{ name: 'top', input: { top_k: 5 } }]);
  });

  it('calls only declared tools; a placeholder or prose stays text', () => {
    const unknown = '[TOOL_CALL]\n{tool => "rm_rf", args => {--path "/"}}\n[/TOOL_CALL]';
    expect(callsIn(partsOf(arrow, unknown, { tools }))).toEqual([]);
    expect(textIn(partsOf(arrow, unknown, { tools }))).toBe(unknown);
    const placeholder = '[TOOL_CALL]{tool => "shell", args => {...}}[/TOOL_CALL]';
    expect(textIn(partsOf(arrow, placeholder, { tools }))).toBe(placeholder);
    const prose = 'Write [TOOL_CALL] then the call.';
    expect(textIn(partsOf(arrow, prose, { tools }))).toBe(prose);
  });

  it('reports a declared call it cannot read, and never runs a cut-off one', () => {
    const broken = partsOf(
      arrow,
      '[TOOL_CALL]{tool => "shell", args => {--command "echo}}[/TOOL_CALL]',
      { tools },
    );
    expect(callsIn(broken)).toEqual([]);
    expect(errorsIn(broken)[0]).toMatchObject({ code: 'malformed-call', toolName: 'shell' });
    const cut = partsOf(arrow, '[TOOL_CALL]\n{tool => "shell", args => {--command "ls"}}', {
      tools,
      interrupted: true,
    });
    expect(callsIn(cut)).toEqual([]);
    // The closer alone missing at the end of a finished output: the call stands.
    const unclosed = partsOf(arrow, '[TOOL_CALL]\n{tool => "shell", args => {--command "ls"}}', {
      tools,
    });
    expect(callsIn(unclosed)).toEqual([{ name: 'shell', input: { command: 'ls' } }]);
  });

  it('names the tools its blocks call, for the agent', () => {
    expect(
      arrowCallsFormat.toolNamesIn?.(
        '[TOOL_CALL]{tool => "shell", args => {}}[/TOOL_CALL] and {tool => "launch"} {tool => "shell"} {tool => "open',
      ),
    ).toEqual(['shell', 'launch']);
  });

  it('writes calls it reads back', () => {
    expect(arrow.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })).toBe(
      '[TOOL_CALL]\n{tool => "get_weather", args => {"city":"Oslo"}}\n[/TOOL_CALL]',
    );
  });
});

describe('arrow-calls: invariants', () => {
  itKeepsTheStreamInvariants(arrow, [
    '[TOOL_CALL]',
    '[/TOOL_CALL]',
    'TOOL_CALL\n',
    '/TOOL_CALL',
    '{tool => "get_weather", args => {',
    '--city "Oslo"',
    '--days 3',
    'city => "Oslo"',
    '}}',
  ]);
  itNeverReadsResultsAsCalls(arrow, WRAPPERS);
  itReadsProseAndItsOwnCallsBack(arrow);
  itStaysLinear(
    arrow,
    (index) => `[TOOL_CALL]\n{tool => "get_weather", args => {--city "c${index}"}}\n[/TOOL_CALL]`,
    (argument) =>
      `[TOOL_CALL]\n{tool => "write_file", args => {--path "p" --content "${argument}"}}\n[/TOOL_CALL]`,
  );
});
