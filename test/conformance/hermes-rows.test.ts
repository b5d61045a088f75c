/**
 * Conformance: the hermes/hermes_2_pro rows of model-native-formats.jsonl (vLLM, llama.cpp and
 * Ollama test fixtures, and outputs quoted in bug reports), run against the hermes protocol.
 * Rows marked `is_partial` describe a stream cut mid-way: they are pushed without `end()` and
 * compared on what has come out so far (text, and the calls started).
 */
import { afterAll, describe, it } from 'vitest';
import { hermesProtocol, type ParseEvent, type ToolDefinition } from '../../src/index.ts';
import { collectContent } from '../../src/protocols/common/collect-content.ts';
import { counterIds } from '../protocols/helpers.ts';
import { HERMES_ROW_DEVIATIONS } from './deviations.ts';
import { checkCase, loadJsonLines, Tally } from './load.ts';

interface Row {
  source: string;
  text: string;
  expected_calls: { name: string; arguments: unknown }[];
  expected_content: string | null;
  expected_reasoning?: string;
  is_partial?: boolean;
  notes: string;
}

const rows = loadJsonLines<Row>('model-native-formats.hermes.jsonl');
const hermes = hermesProtocol();
const tally = new Tally('model-native-formats.jsonl (hermes rows)');

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

function run(row: Row) {
  // The row's notes say when the prompt template had already opened <think>.
  const startInReasoning = /thinking_forced_open=true|prompt ended with <think>/.test(row.notes);
  const parser = hermes.createStreamParser({
    tools: TOOLS,
    startInReasoning,
    generateId: counterIds(),
  });
  const events: ParseEvent[] = parser.push(row.text);
  if (!row.is_partial) events.push(...parser.end());
  const content = collectContent(events);
  const started = events.filter((event) => event.type === 'tool-input-start');
  const calls = content.flatMap((part) =>
    part.type === 'tool-call'
      ? [{ name: part.toolName, arguments: JSON.parse(part.input) as unknown }]
      : [],
  );
  return {
    calls: row.is_partial
      ? started.map((event) => ({ name: (event as { toolName: string }).toolName }))
      : calls,
    content: content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('')
      .trim(),
    reasoning: content.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])).join(''),
  };
}

function expectation(row: Row) {
  return {
    calls: row.is_partial
      ? row.expected_calls.map((call) => ({ name: call.name }))
      : row.expected_calls,
    ...(row.expected_content !== null ? { content: row.expected_content.trim() } : {}),
    ...(row.expected_reasoning !== undefined ? { reasoning: row.expected_reasoning } : {}),
  };
}

function comparable(actual: ReturnType<typeof run>, expected: ReturnType<typeof expectation>) {
  return {
    calls: actual.calls,
    ...('content' in expected ? { content: actual.content } : {}),
    ...('reasoning' in expected ? { reasoning: actual.reasoning } : {}),
  };
}

describe('conformance: model-native-formats.jsonl (hermes rows)', () => {
  it.each(rows.map((row, index) => [`hermes-row-${index}`, row] as const))('%s', (id, row) => {
    const expected = expectation(row);
    const actual = comparable(run(row), expected);
    checkCase(tally, id, actual, expected, HERMES_ROW_DEVIATIONS);
  });
});

afterAll(() => {
  console.log(tally.report());
});
