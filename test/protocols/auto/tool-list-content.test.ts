/**
 * A server parses every request's tools from JSON, so each parse gets new tool objects around
 * the same tools. `auto` combines every format's openers per tool list (tens of milliseconds,
 * growing with the tools); a list that says the same (names and schemas) must reuse that union,
 * and a list that says something else must not.
 */
import { describe, expect, it } from 'vitest';
import { reactProtocol } from '../../../examples/react-format.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../../src/core/index.ts';
import { autoProtocol, MAX_TOOL_LIST_KEY_CHARS } from '../../../src/protocols/auto/index.ts';
import { defineProtocol, grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import { hermesProtocol } from '../../../src/protocols/hermes/index.ts';

/** The react example, counting how often `auto` asks it for its openers. */
function countingReact(): { protocol: ToolCallProtocol; asked: () => number } {
  let asked = 0;
  const react = reactProtocol();
  const grammar = grammarOf(react)!;
  const protocol = defineProtocol({
    name: 'counted-react',
    grammar: {
      ...grammar,
      callOpeners: (options) => {
        asked++;
        return grammar.callOpeners(options);
      },
    },
    formatTools: react.formatTools,
    formatToolCall: react.formatToolCall,
    formatToolResponse: react.formatToolResponse,
  });
  return { protocol, asked: () => asked };
}

const toolsJson = JSON.stringify([
  {
    name: 'get_weather',
    description: 'The weather in a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    inputSchema: { type: 'object', properties: { zone: { type: 'string' } } },
  },
]);

/** A request's tools, as a server has them: new objects parsed from the same JSON. */
const freshTools = (): ToolDefinition[] => JSON.parse(toolsJson) as ToolDefinition[];

const OUTPUT =
  'Checking.\n<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\n' +
  'Action: get_time\nAction Input: {"zone": "CET"}\n';

describe('auto: the union of openers per tool list', () => {
  it('is built once for tool lists that say the same, and parses them alike', () => {
    const counting = countingReact();
    const auto = autoProtocol({ formats: [hermesProtocol(), counting.protocol] });
    const first = auto.parseGeneratedText(OUTPUT, { tools: freshTools() });
    const afterFirst = counting.asked();
    const again = [1, 2, 3].map(() => auto.parseGeneratedText(OUTPUT, { tools: freshTools() }));
    expect(counting.asked(), 'new objects around the same tools are not combined again').toBe(
      afterFirst,
    );
    for (const parse of again) expect(summary(parse)).toEqual(summary(first));
    expect(summary(first).filter((part) => part.startsWith('call'))).toEqual([
      'call get_weather {"city":"Oslo"}',
      'call get_time {"zone":"CET"}',
    ]);
  });

  it('is built again for a list that names other tools or gives other schemas', () => {
    const counting = countingReact();
    const auto = autoProtocol({ formats: [hermesProtocol(), counting.protocol] });
    auto.parseGeneratedText(OUTPUT, { tools: freshTools() });
    const start = counting.asked();
    const renamed = freshTools().map((tool) => ({ ...tool, name: `${tool.name}_2` }));
    const onlyOne = auto.parseGeneratedText(OUTPUT, { tools: renamed });
    expect(counting.asked()).toBe(start + 1);
    expect(summary(onlyOne).some((part) => part.startsWith('call'))).toBe(false);
    const otherSchema = freshTools();
    otherSchema[0] = { ...otherSchema[0]!, inputSchema: { type: 'object', properties: {} } };
    auto.parseGeneratedText(OUTPUT, { tools: otherSchema });
    expect(counting.asked()).toBe(start + 2);
  });

  it('keeps a list longer than its key limit by identity alone', () => {
    const counting = countingReact();
    const auto = autoProtocol({ formats: [hermesProtocol(), counting.protocol] });
    const huge = (): ToolDefinition[] => [
      ...freshTools(),
      {
        name: 'big',
        description: 'x',
        inputSchema: { type: 'object', description: 'd'.repeat(MAX_TOOL_LIST_KEY_CHARS) },
      },
    ];
    auto.parseGeneratedText(OUTPUT, { tools: huge() });
    const start = counting.asked();
    const same = huge();
    auto.parseGeneratedText(OUTPUT, { tools: same });
    auto.parseGeneratedText(OUTPUT, { tools: same });
    expect(counting.asked(), 'once more for the new list, not again for the same one').toBe(
      start + 1,
    );
  });

  it('keeps a list whose schema JSON cannot write by its identity alone', () => {
    const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    const tools: ToolDefinition[] = [{ name: 'get_weather', inputSchema: cyclic }];
    const auto = autoProtocol({ formats: ['hermes'] });
    const parse = () =>
      auto.parseGeneratedText('<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>', {
        tools,
        validate: false,
      });
    expect(() => parse()).not.toThrow();
    expect(summary(parse())).toEqual(['call get_weather {}']);
  });
});

function summary(content: ReturnType<ReturnType<typeof autoProtocol>['parseGeneratedText']>) {
  return content.map((part) =>
    part.type === 'tool-call'
      ? `call ${part.toolName} ${JSON.stringify(JSON.parse(part.input))}`
      : part.type === 'text'
        ? `text ${part.text}`
        : part.type,
  );
}
