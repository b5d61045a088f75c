/**
 * The JSON Schema of a whole reply, for servers that take nothing else (Ollama's `format`, LM
 * Studio's `response_format`): only where a format's batch of calls is itself one JSON value
 * (xLAM's `[{"name": …, "arguments": {…}}]`) and the choice demands a call.
 */
import type { JsonSchema, ToolDefinition } from '../../core/index.ts';
import { callWriter } from '../spec/writers.ts';
import { type CallsGrammarRequest, toolsInScope } from './calls-grammar.ts';
import { GrammarUnsupportedError } from './grammar-error.ts';
import type { ReplyShape } from './reply-shape.ts';

const NAME = '\u0001name\u0001';
const ARGUMENTS = { '\u0001arguments\u0001': true };

function parses(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** The schema of a written call, the name and arguments taken from `tool`. */
function schemaOf(value: unknown, tool: ToolDefinition): JsonSchema {
  if (value === NAME) return { const: tool.name };
  if (typeof value === 'number') return { type: 'integer', minimum: 0 };
  if (Array.isArray(value)) return { const: value };
  if (typeof value !== 'object' || value === null) return { const: value };
  if (JSON.stringify(value) === JSON.stringify(ARGUMENTS)) return tool.inputSchema;
  const properties: Record<string, JsonSchema> = {};
  for (const [key, member] of Object.entries(value)) {
    properties[key === NAME ? tool.name : key] = schemaOf(member, tool);
  }
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  };
}

export function replyJsonSchema(shape: ReplyShape, request: CallsGrammarRequest): JsonSchema {
  if (request.toolChoice === 'auto' || request.toolChoice === 'none') {
    throw new GrammarUnsupportedError(
      shape.format,
      `a JSON Schema holds the whole reply, so it is only for a tool choice that demands a call (not "${request.toolChoice}")`,
    );
  }
  const tools = toolsInScope(shape.format, request);
  const write = callWriter(shape.spec);
  const one = parses(write([{ toolName: NAME, input: ARGUMENTS }]));
  const two = parses(
    write([
      { toolName: NAME, input: ARGUMENTS },
      { toolName: NAME, input: ARGUMENTS },
    ]),
  );
  if (!one) {
    throw new GrammarUnsupportedError(shape.format, 'its calls are not written as JSON alone');
  }
  const call = (written: unknown): JsonSchema => {
    const branches = tools.map((tool) => schemaOf(written, tool));
    return branches.length === 1 ? (branches[0] as JsonSchema) : { anyOf: branches };
  };
  if (Array.isArray(one.value)) {
    if (one.value.length !== 1 || !Array.isArray(two?.value) || two.value.length !== 2) {
      throw new GrammarUnsupportedError(
        shape.format,
        'its batch of calls is not a JSON list of calls',
      );
    }
    return {
      type: 'array',
      items: call(one.value[0]),
      minItems: 1,
      ...(request.parallelToolCalls ? {} : { maxItems: 1 }),
    };
  }
  return call(one.value);
}
