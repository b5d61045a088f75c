import type { ToolCallProtocol, ToolCallToFormat } from '../core/index.ts';

/** The outcome of one call, in the order the calls were made. */
export interface ToolOutcome {
  readonly toolCallId: string;
  readonly toolName: string;
  /** The tool's output, or the error message when `isError`. */
  readonly output: unknown;
  readonly isError?: boolean;
}

/**
 * One thing that happened in a conversation, kept as data (Cogency's granular events). The
 * model sees it rendered in the protocol's own text by `renderConversation`, so the same record
 * serves every protocol and survives `JSON.stringify` / `JSON.parse` unchanged.
 */
export type ConversationEntry =
  | { readonly type: 'user'; readonly content: string }
  /** Reasoning the model wrote. */
  | { readonly type: 'think'; readonly content: string }
  /** Text the model wrote outside calls. */
  | { readonly type: 'respond'; readonly content: string }
  | {
      readonly type: 'call';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
    }
  /** The results of one turn's calls, in call order. */
  | { readonly type: 'results'; readonly results: readonly ToolOutcome[] }
  /** The loop's own message to the model (a correction, a warning), sent as the user. */
  | { readonly type: 'feedback'; readonly content: string };

export interface RenderedMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/**
 * The conversation as the model reads it. What the model wrote in one turn (reasoning, text,
 * calls) becomes one assistant message, its parts joined by newlines; calls in a row become one
 * batch in the protocol's syntax; results and feedback are user messages.
 */
export function renderConversation(
  protocol: ToolCallProtocol,
  entries: readonly ConversationEntry[],
): RenderedMessage[] {
  const messages: RenderedMessage[] = [];
  let assistantParts: string[] = [];
  let batch: ToolCallToFormat[] = [];

  const flushBatch = () => {
    if (batch.length === 0) return;
    assistantParts.push(protocol.formatToolCall(batch));
    batch = [];
  };
  const flushAssistant = () => {
    flushBatch();
    if (assistantParts.length === 0) return;
    messages.push({ role: 'assistant', content: assistantParts.join('\n') });
    assistantParts = [];
  };

  for (const entry of entries) {
    switch (entry.type) {
      case 'think':
        flushBatch();
        assistantParts.push(`<think>${entry.content}</think>`);
        break;
      case 'respond':
        flushBatch();
        assistantParts.push(entry.content);
        break;
      case 'call':
        batch.push({ toolCallId: entry.toolCallId, toolName: entry.toolName, input: entry.input });
        break;
      case 'results':
        flushAssistant();
        messages.push({ role: 'user', content: protocol.formatToolResponse(entry.results) });
        break;
      case 'user':
      case 'feedback':
        flushAssistant();
        messages.push({ role: 'user', content: entry.content });
        break;
    }
  }
  flushAssistant();
  return messages;
}

/** Checks that a value read back from storage is a conversation; throws naming the bad entry. */
export function parseConversation(value: unknown): ConversationEntry[] {
  if (!Array.isArray(value)) throw new TypeError('a conversation must be an array of entries');
  return value.map((entry, index) => {
    const where = `conversation entry ${index}`;
    if (typeof entry !== 'object' || entry === null)
      throw new TypeError(`${where} is not an object`);
    const { type } = entry as { type?: unknown };
    switch (type) {
      case 'user':
      case 'think':
      case 'respond':
      case 'feedback':
        if (typeof (entry as { content?: unknown }).content !== 'string') {
          throw new TypeError(`${where} (${type}) needs a string "content"`);
        }
        return entry as ConversationEntry;
      case 'call': {
        const call = entry as { toolCallId?: unknown; toolName?: unknown };
        if (typeof call.toolCallId !== 'string' || typeof call.toolName !== 'string') {
          throw new TypeError(`${where} (call) needs string "toolCallId" and "toolName"`);
        }
        return entry as ConversationEntry;
      }
      case 'results':
        if (!Array.isArray((entry as { results?: unknown }).results)) {
          throw new TypeError(`${where} (results) needs a "results" array`);
        }
        return entry as ConversationEntry;
      default:
        throw new TypeError(`${where} has an unknown type ${JSON.stringify(type)}`);
    }
  });
}
