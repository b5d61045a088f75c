/**
 * Conformance: Cogency's parser tests (seed 001's source), run against the execute protocol.
 * Cogency's events map onto toolwire's: `think` → reasoning, `call` → tool-call, `respond` →
 * text (blank text dropped, as Cogency drops it), `respond "Error: …"` → an error event.
 * The conversation and accumulator cases belong to the agent loop (issue 4).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { executeProtocol, type ToolDefinition } from '../../src/index.ts';
import { contentOf, streamEvents } from '../protocols/helpers.ts';
import { COGENCY_DEVIATIONS } from './deviations.ts';
import { checkCase, loadJson, Tally } from './load.ts';

interface CogencyCase {
  id: string;
  kind: string;
  input: { text?: string; chunks?: string[] };
  expected: { events: { type: string; content?: string }[] };
}

/** The tools Cogency's parser tests call, with open schemas (Cogency validated at execution). */
const TOOLS: ToolDefinition[] = ['read', 'write', 'shell'].map((name) => ({
  name,
  inputSchema: { type: 'object' },
}));

const execute = executeProtocol();
const cases = loadJson<{ cases: CogencyCase[] }>('cogency-execute-protocol.json').cases.filter(
  (testCase) => testCase.kind === 'parser',
);
const tally = new Tally('cogency-execute-protocol.json (parser cases)');

type Normalised = { type: string; content?: unknown };

function expectedEvents(testCase: CogencyCase): Normalised[] {
  return testCase.expected.events.flatMap((event): Normalised[] => {
    switch (event.type) {
      case 'think':
        return event.content?.trim() ? [{ type: 'reasoning', content: event.content.trim() }] : [];
      case 'call': {
        const call = JSON.parse(event.content!) as { name: string; args: unknown };
        return [{ type: 'call', content: { name: call.name, args: call.args } }];
      }
      case 'respond':
        if (event.content?.startsWith('Error:')) return [{ type: 'error' }];
        return event.content?.trim() ? [{ type: 'text', content: event.content.trim() }] : [];
      case 'result':
        return event.content?.trim() ? [{ type: 'results', content: event.content.trim() }] : [];
      default:
        // `execute` and `end` mark batch boundaries; toolwire's calls carry their own order.
        return [];
    }
  });
}

function actualEvents(testCase: CogencyCase): Normalised[] {
  const chunks = testCase.input.chunks ?? [testCase.input.text ?? ''];
  const events = streamEvents(execute, chunks, { tools: TOOLS, emitRawTextOnError: false });
  expect(contentOf(events)).toEqual(
    contentOf(
      streamEvents(execute, [chunks.join('')], { tools: TOOLS, emitRawTextOnError: false }),
    ),
  );
  return contentOf(events).flatMap((part): Normalised[] => {
    const typed = part as { type: string; text?: string; toolName?: string; input?: string };
    if (typed.type === 'reasoning')
      return typed.text!.trim() ? [{ type: 'reasoning', content: typed.text!.trim() }] : [];
    if (typed.type === 'text')
      return typed.text!.trim() ? [{ type: 'text', content: typed.text!.trim() }] : [];
    if (typed.type === 'tool-call')
      return [{ type: 'call', content: { name: typed.toolName, args: JSON.parse(typed.input!) } }];
    return [{ type: 'error' }];
  });
}

describe('conformance: cogency-execute-protocol.json (parser)', () => {
  it.each(cases.map((testCase) => [testCase.id, testCase] as const))('%s', (_id, testCase) => {
    const result = actualEvents(testCase);
    const expected = expectedEvents(testCase);
    checkCase(tally, testCase.id, result, expected, COGENCY_DEVIATIONS);
  });
});

afterAll(() => {
  console.log(tally.report());
});
