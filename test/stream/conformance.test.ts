import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BlockDocument, createBlockDecoder } from '../../src/stream/index.ts';
import { CONTENT_BLOCK_DEVIATIONS } from '../conformance/deviations.ts';
import { checkCase, Tally } from '../conformance/load.ts';
import { type AgentNode, normalizeJson, referenceNodes } from './reference-nodes.ts';

type Step =
  | { op: 'append'; chunk: string }
  | { op: 'getNodes'; expected: AgentNode[] }
  | { op: 'reset' }
  | { op: 'getRawContent'; expected: string };

interface Case {
  id: string;
  description: string;
  steps: Step[];
  expected: { final_nodes: AgentNode[] };
}

const FILE = 'content-block-stream-parser.json';
const fixture = JSON.parse(
  readFileSync(new URL(`../fixtures/content-block/${FILE}`, import.meta.url), 'utf8'),
) as { count: number; cases: Case[] };

/** toolwire keeps no copy of the raw stream; a step asking for it gets this. */
const RAW_NOT_KEPT = Symbol('raw stream not kept');

/**
 * Replays a case's steps on the XML framing (the cases' chunks have the SSE `data:` prefix already
 * removed). The reference re-parsed its buffer on every getNodes(); here the decoder and the
 * document are fed once per append, and each getNodes() reads the document as it stands.
 */
function replay(testCase: Case): { steps: unknown[]; expected: unknown[] } {
  let decoder = createBlockDecoder({ framing: 'xml' });
  let document = new BlockDocument();
  const steps: unknown[] = [];
  const expected: unknown[] = [];
  for (const step of testCase.steps) {
    switch (step.op) {
      case 'append':
        document.applyAll(decoder.push(step.chunk));
        break;
      case 'reset':
        decoder = createBlockDecoder({ framing: 'xml' });
        document = new BlockDocument();
        break;
      case 'getNodes':
        steps.push(normalizeJson(referenceNodes(document, decoder.receiving)));
        expected.push(normalizeJson(step.expected));
        break;
      case 'getRawContent':
        steps.push(RAW_NOT_KEPT);
        expected.push(step.expected);
        break;
    }
  }
  return { steps, expected };
}

describe(`conformance: ${FILE} (anthropic-agent front-end parser, seed 002)`, () => {
  const tally = new Tally(FILE);
  afterAll(() => console.log(tally.report()));

  it('has the 34 cases it was copied with', () => {
    expect(fixture.cases).toHaveLength(34);
    expect(fixture.count).toBe(34);
  });

  it('lists only case ids that exist', () => {
    const ids = new Set(fixture.cases.map((testCase) => testCase.id));
    for (const id of Object.keys(CONTENT_BLOCK_DEVIATIONS)) expect(ids.has(id), id).toBe(true);
  });

  for (const testCase of fixture.cases) {
    it(testCase.id, () => {
      const { steps, expected } = replay(testCase);
      checkCase(tally, testCase.id, steps, expected, CONTENT_BLOCK_DEVIATIONS);
    });
  }
});
