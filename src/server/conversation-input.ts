import type { ConversationEntry, ToolOutcome } from '../agent/index.ts';
import { HttpError } from '../http/http-error.ts';
import { onlyKeys } from './requests.ts';

/** What a conversation sent with a run may hold (the body's byte cap bounds it too). */
export interface ConversationLimits {
  /** Entries at most. */
  readonly maxConversationEntries: number;
  /** How deeply a call's input or a result's output may nest (arrays and objects). */
  readonly maxConversationDepth: number;
}

export const DEFAULT_CONVERSATION_LIMITS: ConversationLimits = {
  maxConversationEntries: 2000,
  maxConversationDepth: 64,
};

const TEXT_ENTRIES = new Set(['user', 'think', 'respond', 'feedback']);
const ENTRY_TYPES = 'user, think, respond, call, results, feedback';

/**
 * The `conversation` of a run request: the `conversation_history` of an earlier run's
 * `meta_final`, sent back by a client to continue it. It is the client's, so it is checked as
 * strictly as any input: every entry's shape and fields, no unknown keys, the entry count and how
 * deeply values nest (a value deep enough would exhaust the stack of whatever walks it later).
 * Throws a 400 `HttpError` naming the first bad place, e.g. `conversation[3].results[0]`.
 */
export function parseConversationInput(
  value: unknown,
  limits: ConversationLimits,
  where: string,
): ConversationEntry[] {
  const at = `${where}: "conversation"`;
  if (!Array.isArray(value))
    throw new HttpError(
      400,
      `${at} must be an array of entries (the conversation_history of an earlier run)`,
    );
  if (value.length > limits.maxConversationEntries)
    throw new HttpError(
      400,
      `${at} has ${value.length} entries, more than the ${limits.maxConversationEntries} this server takes; start a new conversation`,
    );
  return value.map((entry, index) => parseEntry(entry, `${where}: conversation[${index}]`, limits));
}

function parseEntry(value: unknown, at: string, limits: ConversationLimits): ConversationEntry {
  const entry = record(value, at);
  const { type } = entry;
  if (
    typeof type !== 'string' ||
    !(TEXT_ENTRIES.has(type) || type === 'call' || type === 'results')
  )
    throw new HttpError(400, `${at}.type must be one of ${ENTRY_TYPES} (got ${describe(type)})`);
  if (TEXT_ENTRIES.has(type)) {
    onlyKeys(entry, ['type', 'content'], at);
    if (typeof entry.content !== 'string')
      throw new HttpError(400, `${at}.content must be a string (a ${type} entry's text)`);
    return { type, content: entry.content } as ConversationEntry;
  }
  if (type === 'call') {
    onlyKeys(entry, ['type', 'toolCallId', 'toolName', 'input'], at);
    return {
      type: 'call',
      toolCallId: name(entry.toolCallId, `${at}.toolCallId`),
      toolName: name(entry.toolName, `${at}.toolName`),
      input: shallowEnough(entry.input, `${at}.input`, limits.maxConversationDepth),
    };
  }
  onlyKeys(entry, ['type', 'results'], at);
  if (!Array.isArray(entry.results))
    throw new HttpError(400, `${at}.results must be an array of call outcomes`);
  return {
    type: 'results',
    results: entry.results.map((item, index) =>
      parseOutcome(item, `${at}.results[${index}]`, limits),
    ),
  };
}

function parseOutcome(value: unknown, at: string, limits: ConversationLimits): ToolOutcome {
  const outcome = record(value, at);
  onlyKeys(outcome, ['toolCallId', 'toolName', 'output', 'isError'], at);
  if (outcome.isError !== undefined && typeof outcome.isError !== 'boolean')
    throw new HttpError(400, `${at}.isError must be true or false`);
  return {
    toolCallId: name(outcome.toolCallId, `${at}.toolCallId`),
    toolName: name(outcome.toolName, `${at}.toolName`),
    output: shallowEnough(outcome.output, `${at}.output`, limits.maxConversationDepth),
    ...(outcome.isError === true ? { isError: true } : {}),
  };
}

function record(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new HttpError(400, `${at} must be an object (got ${describe(value)})`);
  return value as Record<string, unknown>;
}

function name(value: unknown, at: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw new HttpError(400, `${at} must be a non-empty string (got ${describe(value)})`);
  return value;
}

/**
 * The value, when it nests no deeper than `maxDepth`. Walked with an explicit stack, so the
 * check itself cannot run out of stack whatever the client sent.
 */
function shallowEnough(value: unknown, at: string, maxDepth: number): unknown {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= maxDepth)
      throw new HttpError(
        400,
        `${at} nests deeper than ${maxDepth} levels of arrays and objects, the most this server takes`,
      );
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return value;
}

/** A bad value in a message: its type, or a short string. */
function describe(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}…` : JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : String(value);
}

/**
 * Front-end answers a client sends with a UI protocol (AG-UI's tool messages, the AI SDK's tool
 * outputs), held to the same limits as a conversation's results entry: their outputs are the
 * client's, and they go into the run's conversation.
 */
export function checkToolAnswers(
  results: readonly { readonly toolCallId: string; readonly output: unknown }[],
  limits: ConversationLimits,
  where: string,
): void {
  const answers = results.map((result) => ({
    toolCallId: result.toolCallId,
    toolName: 'answer',
    output: result.output,
  }));
  parseConversationInput([{ type: 'results', results: answers }], limits, where);
}
