/**
 * Conformance: Probe's XML-protocol tests (seed 000's source), run against the xml protocol.
 * Probe parsed a whole buffered response; toolwire streams, so each case runs whole and split into
 * 1- and 7-character chunks, which must agree.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type ParsedContent, xmlProtocol } from '../../src/index.ts';
import { EntityDecoder } from '../../src/protocols/xml/value-text.ts';
import { chunksOf, contentOf, streamEvents } from '../protocols/helpers.ts';
import { PROBE_DEVIATIONS } from './deviations.ts';
import { checkCase, loadJson, Tally } from './load.ts';
import { probeTools } from './probe-tools.ts';

interface ProbeCase {
  id: string;
  kind: string;
  input: { text: unknown; validTools?: string[]; knownTags?: string[] };
  expected: unknown;
}

const xml = xmlProtocol();
const cases = loadJson<{ cases: ProbeCase[] }>('probe-xml-protocol.json').cases;
const tally = new Tally('probe-xml-protocol.json');

function parse(text: string, toolNames?: readonly string[]): ParsedContent[] {
  const tools = probeTools(toolNames?.filter((name) => name !== 'thinking'));
  const whole = xml.parseGeneratedText(text, { tools });
  // Streaming must agree with the whole-text parse, whatever the chunking.
  for (const size of [1, 7]) {
    expect(contentOf(streamEvents(xml, chunksOf(text, size), { tools }))).toEqual(
      contentOf(streamEvents(xml, [text], { tools })),
    );
  }
  return whole;
}

function firstCall(content: ParsedContent[]) {
  const call = content.find((part) => part.type === 'tool-call');
  return call ? { toolName: call.toolName, params: JSON.parse(call.input) as unknown } : null;
}

function firstReasoning(content: ParsedContent[]): string | null {
  const reasoning = content.find((part) => part.type === 'reasoning');
  const text = reasoning?.type === 'reasoning' ? reasoning.text.trim() : '';
  return text.length > 0 ? text : null;
}

function decodeEntities(text: string): string {
  let out = '';
  const decoder = new EntityDecoder({
    literal: (piece) => {
      out += piece;
    },
    content: (piece) => {
      out += piece;
    },
    end: () => {},
  });
  decoder.write(text);
  decoder.end();
  return out;
}

/** What toolwire gives for the question the Probe function answered. */
function actual(testCase: ProbeCase): unknown {
  const { text, validTools, knownTags } = testCase.input;
  switch (testCase.kind) {
    case 'parseXmlToolCall':
      return firstCall(parse(text as string, validTools));
    case 'parseXmlToolCallWithThinking': {
      const content = parse(text as string, validTools);
      const call = firstCall(content);
      return call ? { ...call, thinkingContent: firstReasoning(content) } : null;
    }
    case 'removeThinkingTags':
      return parse(text as string)
        .filter((part) => part.type === 'text')
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join('')
        .trim();
    case 'extractThinkingContent':
      return firstReasoning(parse(text as string));
    case 'unescapeXmlEntities':
      return typeof text === 'string' ? decodeEntities(text) : text;
    case 'guide_example':
      return {
        actions: parse(text as string, knownTags).flatMap((part): unknown[] => {
          if (part.type === 'reasoning') return [{ type: 'thinking', content: part.text }];
          if (part.type !== 'tool-call') return [];
          const params = JSON.parse(part.input) as Record<string, unknown>;
          if (part.toolName === 'attempt_completion')
            return [{ type: 'completion', result: params.result }];
          // The guide types parameters as text; toolwire types them by schema.
          const asText = Object.fromEntries(
            Object.entries(params).map(([key, value]) => [key, String(value)]),
          );
          return [{ type: 'tool', name: part.toolName, params: asText }];
        }),
      };
    default:
      return { unsupported: testCase.kind };
  }
}

describe('conformance: probe-xml-protocol.json', () => {
  it.each(cases.map((testCase) => [testCase.id, testCase] as const))('%s', (_id, testCase) => {
    const result = actual(testCase);
    // Guide examples also describe what the orchestrator does next; the parser answers the actions.
    const expected =
      testCase.kind === 'guide_example'
        ? { actions: (testCase.expected as { actions: unknown[] }).actions }
        : testCase.expected;
    checkCase(tally, testCase.id, result, expected, PROBE_DEVIATIONS);
  });
});

afterAll(() => {
  console.log(tally.report());
});
