/**
 * A stored response's conversation as the JSON text a shared store holds, and read back from it.
 * The store is shared with other instances (and whoever else can write to it), so what comes back
 * is checked field by field before the request reader trusts it as an `EarlierConversation`.
 */
import { ToolwireError } from '../../core/errors.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import type { Turn } from '../conversation.ts';
import type { EarlierConversation } from './request.ts';

/** The conversation as the text to store. */
export function storedConversationText(conversation: EarlierConversation): string {
  return JSON.stringify({ system: conversation.system, turns: conversation.turns });
}

/**
 * A stored response the store gave back in a shape this proxy never writes (not JSON, a field of
 * the wrong type): written by something else, or damaged. Kind `store-unavailable` (the store
 * answered with something unusable), but asking again does not help: the proxy answers 500.
 */
export class UnreadableStoredResponseError extends ToolwireError {
  declare readonly kind: 'store-unavailable';
  readonly responseId: string;

  constructor(responseId: string, reason: string, options: { cause?: unknown } = {}) {
    super(
      'store-unavailable',
      `the stored response '${responseId}' cannot be read: ${reason}`,
      options,
    );
    this.responseId = responseId;
  }
}

/** The first field that is not what this proxy writes, with what it should be. */
class ShapeProblem {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

type Record_ = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Record_ {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function wrong(path: string, expected: string): never {
  throw new ShapeProblem(`${path} is not ${expected}`);
}

function recordAt(value: unknown, path: string): Record_ {
  return isRecord(value) ? value : wrong(path, 'an object');
}

function stringAt(value: unknown, path: string): string {
  return typeof value === 'string' ? value : wrong(path, 'a string');
}

function optionalStringAt(value: unknown, path: string): string | undefined {
  return value === undefined ? undefined : stringAt(value, path);
}

function arrayAt(value: unknown, path: string): readonly unknown[] {
  return Array.isArray(value) ? value : wrong(path, 'an array');
}

function callAt(value: unknown, path: string) {
  const call = recordAt(value, path);
  const toolCallId = optionalStringAt(call.toolCallId, `${path}.toolCallId`);
  if (!('input' in call)) wrong(`${path}.input`, 'present');
  return {
    toolName: stringAt(call.toolName, `${path}.toolName`),
    input: call.input,
    ...(toolCallId === undefined ? {} : { toolCallId }),
  };
}

function resultAt(value: unknown, path: string) {
  const result = recordAt(value, path);
  const toolCallId = optionalStringAt(result.toolCallId, `${path}.toolCallId`);
  if (result.isError !== undefined && typeof result.isError !== 'boolean')
    wrong(`${path}.isError`, 'a boolean');
  if (!('output' in result)) wrong(`${path}.output`, 'present');
  return {
    toolName: stringAt(result.toolName, `${path}.toolName`),
    output: result.output,
    ...(toolCallId === undefined ? {} : { toolCallId }),
    ...(result.isError === undefined ? {} : { isError: result.isError as boolean }),
  };
}

function turnAt(value: unknown, path: string): Turn {
  const turn = recordAt(value, path);
  switch (turn.role) {
    case 'user': {
      const content = turn.content;
      if (typeof content === 'string') return { role: 'user', content };
      const parts = arrayAt(content, `${path}.content`).map((part, index) =>
        recordAt(part, `${path}.content[${index}]`),
      );
      return { role: 'user', content: parts };
    }
    case 'system':
      return { role: 'system', content: stringAt(turn.content, `${path}.content`) };
    case 'assistant': {
      const reasoning = optionalStringAt(turn.reasoning, `${path}.reasoning`);
      return {
        role: 'assistant',
        text: stringAt(turn.text, `${path}.text`),
        calls: arrayAt(turn.calls, `${path}.calls`).map((call, index) =>
          callAt(call, `${path}.calls[${index}]`),
        ),
        ...(reasoning === undefined ? {} : { reasoning }),
      };
    }
    case 'tool-results':
      return {
        role: 'tool-results',
        results: arrayAt(turn.results, `${path}.results`).map((result, index) =>
          resultAt(result, `${path}.results[${index}]`),
        ),
      };
    default:
      return wrong(`${path}.role`, '"user", "system", "assistant" or "tool-results"');
  }
}

/**
 * The conversation the text stored for `responseId` holds; an `UnreadableStoredResponseError`
 * when it is not JSON or names the first field that is not what this proxy writes.
 */
export function readStoredConversation(responseId: string, text: string): EarlierConversation {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    throw new UnreadableStoredResponseError(
      responseId,
      `it is not JSON (${(error as Error).message})`,
      { cause: error },
    );
  }
  try {
    const fields = recordAt(value, 'the stored conversation');
    return {
      system: stringAt(fields.system, 'system'),
      turns: arrayAt(fields.turns, 'turns').map((turn, index) => turnAt(turn, `turns[${index}]`)),
    };
  } catch (problem) {
    if (problem instanceof ShapeProblem)
      throw new UnreadableStoredResponseError(responseId, problem.reason);
    throw problem;
  }
}
