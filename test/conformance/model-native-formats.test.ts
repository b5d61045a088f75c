/**
 * Conformance: every row of model-native-formats.jsonl (test fixtures of vLLM, llama.cpp, Ollama,
 * Roo Code/Cline and outputs quoted in bug reports), run against the protocol of the row's format
 * and against `auto`. Rows marked `is_partial` describe a stream cut mid-way: they are pushed
 * without `end()` and compared on what has come out so far (text, and the calls started).
 * A row's id is its line number in the file (`line-12`).
 */
import { afterAll, describe, it } from 'vitest';
import {
  formatEntry,
  type ParseEvent,
  protocolByName,
  type ToolCallProtocol,
  type ToolDefinition,
} from '../../src/index.ts';
import { collectContent } from '../../src/protocols/engine/collect-content.ts';
import { counterIds } from '../protocols/helpers.ts';
import { MODEL_NATIVE_AUTO_DEVIATIONS, MODEL_NATIVE_DEVIATIONS } from './deviations.ts';
import { checkCase, loadJsonLines, Tally } from './load.ts';

interface Row {
  source: string;
  model_family: string;
  format: string;
  text: string;
  expected_calls: { name: string; arguments: unknown }[];
  expected_content: string | null;
  expected_reasoning?: string;
  is_partial?: boolean;
  expectation_loose?: boolean;
  notes: string;
}

/** The protocol that reads each `format` value of the file. */
const PROTOCOL_OF_FORMAT: Readonly<Record<string, string>> = {
  hermes: 'hermes',
  hermes_2_pro: 'hermes',
  nemotron_v2: 'hermes',
  lfm2: 'hermes',
  'bare-json': 'hermes',
  'json-list': 'hermes',
  'plain-line': 'hermes',
  hallucinated: 'hermes',
  'cline-xml': 'xml',
  qwen3_coder_xml: 'qwen3-coder',
  seed_oss: 'seed-oss',
  minimax_m2: 'minimax',
  glm_4_5: 'glm',
  glm4_moe: 'glm',
  command_r7b: 'command-r',
  'llama.cpp generic': 'xlam',
  xlam: 'xlam',
  functiongemma: 'functiongemma',
  mistral_nemo: 'mistral',
  magistral: 'mistral',
  mistral_v11_args: 'mistral',
  mistral_pre_v11: 'mistral',
  mistral_v11: 'mistral',
  llama_3_x: 'llama3',
  llama_3_x_builtin: 'llama3',
  llama3_json: 'llama3',
  functionary_v3_1_llama_3_1: 'functionary',
  functionary_v3_2: 'functionary',
  firefunction_v2: 'firefunction',
  deepseek_r1: 'deepseek',
  deepseek_v3_1: 'deepseek',
  deepseek_v3: 'deepseek',
  granite: 'granite',
  harmony: 'gpt-oss',
  apertus: 'apertus',
  kimi_k2: 'kimi-k2',
  pythonic: 'pythonic',
  llama4_pythonic: 'pythonic',
  lfm2_pythonic: 'pythonic',
};

const rows = loadJsonLines<Row>('model-native-formats.jsonl');

/**
 * A row is a mid-stream state when it says so: `is_partial`; Roo Code/Cline's own `partial=true`
 * in its notes (their parsers report a block still streaming); or a row of Ollama's tools tests,
 * which stream their inputs and check what came out with no end of stream ("nothing emitted
 * yet", "could still become …").
 */
function isPartial(row: Row): boolean {
  return (
    row.is_partial === true ||
    /\bpartial[=:]\s*true\b/.test(row.notes) ||
    row.source.startsWith('ollama/ollama:tools/tools_test.go')
  );
}

/**
 * Roo Code/Cline rows whose source test only asserts that a value contains the expected text:
 * string arguments are compared without their surrounding white space (Probe's XML protocol
 * trims values; Roo keeps a value's last line's indentation).
 */
function assertsContainment(row: Row): boolean {
  return /asserts toContain/.test(row.notes);
}

function trimStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.trim();
  if (Array.isArray(value)) return value.map(trimStrings);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, trimStrings(item)]));
  }
  return value;
}

/** Every tool the rows' sources declared in their tests, with open schemas. */
const TOOLS: ToolDefinition[] = [
  ...new Set([
    ...rows.flatMap((row) => row.expected_calls.map((call) => call.name)),
    'special_function',
    'python',
    'get_temperature',
    'get_conditions',
    'say_hello',
    'say_hello_world',
    'get_address',
    'add',
    'final_answer',
  ]),
].map((name) => ({ name, inputSchema: { type: 'object' } }));

/**
 * The tools a row's source test declared, when its notes list them (`tools: get_temperature{…},
 * say_hello, …`); otherwise every tool any row uses.
 */
function toolsOf(row: Row): ToolDefinition[] {
  const listed = /\btools: ([^|]+)/.exec(row.notes)?.[1];
  if (!listed) return TOOLS;
  const names = listed
    .replace(/\{[^}]*\}/g, '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => /^[\w.-]+$/.test(name));
  return names.map((name) => ({ name, inputSchema: { type: 'object' } }));
}

/** Text blocks as the row joins them: Roo Code/Cline rows list separate blocks with ` | `. */
function joinText(row: Row, blocks: readonly string[]): string {
  if (!row.notes.includes("with ' | '")) return blocks.join('').trim();
  return blocks
    .map((block) => block.trim())
    .filter((block) => block.length > 0)
    .join(' | ');
}

/** Reasoning tags of the families in the file, to tell a block the prompt had opened. */
const REASONING_TAGS = [
  ['<think>', '</think>'],
  ['[THINK]', '[/THINK]'],
  ['<seed:think>', '</seed:think>'],
  ['<|START_THINKING|>', '<|END_THINKING|>'],
] as const;

/**
 * The prompt template had already opened the reasoning block (llama.cpp's thinking_forced_open):
 * the row says so, or its output closes a block it never opened. The parser is told, as the
 * middleware is told by a prompt that ends in `<think>`.
 */
function startsInReasoning(row: Row): boolean {
  // With reasoning_format=none, the server reads no reasoning at all: it is all content.
  if (/reasoning_format=none/.test(row.notes)) return false;
  if (/thinking[_ ]forced[_ ]open|prompt ended with <think>/.test(row.notes)) return true;
  return REASONING_TAGS.some(([open, close]) => {
    const closeAt = row.text.indexOf(close);
    return closeAt !== -1 && !row.text.slice(0, closeAt).includes(open);
  });
}

/**
 * Rows from a tool parser run without reasoning extraction (vLLM's tool-parser tests, Ollama's
 * tools parser, llama.cpp's reasoning_in_content): the reasoning block is part of their content. toolwire
 * always reads reasoning, so its reasoning is put back where it was to compare.
 */
function reasoningInContent(row: Row): boolean {
  return (
    /reasoning_in_content=true|NOT stripped by the tool parser|think block kept as content/.test(
      row.notes,
    ) || row.source.startsWith('ollama/ollama:tools/tools_test.go')
  );
}

function run(protocol: ToolCallProtocol, row: Row) {
  const startInReasoning = startsInReasoning(row);
  const parser = protocol.createStreamParser({
    tools: toolsOf(row),
    startInReasoning,
    generateId: counterIds(),
  });
  const events: ParseEvent[] = parser.push(row.text);
  if (!isPartial(row)) events.push(...parser.end());
  const content = collectContent(events);
  const started = events.filter((event) => event.type === 'tool-input-start');
  const calls = content.flatMap((part) =>
    part.type === 'tool-call'
      ? [{ name: part.toolName, arguments: argumentsAsCompared(row, JSON.parse(part.input)) }]
      : [],
  );
  // Text blocks are the runs of text between other parts.
  const blocks: string[] = [];
  let open = false;
  for (const part of content) {
    if (part.type === 'reasoning' && reasoningInContent(row)) {
      const wrapped = `<think>${part.text}</think>`;
      if (open) blocks[blocks.length - 1] += wrapped;
      else blocks.push(wrapped);
      open = true;
    } else if (part.type === 'text') {
      if (open) blocks[blocks.length - 1] += part.text;
      else blocks.push(part.text);
      open = true;
    } else if (part.type !== 'reasoning' && part.type !== 'error') open = false;
  }
  return {
    calls: isPartial(row)
      ? started.map((event) => ({ name: (event as { toolName: string }).toolName }))
      : calls,
    content: joinText(row, blocks),
    reasoning: reasoningInContent(row)
      ? ''
      : content
          .flatMap((part) => (part.type === 'reasoning' ? [part.text] : []))
          .join('')
          .trim(),
  };
}

function argumentsAsCompared(row: Row, value: unknown): unknown {
  return assertsContainment(row) ? trimStrings(value) : value;
}

function expectation(row: Row) {
  return {
    calls: isPartial(row)
      ? row.expected_calls.map((call) => ({ name: call.name }))
      : row.expected_calls.map((call) => ({
          name: call.name,
          arguments: argumentsAsCompared(row, call.arguments),
        })),
    ...(row.expected_content !== null ? { content: row.expected_content.trim() } : {}),
    ...(row.expected_reasoning !== undefined ? { reasoning: row.expected_reasoning.trim() } : {}),
  };
}

function comparable(actual: ReturnType<typeof run>, expected: ReturnType<typeof expectation>) {
  return {
    calls: actual.calls,
    ...('content' in expected ? { content: actual.content } : {}),
    ...('reasoning' in expected ? { reasoning: actual.reasoning } : {}),
  };
}

const cases = rows.map((row, index) => ({ id: `line-${index + 1}`, row }));

/** Per protocol: complete rows matched, and rows listed as deviations (partial rows apart). */
const perProtocol = new Map<string, { complete: number; right: number; deviations: string[] }>();

function count(row: Row, id: string, deviations: Readonly<Record<string, string>>): void {
  if (isPartial(row)) return;
  const name = PROTOCOL_OF_FORMAT[row.format]!;
  const entry = perProtocol.get(name) ?? { complete: 0, right: 0, deviations: [] };
  entry.complete++;
  if (deviations[id] === undefined) entry.right++;
  else entry.deviations.push(id);
  perProtocol.set(name, entry);
}
const named = new Tally('model-native-formats.jsonl (named protocol)');
const auto = new Tally('model-native-formats.jsonl (auto)');
const autoProtocol = protocolByName('auto');

describe('conformance: model-native-formats.jsonl through each row’s format', () => {
  for (const { id, row } of cases) {
    const name = PROTOCOL_OF_FORMAT[row.format];
    const registered = name !== undefined && formatEntry(name) !== undefined;
    it.runIf(registered)(`${id} (${row.format} → ${name})`, () => {
      const protocol = protocolByName(name!);
      const expected = expectation(row);
      if (row.expectation_loose) {
        run(protocol, row);
        named.matches++;
        return;
      }
      checkCase(named, id, comparable(run(protocol, row), expected), expected, {
        ...MODEL_NATIVE_DEVIATIONS,
      });
      count(row, id, MODEL_NATIVE_DEVIATIONS);
    });
  }
});

/** The named formats' deviations, with auto's own on top (`null` takes one back). */
const AUTO_DEVIATIONS: Record<string, string> = Object.fromEntries(
  Object.entries({ ...MODEL_NATIVE_DEVIATIONS, ...MODEL_NATIVE_AUTO_DEVIATIONS }).filter(
    (entry): entry is [string, string] => entry[1] !== null,
  ),
);

describe('conformance: model-native-formats.jsonl through auto', () => {
  for (const { id, row } of cases) {
    const name = PROTOCOL_OF_FORMAT[row.format];
    const registered = name !== undefined && formatEntry(name) !== undefined;
    it.runIf(registered)(`${id} (${row.format})`, () => {
      const expected = expectation(row);
      if (row.expectation_loose) {
        run(autoProtocol, row);
        auto.matches++;
        return;
      }
      checkCase(auto, id, comparable(run(autoProtocol, row), expected), expected, AUTO_DEVIATIONS);
    });
  }
});

it('maps every format of the file to a protocol name', () => {
  const unmapped = [...new Set(rows.map((row) => row.format))].filter(
    (format) => PROTOCOL_OF_FORMAT[format] === undefined,
  );
  if (unmapped.length > 0) throw new Error(`formats with no protocol: ${unmapped.join(', ')}`);
});

afterAll(() => {
  console.log(named.report());
  console.log(auto.report());
  if (process.env.TOOLWIRE_CONFORMANCE_BY_FORMAT) {
    for (const [name, entry] of [...perProtocol].sort()) {
      const listed =
        entry.deviations.length > 0 ? ` (deviations: ${entry.deviations.join(', ')})` : '';
      console.log(`${name}: ${entry.right}/${entry.complete} complete rows${listed}`);
    }
  }
});
