/**
 * The checks every family of issue 23 gets, whatever its codec (JSON, tagged parameters, Gemma
 * 4's dialect): chosen for its model ids, its tool names found, total and chunk-invariant on its
 * own markup, its calls round-tripped, prose and its own calls read back, results never read as
 * calls, work linear (CPU time and the engine's counted work), and its wrapper markup never left
 * in the text of a read that gave calls. A family's test names its markup and its quirks
 * (`FamilyUnderTest`), calls `describeFamilyChecks`, and reads its own vectors through
 * `familyReaders`, which check every split and the wrappers for it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUndeclaredToolNames } from '../../../src/agent/feedback.ts';
import { parseJsonText } from '../../../src/core/parse-json.ts';
import {
  FORMATS,
  type FormatEntry,
  formatForModel,
  type JsonSchema,
  type ParsedContent,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../../../src/index.ts';
import { expectLinearEngineWork, expectLinearGrowth } from '../../support/growth.ts';
import {
  contentAtEverySplit,
  streamEvents,
  TOOLS,
  weatherTool,
  writeFileTool,
} from '../helpers.ts';
import { COMMON_FRAGMENTS } from './json-format-checks.ts';
import {
  expectTotalAndChunkInvariant,
  fragmentsOf,
  KEY,
  type Member,
  memberOf,
  VALUE_STRING,
} from './parameter-tags-checks.ts';
import { expectProseAndItsOwnCallsReadBack } from './spec-format-checks.ts';

/** The checks `describeFamilyChecks` runs, by the name a known bug is filed under. */
export type FamilyCheck =
  | 'model ids'
  | 'tool names'
  | 'markup split anywhere'
  | 'text no longer than the output'
  | 'round trip'
  | 'round trip of several calls'
  | 'prose and its own calls'
  | 'results'
  | 'bare call in a result'
  | 'linear calls'
  | 'linear openers'
  | 'linear argument'
  | 'engine work';

export interface FamilyUnderTest {
  /** The registry entry: its name, model patterns and tool-name finder. */
  readonly entry: FormatEntry;
  /** The protocol the checks read (default: `entry.create()`). */
  readonly protocol?: ToolCallProtocol;
  /** Which variant of the family `protocol` is, where a family is checked more than once. */
  readonly variant?: string;
  /** Model ids (lower case, as users write them) it is chosen for, and ids it must not take. */
  readonly modelIds: { readonly chosen: readonly string[]; readonly notChosen: readonly string[] };
  /** Fragments of its markup, for text that must read the same split anywhere. */
  readonly markup: readonly string[];
  /** Markup that must never stay in the text once calls are read (also put into results). */
  readonly wrappers: readonly string[];
  /** Outputs the check of the text it reads tries first, every run (an input that once failed). */
  readonly outputs?: readonly string[];
  /** Strings a raw argument value cannot hold (a tagged codec's closers); none for JSON. */
  readonly rawValueLimits?: readonly string[];
  /**
   * Whether a value whose schema says nothing of its type reads back as written (JSON and typed
   * dialects do; a tagged codec reads an untyped raw value by its schema). Default true.
   */
  readonly readsUntypedValues?: boolean;
  /** One call as models write it, and one call whose argument is `argument` (default: the writer's). */
  readonly linear?: {
    readonly call: (index: number) => string;
    readonly bigCall: (argument: string) => string;
  };
  /**
   * A check that fails because of a bug in the format (not fixed here): the check runs as
   * `it.fails`, and the reason names the bug and its failing input.
   */
  readonly knownBugs?: Partial<Record<FamilyCheck, string>>;
}

/** The calls, text, reasoning and faults of one read. */
export interface Reading {
  readonly calls: [string, unknown][];
  readonly text: string;
  readonly reasoning: string;
  readonly errors: { code: string; raw: string }[];
}

export interface ReadOptions {
  readonly tools?: readonly ToolDefinition[];
  readonly interrupted?: boolean;
}

/**
 * Readers of a family's own vectors: each reads the text whole, at every split into two chunks
 * and one character at a time (the same content every time, the streaming contract kept), and,
 * when the read gives calls and no fault, checks that none of `wrappers` stayed in the text.
 */
export function familyReaders(
  protocol: ToolCallProtocol,
  wrappers: readonly string[],
  tools: readonly ToolDefinition[] = TOOLS,
) {
  const parts = (text: string, options: ReadOptions = {}): ParsedContent[] => {
    const content = contentAtEverySplit(
      protocol,
      text,
      { tools: options.tools ?? tools },
      { interrupted: options.interrupted ?? false },
    ) as ParsedContent[];
    const called = content.some((part) => part.type === 'tool-call');
    if (called && !content.some((part) => part.type === 'error')) {
      const plain = content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      for (const wrapper of wrappers)
        expect(plain, `${wrapper} left in the text`).not.toContain(wrapper);
    }
    return content;
  };
  const read = (text: string, interrupted = false): Reading =>
    readingOf(parts(text, { interrupted }));
  return { parts, read };
}

/** One read as its calls (`[name, input]`), text, reasoning and faults. */
export function readingOf(content: readonly ParsedContent[]): Reading {
  const joined = (type: 'text' | 'reasoning') =>
    content.flatMap((part) => (part.type === type ? [part.text] : [])).join('');
  return {
    calls: content.flatMap((part) =>
      part.type === 'tool-call'
        ? [[part.toolName, parseJsonText(part.input)] as [string, unknown]]
        : [],
    ),
    text: joined('text'),
    reasoning: joined('reasoning'),
    errors: content.flatMap((part) =>
      part.type === 'error' ? [{ code: part.error.code, raw: part.error.raw }] : [],
    ),
  };
}

/** Registers every check of `FamilyUnderTest` under one describe block named after the family. */
export function describeFamilyChecks(family: FamilyUnderTest): void {
  const protocol = family.protocol ?? family.entry.create();
  const check = (name: FamilyCheck, title: string, body: () => void) => {
    const bug = family.knownBugs?.[name];
    if (bug) it.fails(`${title} (known bug: ${bug})`, body);
    else it(title, body);
  };
  describe(`${family.entry.name}${family.variant ? ` (${family.variant})` : ''}: the checks every family gets`, () => {
    itIsChosenForItsModelIds(check, family);
    itNamesTheToolsItsCallsUse(check, family.entry);
    itIsTotalAndChunkInvariantOnItsMarkup(check, protocol, family.markup, family.outputs ?? []);
    itRoundTripsItsCalls(check, protocol, family);
    check(
      'prose and its own calls',
      'reads prose and its own calls back from an output read as text, split anywhere',
      () => expectProseAndItsOwnCallsReadBack(protocol),
    );
    itNeverReadsAResultAsACall(check, protocol, family.wrappers);
    itReadsNoCallInAResultOpeningWithABareCall(check, protocol, family.entry);
    itStaysLinearAndCountsLinearWork(check, protocol, family.linear);
  });
}

type Check = (name: FamilyCheck, title: string, body: () => void) => void;

function itIsChosenForItsModelIds(check: Check, family: FamilyUnderTest): void {
  const { entry, modelIds } = family;
  check('model ids', 'is chosen for the models that write it, by id, and not for others', () => {
    const matches = (id: string) => entry.models.some((pattern) => pattern.test(id));
    for (const id of modelIds.chosen) {
      expect(matches(id), id).toBe(true);
      // No family before it in the registry takes the id.
      expect(formatForModel(id).name, id).toBe(entry.name);
    }
    for (const id of modelIds.notChosen) expect(matches(id), id).toBe(false);
    expect(entry.create().name).toBe(entry.name);
  });
}

function itNamesTheToolsItsCallsUse(check: Check, entry: FormatEntry): void {
  check('tool names', 'names the tools its calls use (to tell a model which it invented)', () => {
    const protocol = entry.create();
    const written = protocol.formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo' } },
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
    ]);
    expect(findUndeclaredToolNames(protocol, written, new Set())).toEqual([
      'get_weather',
      'write_file',
    ]);
  });
}

function itIsTotalAndChunkInvariantOnItsMarkup(
  check: Check,
  protocol: ToolCallProtocol,
  markup: readonly string[],
  outputs: readonly string[],
): void {
  check(
    'markup split anywhere',
    'is total and chunk-invariant on text made of its markup, split anywhere',
    () => {
      expectTotalAndChunkInvariant(protocol, fragmentsOfItsOutputs(protocol, markup), 600, {
        textNoLongerThanOutput: false,
      });
    },
  );
  check(
    'text no longer than the output',
    'never reads more text than the output holds, from text made of its markup',
    () => {
      const fragments = fragmentsOfItsOutputs(protocol, markup);
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...fragments), { maxLength: 30 }).map((parts) => parts.join('')),
          fc.boolean(),
          (output, interrupted) => {
            const parser = protocol.createStreamParser({ tools: TOOLS });
            const events = [...parser.push(output), ...parser.end({ interrupted })];
            const text = events.flatMap((event) =>
              event.type === 'text-delta' ? [event.delta] : [],
            );
            expect(text.join('').length, JSON.stringify(output)).toBeLessThanOrEqual(output.length);
          },
        ),
        {
          numRuns: 600,
          examples: outputs.flatMap((output) => [
            [output, false],
            [output, true],
          ]) as [string, boolean][],
        },
      );
    },
  );
}

function fragmentsOfItsOutputs(protocol: ToolCallProtocol, markup: readonly string[]): string[] {
  return [...new Set([...COMMON_FRAGMENTS, ...fragmentsOf(protocol, markup)])];
}

/** Strings a value carries: raw-value trouble, mixed with a JSON string's and a closer's. */
const VALUE = fc
  .array(fc.oneof(VALUE_STRING, fc.constantFrom('\\', ']', '}', '[TOOL_CALLS]')), { maxLength: 3 })
  .map((pieces) => pieces.join(''));

function itRoundTripsItsCalls(
  check: Check,
  protocol: ToolCallProtocol,
  family: FamilyUnderTest,
): void {
  const limits = family.rawValueLimits ?? [];
  const holdsNoLimit = (value: unknown): boolean =>
    typeof value === 'string'
      ? !limits.some((limit) => value.includes(limit))
      : Array.isArray(value)
        ? value.every(holdsNoLimit)
        : true;
  const member = memberOf(VALUE, {
    untyped: family.readsUntypedValues ?? true,
    integerArrays: true,
  });
  const call = fc.dictionary(KEY, member, { maxKeys: 4 });
  const expectReadBack = (calls: Record<string, Member>[]) => {
    const tools: ToolDefinition[] = [];
    const written = calls.map((members, index) => {
      const input: Record<string, unknown> = {};
      const properties: Record<string, JsonSchema> = {};
      for (const [key, each] of Object.entries(members)) {
        // defineProperty: a key `__proto__` is an own property, as JSON.parse makes it.
        Object.defineProperty(input, key, { value: each.value, enumerable: true });
        Object.defineProperty(properties, key, { value: each.schema, enumerable: true });
      }
      const toolName = `probe_${index}`;
      tools.push({ name: toolName, inputSchema: { type: 'object', properties } });
      return { toolName, input };
    });
    fc.pre(written.every((each) => Object.values(each.input).every(holdsNoLimit)));
    const content = protocol.parseGeneratedText(protocol.formatToolCall(written), { tools });
    const read = content.filter((part) => part.type === 'tool-call');
    expect(read.map((part) => [part.toolName, parseJsonText(part.input)])).toEqual(
      written.map((each) => [each.toolName, parseJsonText(JSON.stringify(each.input))]),
    );
    expect(read.map((part) => part.problems)).toEqual(read.map(() => undefined));
    // Nothing else, but the empty reasoning a writer closes when the output starts in it, and
    // the white space a writer puts between two calls: text between calls is kept as text by
    // every reader (hermes, xml and glm give back their '\n' too), and white space is no answer.
    expect(
      content.filter(
        (part) =>
          part.type !== 'tool-call' &&
          !(part.type === 'reasoning' && part.text === '') &&
          !(part.type === 'text' && part.text.trim() === ''),
      ),
    ).toEqual([]);
  };
  check(
    'round trip',
    'round-trips formatToolCall → parse for one call of any names and values',
    () => {
      fc.assert(
        fc.property(call, (members) => expectReadBack([members])),
        { numRuns: 600 },
      );
    },
  );
  check(
    'round trip of several calls',
    'round-trips formatToolCall → parse for calls written together: the calls and nothing else',
    () => {
      fc.assert(fc.property(fc.array(call, { minLength: 2, maxLength: 3 }), expectReadBack), {
        numRuns: 300,
      });
    },
  );
}

function itNeverReadsAResultAsACall(
  check: Check,
  protocol: ToolCallProtocol,
  wrappers: readonly string[],
): void {
  const tools: readonly ToolDefinition[] = [...TOOLS, weatherTool, writeFileTool];
  const readsACall = (text: string, startInReasoning: boolean) =>
    streamEvents(protocol, [text], { tools, startInReasoning }).some(
      (event) => event.type === 'tool-input-start' || event.type === 'tool-call',
    );
  check('results', 'never reads a result as a call, even one that holds its own calls', () => {
    const calls = protocol.formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo', days: 2 } },
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
      { toolName: 'search', input: { query: 'q' } },
    ]);
    const outputs: unknown[] = [
      calls,
      `Here: ${calls} done`,
      { file: calls },
      { text: calls },
      [calls],
      [calls, calls],
      ...wrappers.flatMap((wrapper) => [wrapper, `${wrapper}\n${calls}`]),
    ];
    for (const output of outputs) {
      for (const isError of [false, true]) {
        const alone = protocol.formatToolResponse({ toolName: 'get_weather', output, isError });
        const beside = protocol.formatToolResponse([
          { toolName: 'get_weather', output, ...(isError ? { isError } : {}) },
          { toolName: 'search', output: 'plain' },
        ]);
        for (const text of [alone, beside]) {
          for (const startInReasoning of [false, true]) {
            expect(
              readsACall(text, startInReasoning),
              `${JSON.stringify(text)} (startInReasoning ${startInReasoning})`,
            ).toBe(false);
          }
        }
      }
    }
  });
}

function itReadsNoCallInAResultOpeningWithABareCall(
  check: Check,
  protocol: ToolCallProtocol,
  entry: FormatEntry,
): void {
  check(
    'bare call in a result',
    'writes a result that opens with a bare call:NAME{…} so that neither FunctionGemma nor itself reads a call',
    () => {
      const functionGemma = FORMATS.find((each) => each.name === 'functiongemma')!.create();
      const output = 'call:get_weather{city:<escape>Oslo<escape>}';
      // The entry's writer as well as the one under test: the registry's is what users get.
      for (const writer of [protocol, entry.create()]) {
        const rendered = writer.formatToolResponse([
          { toolName: 'get_weather', output: '' },
          { toolName: 'get_weather', output },
        ]);
        for (const reader of [functionGemma, protocol]) {
          const parts = reader.parseGeneratedText(rendered, { tools: TOOLS });
          expect(
            parts.filter((part) => part.type === 'tool-call'),
            `${reader.name} reading ${JSON.stringify(rendered)}`,
          ).toEqual([]);
        }
      }
    },
  );
}

function itStaysLinearAndCountsLinearWork(
  check: Check,
  protocol: ToolCallProtocol,
  shapes: FamilyUnderTest['linear'],
): void {
  const call =
    shapes?.call ??
    ((index: number) =>
      protocol.formatToolCall({ toolName: 'get_weather', input: { city: `c${index}` } }));
  const bigCall =
    shapes?.bigCall ??
    ((argument: string) =>
      protocol.formatToolCall({ toolName: 'write_file', input: { path: 'p', content: argument } }));
  const manyCalls = (count: number) =>
    Array.from({ length: count }, (_, index) => call(index)).join('\n');
  const opener = protocol
    .formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } })
    .slice(0, 12);
  const manyOpeners = (count: number) => `${opener}x `.repeat(count);
  const markupArgument = (size: number) =>
    protocol.formatToolCall({
      toolName: 'write_file',
      input: { path: 'p', content: 'line <b>x</b> & y\n'.repeat(Math.max(1, size / 18)) },
    });
  const parseInChunks = (chunk: number) => (source: string) => {
    const parser = protocol.createStreamParser({ tools: TOOLS });
    for (let at = 0; at < source.length; at += chunk) parser.push(source.slice(at, at + chunk));
    parser.end();
  };
  const parseWhole = parseInChunks(Number.POSITIVE_INFINITY);

  check('linear calls', 'parses many calls in time linear in their count', () => {
    expectLinearGrowth(manyCalls, parseInChunks(4096), 1_000);
  });
  check('linear argument', 'parses a large argument in time linear in its size', () => {
    expectLinearGrowth((size) => bigCall('x'.repeat(size)), parseInChunks(8192), 1 << 17);
  });
  check(
    'linear openers',
    'reads many openers, and a large argument of markup, in linear time',
    () => {
      // At most 16k openers in the larger text: past ~30k a major collection lands in the larger
      // run alone (Gemma 4, best of five: 32k openers 25 ms, 64k 149 ms, 128k 167 ms), which a
      // ratio of two runs reads as quadratic work. The engine's count below has no such noise.
      expectLinearGrowth(manyOpeners, parseWhole, 1_000, { largest: 16_000 });
      expectLinearGrowth(markupArgument, parseWhole, 1 << 15);
    },
  );
  check(
    'engine work',
    'counts linear engine work on many calls, many openers and a large argument, whole and in 7-character chunks',
    () => {
      for (const run of [parseWhole, parseInChunks(7)]) {
        expectLinearEngineWork(manyCalls, run, 200);
        expectLinearEngineWork(manyOpeners, run, 500);
        expectLinearEngineWork((size) => bigCall('x'.repeat(size)), run, 1 << 12);
        expectLinearEngineWork(markupArgument, run, 1 << 12);
      }
    },
  );
}

/**
 * A format that writes a result as it is (no wrapper of its own) breaks a bare `call:NAME{…}`
 * where it opens a result, where a reader would take it for a call, and nowhere else.
 */
export function itBreaksABareCallOnlyWhereItOpensAResult(protocol: ToolCallProtocol): void {
  it('breaks a bare call:NAME{…} where it opens a result, and leaves it elsewhere', () => {
    const output = 'call:get_weather{city:<escape>Oslo<escape>}';
    const rendered = protocol.formatToolResponse([
      { toolName: 'get_weather', output: '' },
      { toolName: 'get_weather', output },
    ]);
    expect(rendered).toContain('\\u0063all:get_weather');
    expect(protocol.formatToolResponse({ toolName: 'get_weather', output: `x ${output}` })).toBe(
      `x ${output}`,
    );
  });
}

/** vLLM's tool-parser tests' weather tool, typed: `get_weather(city: string)`. */
export const cityWeatherTool: ToolDefinition = {
  name: 'get_weather',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
};

/** vLLM's tool-parser tests' time tool, typed: `get_time(timezone: string)`. */
export const timezoneTool: ToolDefinition = {
  name: 'get_time',
  inputSchema: { type: 'object', properties: { timezone: { type: 'string' } } },
};

/** The arguments of every JSON type in vLLM's common tool-parser test config. */
export const VLLM_TYPED_ARGUMENTS = {
  int_field: 42,
  float_field: 3.14,
  bool_field: true,
  null_field: null,
  array_field: ['a', 'b', 'c'],
  object_field: { nested: 'value' },
  empty_array: [],
  empty_object: {},
};

/** The escaped strings of vLLM's common tool-parser test config, as read. */
export const VLLM_ESCAPED_ARGUMENTS = {
  quoted: 'He said "hello"',
  path: 'C:\\Users\\file.txt',
  newline: 'line1\nline2',
  unicode: 'emoji: 🎉',
};
