/**
 * The proxy bench's checks: every streamed reply is read back as a client reads it and compared
 * with the scripted reply it answers, so a run whose replies are wrong or cut short fails instead
 * of looking fast. The pass-through and the model server itself must deliver the model's text
 * unchanged; toolwire's proxy must deliver the prose as content and each call as `tool_calls`
 * whose arguments parse to exactly the scripted arguments.
 */
import { isDeepStrictEqual } from 'node:util';
import { createParser } from 'eventsource-parser';
import type { Exchange } from './proxy-load.ts';
import type { ScriptedReply } from './proxy-replies.ts';

export interface StreamedCall {
  id?: string;
  name?: string;
  arguments: string;
}

/** A chat completions stream as a client assembles it. */
export interface ChatStreamReading {
  readonly content: string;
  readonly calls: readonly StreamedCall[];
  readonly finishReason: string | undefined;
  /** The stream ended with `data: [DONE]`. */
  readonly done: boolean;
  /** Events that were not chat completion chunks, or error events. */
  readonly problems: readonly string[];
}

interface ChunkDelta {
  content?: unknown;
  tool_calls?: unknown;
}

/** Reads a chat completions event stream: the text, the calls by index, how it finished. */
export function readChatStream(body: string): ChatStreamReading {
  let content = '';
  const calls: StreamedCall[] = [];
  let finishReason: string | undefined;
  let done = false;
  const problems: string[] = [];
  const parser = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') {
        done = true;
        return;
      }
      let chunk: { error?: unknown; choices?: { delta?: ChunkDelta; finish_reason?: unknown }[] };
      try {
        chunk = JSON.parse(event.data);
      } catch {
        problems.push(`an event that is not JSON: ${event.data.slice(0, 80)}`);
        return;
      }
      if (chunk.error !== undefined) {
        problems.push(`an error event: ${JSON.stringify(chunk.error).slice(0, 200)}`);
        return;
      }
      const choice = chunk.choices?.[0];
      if (!choice) return;
      if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') content += delta.content;
      if (Array.isArray(delta.tool_calls))
        for (const part of delta.tool_calls as {
          index?: number;
          id?: string;
          function?: { name?: string; arguments?: string };
        }[]) {
          const index = part.index ?? -1;
          if (!Number.isInteger(index) || index < 0 || index > calls.length) {
            problems.push(`a tool_calls delta with index ${String(part.index)}`);
            continue;
          }
          if (index === calls.length) calls.push({ arguments: '' });
          const call = calls[index]!;
          if (part.id !== undefined) call.id = part.id;
          if (part.function?.name !== undefined) call.name = part.function.name;
          if (part.function?.arguments !== undefined) call.arguments += part.function.arguments;
        }
    },
  });
  parser.feed(body);
  return { content, calls, finishReason, done, problems };
}

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function clip(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

/** What is wrong with a reply that went through unchanged, or undefined when nothing is. */
export function forwardedProblem(body: string, reply: ScriptedReply): string | undefined {
  const reading = readChatStream(body);
  if (reading.problems.length > 0) return reading.problems[0];
  if (!reading.done) return 'the stream did not end with [DONE]';
  if (reading.calls.length > 0) return `${reading.calls.length} tool_calls in a forwarded reply`;
  if (reading.content !== reply.text)
    return `the text differs from the model's: ${clip(reading.content)} (${reading.content.length} of ${reply.text.length} characters)`;
  return undefined;
}

/** What is wrong with toolwire's reading of a reply, or undefined when nothing is. */
export function proxiedProblem(body: string, reply: ScriptedReply): string | undefined {
  const reading = readChatStream(body);
  if (reading.problems.length > 0) return reading.problems[0];
  if (!reading.done) return 'the stream did not end with [DONE]';
  if (reading.finishReason !== 'tool_calls')
    return `finish_reason ${String(reading.finishReason)}, not tool_calls`;
  if (reading.content.trim() !== reply.prose.trim())
    return `the content is ${clip(reading.content)}, not the prose before the calls`;
  if (reading.calls.length !== reply.calls.length)
    return `${reading.calls.length} calls, expected ${reply.calls.length}`;
  for (const [index, want] of reply.calls.entries()) {
    const call = reading.calls[index]!;
    if (!call.id) return `call ${index} has no id`;
    if (call.name !== want.toolName) return `call ${index} is ${call.name}, not ${want.toolName}`;
    const input = parsedArguments(call.arguments);
    if (!isDeepStrictEqual(input, want.input))
      return `call ${index} (${want.toolName}) has arguments ${clip(call.arguments)}, not the scripted ones`;
  }
  return undefined;
}

/**
 * What is wrong with one exchange: a failure, a status, or a reply that is not the scripted one
 * (read as toolwire's proxy writes it when `proxied`).
 */
export function exchangeProblem(
  result: Exchange,
  replies: readonly ScriptedReply[],
  proxied: boolean,
): string | undefined {
  if (result.error !== undefined) return `request failed: ${result.error}`;
  if (result.status !== 200) return `status ${result.status}: ${clip(result.body)}`;
  const reply = replies[result.reply];
  if (!reply) return `no scripted reply ${result.reply}`;
  return proxied ? proxiedProblem(result.body, reply) : forwardedProblem(result.body, reply);
}
