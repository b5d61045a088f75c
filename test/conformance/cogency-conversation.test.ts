import { describe, expect, it } from 'vitest';
import {
  type ConversationEntry,
  renderConversation,
  type ToolOutcome,
} from '../../src/agent/index.ts';
import { executeProtocol } from '../../src/protocols/index.ts';
import { COGENCY_CONVERSATION_DEVIATIONS } from './deviations.ts';
import { checkCase, loadJson, Tally } from './load.ts';

interface CogencyEvent {
  readonly type: 'user' | 'think' | 'respond' | 'call' | 'result';
  readonly content: string;
}

interface ConversationCase {
  readonly id: string;
  readonly kind: string;
  readonly description: string;
  readonly input: { readonly events: readonly CogencyEvent[] };
  readonly expected: { readonly messages: readonly { role: string; content: string }[] };
}

const file = loadJson<{ cases: ConversationCase[] }>('cogency-execute-protocol.json');
const cases = file.cases.filter((c) => c.kind === 'conversation');

/** Cogency's granular events as toolwire conversation entries. */
function toEntries(events: readonly CogencyEvent[]): ConversationEntry[] | undefined {
  const entries: ConversationEntry[] = [];
  for (const [index, event] of events.entries()) {
    if (event.type === 'call') {
      const { name, args } = JSON.parse(event.content) as { name: string; args: unknown };
      entries.push({ type: 'call', toolCallId: `c${index}`, toolName: name, input: args });
    } else if (event.type === 'result') {
      const payload = JSON.parse(event.content) as unknown;
      // The seed's results are an array of {tool, status, content}; other payloads have no
      // structured form to keep.
      if (!Array.isArray(payload)) return undefined;
      const results: ToolOutcome[] = payload.map((item, position) => ({
        toolCallId: `r${index}.${position}`,
        toolName: item.tool,
        output: item.content,
        ...(item.status === 'failure' ? { isError: true } : {}),
      }));
      entries.push({ type: 'results', results });
    } else {
      entries.push({ type: event.type, content: event.content });
    }
  }
  return entries;
}

/**
 * Messages compared by meaning: the JSON inside `<execute>` and `<results>` is parsed, since the
 * seed fixes its structure, not its white space (Cogency pretty-prints with Python's json.dumps).
 */
function normalise(messages: readonly { role: string; content: string }[]) {
  return messages.map(({ role, content }) => ({
    role,
    content: content.replace(
      /<(execute|results)>\n([\s\S]*?)\n<\/\1>/g,
      (_, tag: string, json: string) => `<${tag}>${JSON.stringify(JSON.parse(json))}</${tag}>`,
    ),
  }));
}

describe('conformance: cogency-execute-protocol.json, conversation cases', () => {
  const tally = new Tally('cogency-execute-protocol.json (conversation)');
  const protocol = executeProtocol();

  for (const testCase of cases) {
    it(`${testCase.id}: ${testCase.description}`, () => {
      const entries = toEntries(testCase.input.events);
      const actual = entries
        ? normalise(renderConversation(protocol, entries))
        : 'no structured form';
      checkCase(
        tally,
        testCase.id,
        actual,
        normalise(testCase.expected.messages),
        COGENCY_CONVERSATION_DEVIATIONS,
      );
    });
  }

  it('has no failures', () => {
    console.log(tally.report());
    expect(tally.failures).toEqual([]);
    expect(cases.length).toBe(24);
  });
});
