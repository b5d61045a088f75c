import { describe, expect, it } from 'vitest';
import type { ToolOutcome } from '../../src/agent/conversation.ts';
import { outcomeForModel } from '../../src/agent/result-cap.ts';
import type { ToolCallProtocol } from '../../src/core/index.ts';
import { PROTOCOL_NAMES, protocolByName } from '../../src/protocols/index.ts';

const TOOLS = [
  {
    name: 'get_weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  },
];

function outcome(output: unknown, isError?: boolean): ToolOutcome {
  return { toolCallId: 'c1', toolName: 'get_weather', output, ...(isError ? { isError } : {}) };
}

/** Characters the protocol writes for the output, beyond the envelope of an empty result. */
function renderedSize(protocol: ToolCallProtocol, result: ToolOutcome): number {
  const rendered = protocol.formatToolResponse([result]).length;
  return rendered - protocol.formatToolResponse([{ ...result, output: '' }]).length;
}

/**
 * The notice at the end of a cut output, and the size the protocol writes for it in that
 * outcome (an error's text may be written otherwise than a result's: mistral's as JSON).
 */
function noticeSize(protocol: ToolCallProtocol, output: string, isError?: boolean): number {
  const notice = output.slice(output.lastIndexOf('\n[output cut: '));
  return renderedSize(protocol, outcome(notice, isError));
}

describe.each(PROTOCOL_NAMES)('outcomeForModel (%s)', (name) => {
  const protocol = protocolByName(name);

  /** Checks the rule: the rendered output is within the cap plus its notice. */
  function expectWithinCap(result: ToolOutcome, cap: number) {
    expect(typeof result.output).toBe('string');
    const output = result.output as string;
    expect(output).toMatch(/\n\[output cut: .*characters not shown\]$/);
    expect(renderedSize(protocol, result)).toBeLessThanOrEqual(
      cap + noticeSize(protocol, output, result.isError),
    );
  }

  it('keeps an output within the cap as it is', () => {
    expect(outcomeForModel(protocol, outcome('short'), 100)).toEqual(outcome('short'));
    const data = { city: 'Oslo', days: [1, 2] };
    expect(outcomeForModel(protocol, outcome(data), 1_000)).toEqual(outcome(data));
  });

  it('cuts a long string and says how much was left out', () => {
    const result = outcomeForModel(protocol, outcome('y'.repeat(300)), 100);
    expectWithinCap(result, 100);
    expect(result.output).toMatch(/^y+\n\[output cut: \d+ more characters not shown\]$/);
  });

  it('measures what is sent: characters the protocol escapes count as written', () => {
    // `<` is `&lt;` in xml and \u003c in JSON protocols; a newline is \n in JSON.
    const result = outcomeForModel(protocol, outcome('<\n'.repeat(5_000)), 1_000);
    expectWithinCap(result, 1_000);
    expect((result.output as string).startsWith('<\n<\n')).toBe(true);
  });

  it('cuts a large object as its JSON text', () => {
    const big = {
      rows: Array.from({ length: 10_000 }, (_, index) => ({ index, name: `row ${index}` })),
    };
    const result = outcomeForModel(protocol, outcome(big), 2_000);
    expectWithinCap(result, 2_000);
    expect((result.output as string).startsWith('{"rows":[{"index":0,"name":"row 0"}')).toBe(true);
    // The walk stopped early, so the total is a lower bound.
    expect(result.output).toMatch(/\[output cut: more than \d+ more characters not shown\]$/);
  });

  it('measures an object as the protocol writes it (xml and command-r indent JSON)', () => {
    // 61 characters of compact JSON; well over 600 when indented.
    let nested: unknown = 1;
    for (let level = 0; level < 30; level++) nested = [nested];
    const result = outcomeForModel(protocol, outcome(nested), 600);
    if (renderedSize(protocol, outcome(nested)) > 600) expectWithinCap(result, 600);
    else expect(result.output).toEqual(nested);
    if (name === 'xml') expect(result.output).not.toEqual(nested);
  });

  it('caps errors like results', () => {
    const result = outcomeForModel(protocol, outcome('E'.repeat(5_000), true), 300);
    expect(result.isError).toBe(true);
    expectWithinCap(result, 300);
  });

  it('never splits a surrogate pair', () => {
    for (const cap of [9, 10, 11, 12]) {
      const output = outcomeForModel(protocol, outcome('😀'.repeat(50)), cap).output as string;
      const kept = output.slice(0, output.indexOf('\n[output cut'));
      expect(kept).toBe('😀'.repeat(kept.length / 2));
    }
  });

  it('a result cut anywhere cannot be read back as a call', () => {
    const call = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
    for (let cap = 5; cap < 80; cap += 3) {
      const result = outcomeForModel(protocol, outcome(call.repeat(4)), cap);
      const rendered = protocol.formatToolResponse([result]);
      const calls = protocol
        .parseGeneratedText(rendered, { tools: TOOLS })
        .filter((part) => part.type === 'tool-call');
      expect(calls).toEqual([]);
    }
  });
});
