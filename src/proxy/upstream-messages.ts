import {
  correctionText,
  demandSentence,
  TOOLS_UNAVAILABLE,
  type ToolCallProtocol,
  type ToolChoiceDemand,
} from '../core/index.ts';
import type { ChatRequest, ToolChoiceSetting, UserContent } from './conversation.ts';

/** A message as the model server gets it: only these three roles, text or the user's parts. */
export type UpstreamMessage =
  | { readonly role: 'system' | 'assistant'; readonly content: string }
  | { readonly role: 'user'; readonly content: UserContent };

/** Told when the client asked for at most one call per reply. */
export const ONE_CALL_SENTENCE = 'Call at most one tool in this reply.';

/** The demand a tool choice makes, if it makes one. */
export function demandOf(choice: ToolChoiceSetting): ToolChoiceDemand | undefined {
  if (choice.type === 'required') return { type: 'required' };
  if (choice.type === 'tool') return { type: 'tool', toolName: choice.toolName };
  return undefined;
}

/** The tool prompt for this request, or undefined when it declares no tools. */
export function toolPrompt(request: ChatRequest, protocol: ToolCallProtocol): string | undefined {
  if (request.tools.length === 0) return undefined;
  const choice = request.toolChoice;
  if (choice.type === 'none') return TOOLS_UNAVAILABLE;
  // A named choice shows only that tool, so the model is not tempted by the others.
  const shown =
    choice.type === 'tool'
      ? request.tools.filter((tool) => tool.name === choice.toolName)
      : request.tools;
  const parts = [protocol.formatTools(shown)];
  const demand = demandOf(choice);
  if (demand) parts.push(demandSentence(demand));
  if (!request.parallelToolCalls && choice.type !== 'tool') parts.push(ONE_CALL_SENTENCE);
  return parts.join('\n\n');
}

function joinBlocks(first: string, second: string): string {
  if (first.length === 0) return second;
  if (second.length === 0) return first;
  return `${first}\n\n${second}`;
}

/** Joins text and call markup so that the markup starts on its own line. */
function joinLines(first: string, second: string): string {
  if (first.length === 0 || first.endsWith('\n') || second.startsWith('\n')) return first + second;
  return `${first}\n${second}`;
}

/** A user message's content with text put before it (results, then what the user wrote). */
function prependText(text: string, content: UserContent): UserContent {
  if (typeof content === 'string') return joinBlocks(text, content);
  return [{ type: 'text', text }, ...content];
}

/**
 * The conversation as a text-only model server gets it: the tool prompt joins the client's system
 * text, earlier calls become the protocol's markup in the assistant's text, and results become a
 * user message in the protocol's result format (which escapes them, so a result is never read
 * back as a call). Consecutive user messages are joined, as chat templates expect turns to alternate.
 */
export function upstreamMessages(
  request: ChatRequest,
  protocol: ToolCallProtocol,
): UpstreamMessage[] {
  const system = joinBlocks(request.system, toolPrompt(request, protocol) ?? '');
  const out: UpstreamMessage[] = system.length > 0 ? [{ role: 'system', content: system }] : [];
  const pushUser = (content: UserContent) => {
    const last = out[out.length - 1];
    if (last?.role === 'user' && typeof last.content === 'string') {
      out[out.length - 1] = { role: 'user', content: prependText(last.content, content) };
    } else {
      out.push({ role: 'user', content });
    }
  };
  for (const turn of request.turns) {
    switch (turn.role) {
      case 'user':
        pushUser(turn.content);
        break;
      case 'system':
        out.push(turn);
        break;
      case 'assistant': {
        const markup = turn.calls.length > 0 ? protocol.formatToolCall(turn.calls) : '';
        out.push({ role: 'assistant', content: joinLines(turn.text, markup) });
        break;
      }
      case 'tool-results':
        if (turn.results.length > 0) pushUser(protocol.formatToolResponse(turn.results));
        break;
    }
  }
  return out;
}

/** The messages of a retry: the model's answer without a call, then the correction. */
export function retryMessages(
  messages: readonly UpstreamMessage[],
  answer: string,
  demand: ToolChoiceDemand,
): UpstreamMessage[] {
  return [
    ...messages,
    ...(answer.length > 0 ? [{ role: 'assistant' as const, content: answer }] : []),
    { role: 'user', content: correctionText(demand) },
  ];
}
