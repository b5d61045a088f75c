/**
 * Grammar and parser agree, for every format that gets a grammar, checked with a real engine
 * (xgrammar in WebAssembly): every call the format writes for valid inputs is accepted; calls to
 * undeclared tools, without a required argument or with a wrongly typed one are refused; a
 * demanded call cannot be skipped; text is accepted under `auto`; and what a random walk of the
 * grammar writes, the parser reads as valid calls of declared tools, with nothing lost. The GBNF
 * is also checked against what llama.cpp's parser refuses and xgrammar lets through.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolCallProtocol } from '../../../src/index.ts';
import {
  type EbnfGrammar,
  type GbnfGrammar,
  grammarFor,
} from '../../../src/protocols/grammar/index.ts';
import { FORMATS } from '../../../src/protocols/registry.ts';
import { specOf } from '../../../src/protocols/spec/define.ts';
import type { FormatSpec } from '../../../src/protocols/spec/types.ts';
import {
  ARGUMENT_TOOLS,
  argumentCall,
  closersOf,
  disposedAfterAll,
  openerHintsOf,
  parserOpenersOf,
  rawClosers,
} from '../../support/grammar-fixtures.ts';
import {
  accepts,
  compileEbnf,
  type EngineGrammar,
  grammarSupported,
  randomWalk,
  seededRandom,
} from '../../support/xgrammar.ts';
import { gbnfProblems } from '../../support/xgrammar-gbnf-rules.ts';

const TOOLS = ARGUMENT_TOOLS;
const call = argumentCall;

function supports(protocol: ToolCallProtocol): boolean {
  return grammarSupported(() =>
    grammarFor(protocol, { tools: TOOLS, toolChoice: 'required', syntax: 'gbnf' }),
  );
}

const SUPPORTED = FORMATS.filter((entry) => supports(entry.create())).map(
  (entry) => [entry.name, entry.create()] as const,
);

const keep = disposedAfterAll();

function compile(text: string): Promise<EngineGrammar> {
  return keep(compileEbnf(text));
}

function gbnf(
  protocol: ToolCallProtocol,
  toolChoice: 'auto' | 'required' | 'none' | { toolName: string },
  parallelToolCalls = true,
): GbnfGrammar {
  return grammarFor(protocol, {
    tools: TOOLS,
    toolChoice,
    parallelToolCalls,
    syntax: 'gbnf',
  }) as GbnfGrammar;
}

function wholeAuto(protocol: ToolCallProtocol, parallelToolCalls = true): EbnfGrammar {
  return grammarFor(protocol, {
    tools: TOOLS,
    toolChoice: 'auto',
    parallelToolCalls,
    syntax: 'ebnf',
  }) as EbnfGrammar;
}

/** Reasoning as the format writes it before `written`: opened (unless the output begins in it) and closed. */
function reasoningBefore(protocol: ToolCallProtocol, written: string): string {
  const spec = specOf(protocol) as FormatSpec;
  const { open, close } = spec.reasoning?.[0] ?? { open: '<think>', close: '</think>' };
  if (!spec.startInReasoning) return `${open}the user wants weather${close}\n`;
  // Apriel's calls begin with its reasoning's closer.
  return written.startsWith(close) ? 'the user wants weather' : `the user wants weather${close}\n`;
}

/** What the parser read: its calls, checked, and whether anything was a fault. */
function readBack(protocol: ToolCallProtocol, reply: string) {
  const events = protocol.parseGeneratedText(reply, { tools: TOOLS });
  const calls = events.filter((event) => event.type === 'tool-call');
  const faults = events.filter((event) => event.type === 'error');
  return { calls, faults, events };
}

describe('hermes under auto (review 24, finding 1)', () => {
  // Calls written in hermes' speculative forms, which the parser reads and the grammar once let
  // through as free text: an argument missing, one undeclared, two calls where one was allowed.
  const hermes = SUPPORTED.find(([name]) => name === 'hermes')?.[1] as ToolCallProtocol;
  const samples = [
    'Ok <function=get_weather>{}</function>',
    'Ok <function=get_weather>{"city": "Oslo", "extra": [1]}</function>',
    'Ok ```\n{"name": "get_weather", "arguments": {}}\n```',
    'Ok {"name": "get_weather", "arguments": {"city": "Oslo"}} and {"name": "get_weather", "arguments": {"city": "Rome"}}',
  ];
  it.each([true, false])('the whole-reply grammar refuses them (parallel %s)', async (parallel) => {
    const whole = await compile(wholeAuto(hermes, parallel).grammar);
    for (const text of samples) {
      expect(readBack(hermes, text).calls.length, text).toBeGreaterThan(0);
      expect(await accepts(whole, text), text).toBe(false);
    }
    // Prose and JSON that opens no call stay writable.
    expect(await accepts(whole, 'Use {"city": "Oslo"} or a <b>tag</b>.')).toBe(true);
  });
});

describe('formats that get a grammar', () => {
  it('include the JSON-codec, parameter-tag, Python and dialect formats', () => {
    const names = SUPPORTED.map(([name]) => name);
    for (const name of [
      'pythonic',
      'gemma4',
      'functiongemma',
      'command-r',
      'arrow-calls',
      'hermes',
      'xlam',
      'kimi-k2',
      'llama3',
      'execute',
      'firefunction',
      'qwen3-coder',
      'glm',
      'minimax',
    ])
      expect(names).toContain(name);
  });

  it('the others are refused with the format and what is missing', () => {
    const refused = FORMATS.filter((entry) => !supports(entry.create()));
    expect(refused.length).toBeGreaterThan(0);
    for (const entry of refused) {
      expect(() =>
        grammarFor(entry.create(), { tools: TOOLS, toolChoice: 'required', syntax: 'gbnf' }),
      ).toThrow(new RegExp(`no grammar for format "${entry.name}": .+`));
    }
  });
});

describe.each(SUPPORTED)('%s', (_name, protocol) => {
  it('writes GBNF llama.cpp reads (names, rules defined, no left recursion, no empty alternative, ASCII classes)', () => {
    for (const grammar of [
      gbnf(protocol, 'required').grammar,
      gbnf(protocol, 'required', false).grammar,
      gbnf(protocol, 'auto').grammar,
      gbnf(protocol, 'none').grammar,
      gbnf(protocol, { toolName: 'write_file' }).grammar,
      wholeAuto(protocol).grammar,
    ]) {
      expect(gbnfProblems(grammar)).toEqual([]);
    }
    const lazy = gbnf(protocol, 'auto');
    expect(lazy.lazy).toBe(true);
    expect(lazy.triggers).toHaveLength(1);
    expect(lazy.triggers[0]?.length).toBeGreaterThan(0);
  });

  it('accepts every batch the format writes, demanded, lazy and whole under auto', async () => {
    const required = await compile(gbnf(protocol, 'required').grammar);
    const lazy = await compile(gbnf(protocol, 'auto').grammar);
    const whole = await compile(wholeAuto(protocol).grammar);
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 3 }), async (calls) => {
        // A tagged format's raw string holding one of its closers is outside its grammar.
        fc.pre(!rawClosers(protocol).some((closer) => JSON.stringify(calls).includes(closer)));
        const written = protocol.formatToolCall(calls);
        expect(await accepts(required, written)).toBe(true);
        expect(await accepts(lazy, written)).toBe(true);
        expect(await accepts(whole, `Let me check.\n${written}`)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('refuses undeclared tools, missing required arguments, wrong types, and skipping a demanded call', async () => {
    const required = await compile(gbnf(protocol, 'required').grammar);
    const write = (toolName: string, input: unknown) =>
      protocol.formatToolCall([{ toolName, input }]);
    expect(await accepts(required, write('get_weather', { city: 'Oslo', days: 2 }))).toBe(true);
    expect(await accepts(required, write('get_time', { city: 'Oslo' }))).toBe(false);
    expect(await accepts(required, write('get_weather', { days: 2 }))).toBe(false);
    expect(await accepts(required, write('get_weather', { city: 'Oslo', days: 'two' }))).toBe(
      false,
    );
    expect(await accepts(required, write('get_weather', { city: 'Oslo', days: 0 }))).toBe(false);
    expect(await accepts(required, write('get_weather', { city: 'Oslo', unit: 'kelvin' }))).toBe(
      false,
    );
    // A wrongly typed value is told apart where it is written otherwise than the string (a
    // tagged or XML format writes a string raw: `1` for content reads as the string "1").
    const wrong = write('write_file', { path: 'a', content: 1 });
    if (wrong !== write('write_file', { path: 'a', content: '1' }))
      expect(await accepts(required, wrong)).toBe(false);
    expect(await accepts(required, 'The weather is fine.')).toBe(false);
    expect(await accepts(required, '')).toBe(false);
    // Reasoning may come first; the call may not be left out after it.
    const reasoning = reasoningBefore(protocol, write('get_weather', { city: 'Oslo' }));
    expect(await accepts(required, reasoning + write('get_weather', { city: 'Oslo' }))).toBe(true);
    expect(await accepts(required, reasoning)).toBe(false);
    const named = await compile(gbnf(protocol, { toolName: 'write_file' }).grammar);
    expect(await accepts(named, write('write_file', { path: 'a', content: 'b' }))).toBe(true);
    expect(await accepts(named, write('get_weather', { city: 'Oslo' }))).toBe(false);
    const single = await compile(gbnf(protocol, 'required', false).grammar);
    const two = protocol.formatToolCall([
      { toolName: 'get_weather', input: { city: 'a' } },
      { toolName: 'get_weather', input: { city: 'b' } },
    ]);
    expect(await accepts(single, two)).toBe(false);
  });

  it('under auto takes plain text, and under none nothing that opens a call', async () => {
    const whole = await compile(wholeAuto(protocol).grammar);
    const none = await compile(gbnf(protocol, 'none').grammar);
    // (No `<`: an opener with a non-ASCII character, DeepSeek's `<｜tool▁calls▁begin｜>`, keeps
    // its ASCII start out of free text, since classes stay ASCII.)
    for (const plain of ['', 'The weather in Oslo is fine.', 'x = 1 and y > 2\n\n- list']) {
      expect(await accepts(whole, plain)).toBe(true);
      expect(await accepts(none, plain)).toBe(true);
    }
    const written = protocol.formatToolCall([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
    expect(await accepts(none, written)).toBe(false);
  });

  it('what a random walk of the grammar writes, the parser reads as valid declared calls, nothing lost', async () => {
    const required = await compile(gbnf(protocol, 'required').grammar);
    const whole = await compile(wholeAuto(protocol).grammar);
    const trigger = gbnf(protocol, 'auto').triggers[0] as string;
    const random = seededRandom(2024);
    let replies = 0;
    for (let walk = 0; walk < 24; walk++) {
      const fromTrigger = walk % 2 === 1;
      const reply = await randomWalk(fromTrigger ? whole : required, random, {
        prefix: fromTrigger ? `Sure.\n${trigger}` : '',
        maxBytes: 2500,
        hints: closersOf(protocol),
      });
      if (reply === undefined) continue;
      replies++;
      const { calls, faults } = readBack(protocol, reply);
      expect(faults, reply).toEqual([]);
      expect(calls.length, reply).toBeGreaterThan(0);
      for (const part of calls) {
        expect(
          TOOLS.map((tool) => tool.name),
          reply,
        ).toContain(part.toolName);
        expect(part.problems, reply).toBeUndefined();
      }
    }
    expect(replies).toBeGreaterThan(6);
  });

  it('free text (and reasoning) under auto and none holds no opener the parser reads, its speculative forms too', async () => {
    const whole = await compile(wholeAuto(protocol).grammar);
    const none = await compile(gbnf(protocol, 'none').grammar);
    const openers = parserOpenersOf(protocol, TOOLS);
    expect(openers.length).toBeGreaterThan(0);
    for (const opener of openers) {
      // A line opener (`\nNAME(`) is read at the output's start without its line break too.
      const call = '{"name": "get_weather", "arguments": {"city": "Oslo"}}';
      const texts = [
        `Ok ${opener}`,
        `Ok ${opener}get_weather>{}</function>`,
        `Ok ${opener}${call}`,
        `Ok ${opener}\n${call}\n\`\`\``,
      ];
      if (opener.startsWith('\n')) texts.push(opener.slice(1));
      for (const text of texts) {
        // Refused, or (reasoning a format's output begins in, where the parser reads no call
        // from it) read as no call at all.
        for (const grammar of [none, whole]) {
          if (!(await accepts(grammar, text))) continue;
          const { calls, faults } = readBack(protocol, text);
          expect([...calls, ...faults], text).toEqual([]);
        }
      }
    }
  });

  it('what a random walk writes under none reads as no call, under auto (one call) as at most one valid declared call, even led to other openers', async () => {
    const none = await compile(gbnf(protocol, 'none').grammar);
    const single = await compile(wholeAuto(protocol, false).grammar);
    const hints = [...openerHintsOf(protocol, TOOLS), ...closersOf(protocol)];
    const random = seededRandom(2025);
    let replies = 0;
    for (let walk = 0; walk < 16; walk++) {
      const underNone = walk % 2 === 0;
      const reply = await randomWalk(underNone ? none : single, random, {
        maxBytes: 1500,
        hints,
      });
      if (reply === undefined) continue;
      replies++;
      const { calls, faults } = readBack(protocol, reply);
      expect(faults, reply).toEqual([]);
      expect(calls.length, reply).toBeLessThanOrEqual(underNone ? 0 : 1);
      for (const part of calls) {
        expect(
          TOOLS.map((tool) => tool.name),
          reply,
        ).toContain(part.toolName);
        expect(part.problems, reply).toBeUndefined();
      }
    }
    expect(replies).toBeGreaterThan(4);
  });
});
