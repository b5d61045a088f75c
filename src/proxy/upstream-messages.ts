import {
  demandSentence,
  TOOLS_UNAVAILABLE,
  type ToolCallProtocol,
  type ToolCallToFormat,
  type ToolChoiceDemand,
  type ToolDefinition,
} from '../core/index.ts';
import {
  isToolChoiceConflict,
  planToolChoice,
  retryTurns,
  type ToolChoicePlan,
} from '../core/tool-choice-policy.ts';
import { HttpError } from '../http/http-error.ts';
import type { ChatRequest, UserContent } from './conversation.ts';

/** A message as the model server gets it: only these three roles, text or the user's parts. */
export type UpstreamMessage =
  | { readonly role: 'system'; readonly content: string }
  | UpstreamAssistantMessage
  | { readonly role: 'user'; readonly content: UserContent };

/**
 * An assistant turn: its text with its calls as the format's markup, and the model's reasoning
 * before them, when the client sent it back, in the message fields model servers read it from.
 *
 * The rule for earlier reasoning: it goes upstream beside the text, never in it, and the model's
 * own chat template decides whether it stays. llama.cpp reads `reasoning_content` (and maps it to
 * the field a template reads, `thinking` for gpt-oss), vLLM reads `reasoning` (newer releases; it
 * copies it to `reasoning_content` for the templates), Ollama `reasoning`: both are sent. A
 * template that keeps reasoning in history keeps it where its model was trained to see it (Qwen3's
 * for the turns after the last user query, gpt-oss's analysis before a call), and the others
 * (DeepSeek's, any template that never names the field) drop it. Written into the text as
 * `<think>…</think>` it would reach every model, and read as the reply's words.
 */
export interface UpstreamAssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly reasoning_content?: string;
  readonly reasoning?: string;
}

function assistantMessage(
  content: string,
  reasoning: string | undefined,
): UpstreamAssistantMessage {
  return reasoning === undefined || reasoning.length === 0
    ? { role: 'assistant', content }
    : { role: 'assistant', content, reasoning_content: reasoning, reasoning };
}

/** Told when the client asked for at most one call per reply. */
export const ONE_CALL_SENTENCE = 'Call at most one tool in this reply.';

/**
 * The tool-choice policy's plan for this request: the demand, the tools shown and read. The
 * request readers refused a choice that conflicts with the tools (400), so none is left here.
 */
export function toolChoicePlan(request: ChatRequest): ToolChoicePlan<ToolDefinition> {
  const planned = planToolChoice(request.toolChoice, request.tools);
  if (!isToolChoiceConflict(planned)) return planned;
  throw new HttpError(
    400,
    planned.conflict === 'no-tools'
      ? 'tool_choice demands a tool call, but the request declares no tools'
      : `tool_choice names the tool "${planned.toolName}", which is not among the request's tools`,
    { param: 'tool_choice', kind: 'unknown-tool-choice' },
  );
}

/** The tool prompt for this request, or undefined when it declares no tools. */
export function toolPrompt(
  request: ChatRequest,
  protocol: ToolCallProtocol,
  plan: ToolChoicePlan<ToolDefinition> = toolChoicePlan(request),
): string | undefined {
  if (plan.prompt === 'no-tools') return undefined;
  if (plan.prompt === 'tools-unavailable') return TOOLS_UNAVAILABLE;
  const parts = [protocol.formatTools(plan.offered)];
  if (plan.demand) parts.push(demandSentence(plan.demand));
  // A named choice already asks for one call of one tool.
  if (!request.parallelToolCalls && plan.demand?.type !== 'tool') parts.push(ONE_CALL_SENTENCE);
  return parts.join('\n\n');
}

function joinBlocks(first: string, second: string): string {
  if (first.length === 0) return second;
  if (second.length === 0) return first;
  return `${first}\n\n${second}`;
}

/** Joins text and call markup so that the markup starts on its own line. */
function joinLines(first: string, second: string): string {
  if (first.length === 0 || second.length === 0) return first + second;
  if (first.endsWith('\n') || second.startsWith('\n')) return first + second;
  return `${first}\n${second}`;
}

/**
 * An assistant message's text as the model's turn holds it: without the blank lines a reply's
 * text kept from after its reasoning (`</think>\n\n`), which would otherwise open the turn or
 * stand between two messages joined into one.
 */
function assistantText(text: string): string {
  let start = 0;
  while (start < text.length && (text[start] === '\n' || text[start] === '\r')) start++;
  let end = text.length;
  while (end > start && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  return text.slice(start, end);
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
  plan: ToolChoicePlan<ToolDefinition> = toolChoicePlan(request),
): UpstreamMessage[] {
  const system = joinBlocks(request.system, toolPrompt(request, protocol, plan) ?? '');
  const out: UpstreamMessage[] = system.length > 0 ? [{ role: 'system', content: system }] : [];
  const pushUser = (content: UserContent) => {
    const last = out[out.length - 1];
    if (last?.role === 'user' && typeof last.content === 'string') {
      out[out.length - 1] = { role: 'user', content: prependText(last.content, content) };
    } else {
      out.push({ role: 'user', content });
    }
  };
  /** The assistant turn just written, while the next turn may continue it. */
  let pendingAssistant:
    | { text: string; calls: readonly ToolCallToFormat[]; reasoning: string }
    | undefined;
  for (const turn of request.turns) {
    if (turn.role !== 'assistant') pendingAssistant = undefined;
    switch (turn.role) {
      case 'user':
        pushUser(turn.content);
        break;
      case 'system':
        out.push(turn);
        break;
      case 'assistant': {
        // Consecutive assistant messages (Codex sends a call, then its text, as two) are one
        // reply of the model's: one turn, its text first and its calls after, as a model writes.
        const previous = pendingAssistant;
        const reasoning = turn.reasoning ?? '';
        pendingAssistant = previous
          ? {
              text: joinBlocks(previous.text, assistantText(turn.text)),
              calls: [...previous.calls, ...turn.calls],
              reasoning: joinBlocks(previous.reasoning, reasoning),
            }
          : { text: assistantText(turn.text), calls: turn.calls, reasoning };
        if (previous) out.pop();
        const { text, calls } = pendingAssistant;
        const markup = calls.length > 0 ? protocol.formatToolCall(calls) : '';
        out.push(assistantMessage(joinLines(text, markup), pendingAssistant.reasoning));
        continue;
      }
      case 'tool-results':
        if (turn.results.length > 0) pushUser(protocol.formatToolResponse(turn.results));
        break;
    }
  }
  return out;
}

/** The messages of a retry: the policy's retry turns (the answer without a call, the correction). */
export function retryMessages(
  messages: readonly UpstreamMessage[],
  answer: string,
  demand: ToolChoiceDemand,
): UpstreamMessage[] {
  return [
    ...messages,
    ...retryTurns(answer, demand).map(({ role, text }) => ({ role, content: text })),
  ];
}
