import { expect } from 'vitest';
import { parseJsonText } from '../../src/core/parse-json.ts';
import type {
  ParsedContent,
  ParseEvent,
  ParseOptions,
  ToolCallProtocol,
  ToolDefinition,
} from '../../src/index.ts';
import { collectContent } from '../../src/protocols/engine/collect-content.ts';

/** Deterministic ids, so two runs can be compared event for event. */
export function counterIds(): () => string {
  let next = 0;
  return () => `id${next++}`;
}

/** Feeds `chunks` to a fresh stream parser and returns every event. */
export function streamEvents(
  protocol: ToolCallProtocol,
  chunks: readonly string[],
  options: ParseOptions,
): ParseEvent[] {
  const parser = protocol.createStreamParser({ generateId: counterIds(), ...options });
  const events: ParseEvent[] = [];
  // Not `push(...events)`: an output of many openers gives more events than a call takes.
  for (const chunk of chunks) for (const event of parser.push(chunk)) events.push(event);
  for (const event of parser.end()) events.push(event);
  return events;
}

export { chunksOf, splitAt } from '../support/chunks.ts';

/** Content with ids removed: what must not depend on chunking. */
export function contentOf(events: readonly ParseEvent[]): unknown[] {
  return collectContent(events).map((part: ParsedContent) => {
    if (part.type === 'tool-call') {
      const { toolCallId: _id, ...rest } = part;
      return rest;
    }
    if (part.type === 'error') {
      const { toolCallId: _id, ...rest } = part.error;
      return { type: 'error', error: rest };
    }
    return part;
  });
}

/** The calls of a whole-text parse, as {toolName, input (parsed), problems?}. */
export function callsOf(
  protocol: ToolCallProtocol,
  text: string,
  tools: readonly ToolDefinition[],
): { toolName: string; input: unknown; problems?: readonly unknown[] }[] {
  return protocol
    .parseGeneratedText(text, { tools })
    .filter((part) => part.type === 'tool-call')
    .map((part) => ({
      toolName: part.toolName,
      input: parseJsonText(part.input),
      ...(part.problems ? { problems: part.problems } : {}),
    }));
}

export function textOf(
  protocol: ToolCallProtocol,
  text: string,
  tools: readonly ToolDefinition[],
): string {
  return protocol
    .parseGeneratedText(text, { tools })
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

/**
 * Checks the streaming contract of every call: start before deltas, deltas adding up to exactly
 * the final input (so every intermediate concatenation was a prefix of it), end before the call.
 * Returns a list of violations (empty when all is well).
 */
export function streamingViolations(events: readonly ParseEvent[]): string[] {
  const violations: string[] = [];
  const started = new Set<string>();
  const ended = new Set<string>();
  const deltas = new Map<string, string[]>();
  for (const event of events) {
    if (event.type === 'tool-input-start') {
      if (started.has(event.id)) violations.push(`${event.id} started twice`);
      started.add(event.id);
      deltas.set(event.id, []);
    } else if (event.type === 'tool-input-delta') {
      if (!started.has(event.id) || ended.has(event.id))
        violations.push(`${event.id} delta outside start/end`);
      deltas.get(event.id)?.push(event.delta);
    } else if (event.type === 'tool-input-end') {
      ended.add(event.id);
    } else if (event.type === 'tool-call') {
      const streamed = deltas.get(event.toolCallId);
      if (!streamed) violations.push(`${event.toolCallId} called without tool-input-start`);
      else if (streamed.join('') !== event.input) {
        violations.push(
          `${event.toolCallId}: deltas ${JSON.stringify(streamed.join(''))} != input ${JSON.stringify(event.input)}`,
        );
      }
      if (!ended.has(event.toolCallId))
        violations.push(`${event.toolCallId} called before tool-input-end`);
    }
  }
  for (const id of started) if (!ended.has(id)) violations.push(`${id} never ended`);
  return violations;
}

export const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a city',
  inputSchema: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      days: { type: 'integer' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    },
    required: ['city'],
    additionalProperties: false,
  },
};

export const writeFileTool: ToolDefinition = {
  name: 'write_file',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
  },
};

export const searchTool: ToolDefinition = {
  name: 'search',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      path: { type: 'string' },
      allow_tests: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      options: {
        type: 'object',
        properties: { depth: { type: 'integer' }, exact: { type: 'boolean' } },
      },
    },
    required: ['query'],
  },
};

export const completionTool: ToolDefinition = {
  name: 'attempt_completion',
  inputSchema: {
    type: 'object',
    properties: { result: { type: 'string' } },
    required: ['result'],
  },
};

export const TOOLS: readonly ToolDefinition[] = [
  weatherTool,
  writeFileTool,
  searchTool,
  completionTool,
];

/**
 * The content of `text` parsed whole, after checking that every split into two chunks, and
 * one character at a time, gives the same content and keeps the streaming contract.
 */
export function contentAtEverySplit(
  protocol: ToolCallProtocol,
  text: string,
  options: ParseOptions,
  endOptions?: { readonly interrupted?: boolean },
): unknown[] {
  const run = (chunks: readonly string[]) => {
    const parser = protocol.createStreamParser({ generateId: counterIds(), ...options });
    const events: ParseEvent[] = [];
    for (const chunk of chunks) events.push(...parser.push(chunk));
    events.push(...parser.end(endOptions));
    return events;
  };
  const whole = run([text]);
  const expected = contentOf(whole);
  const splits: string[][] = [[...text]];
  for (let cut = 1; cut < text.length; cut++) splits.push([text.slice(0, cut), text.slice(cut)]);
  for (const chunks of splits) {
    const events = run(chunks);
    expect(contentOf(events), `split ${JSON.stringify(chunks.slice(0, 2))}`).toEqual(expected);
    expect(streamingViolations(events)).toEqual([]);
  }
  return expected;
}
