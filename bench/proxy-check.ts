/**
 * The proxy bench's checks: every reply, streamed or whole, is read back as a client of its API
 * (chat completions, Messages, Responses) reads it and compared with the scripted reply it
 * answers, so a run whose replies are wrong or cut short fails instead of looking fast. The pipe,
 * the pass-through and the model server itself must deliver the model's text unchanged;
 * toolwire's proxy must deliver the prose as text and each call (`tool_calls`, `tool_use`,
 * `function_call`) with arguments that parse to exactly the scripted arguments.
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

/**
 * A reply as a client of any of the APIs assembles it: its text, its calls (arguments as JSON
 * text), and how it said it ended, in chat completions' words (`tool_calls` for Messages'
 * `tool_use`, and for a completed response with calls).
 */
export interface ReplyReading {
  readonly content: string;
  readonly calls: readonly StreamedCall[];
  readonly finishReason: string | undefined;
  /** The reply was whole: `[DONE]`, `message_stop`, `response.completed`, or a whole JSON body. */
  readonly done: boolean;
  readonly problems: readonly string[];
}

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown): Fields | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Fields)
    : undefined;
}

function jsonBody(body: string): { value?: Fields; problem?: string } {
  try {
    const value = fieldsOf(JSON.parse(body));
    return value ? { value } : { problem: 'the body is not a JSON object' };
  } catch {
    return { problem: `the body is not JSON: ${clip(body)}` };
  }
}

/** A whole chat completion (`stream: false`). */
export function readChatJson(body: string): ReplyReading {
  const { value, problem } = jsonBody(body);
  if (!value)
    return { content: '', calls: [], finishReason: undefined, done: false, problems: [problem!] };
  const choice = fieldsOf((value.choices as unknown[] | undefined)?.[0]);
  const message = fieldsOf(choice?.message) ?? {};
  const calls: StreamedCall[] = [];
  for (const item of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    const call = fieldsOf(item);
    const fn = fieldsOf(call?.function);
    calls.push({
      ...(typeof call?.id === 'string' ? { id: call.id } : {}),
      ...(typeof fn?.name === 'string' ? { name: fn.name } : {}),
      arguments: typeof fn?.arguments === 'string' ? fn.arguments : '',
    });
  }
  return {
    content: typeof message.content === 'string' ? message.content : '',
    calls,
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : undefined,
    done: choice !== undefined,
    problems: value.error === undefined ? [] : [`an error: ${clip(JSON.stringify(value.error))}`],
  };
}

/** Messages' `stop_reason` in chat completions' words. */
function finishOfStop(stop: unknown): string | undefined {
  if (typeof stop !== 'string') return undefined;
  return stop === 'tool_use' ? 'tool_calls' : stop === 'end_turn' ? 'stop' : stop;
}

/** A whole Messages reply (`stream: false`). */
export function readMessagesJson(body: string): ReplyReading {
  const { value, problem } = jsonBody(body);
  if (!value)
    return { content: '', calls: [], finishReason: undefined, done: false, problems: [problem!] };
  let content = '';
  const calls: StreamedCall[] = [];
  for (const item of Array.isArray(value.content) ? value.content : []) {
    const block = fieldsOf(item);
    if (block?.type === 'text' && typeof block.text === 'string') content += block.text;
    if (block?.type === 'tool_use')
      calls.push({
        ...(typeof block.id === 'string' ? { id: block.id } : {}),
        ...(typeof block.name === 'string' ? { name: block.name } : {}),
        arguments: JSON.stringify(block.input),
      });
  }
  return {
    content,
    calls,
    finishReason: finishOfStop(value.stop_reason),
    done: value.type === 'message',
    problems: value.type === 'error' ? [`an error: ${clip(JSON.stringify(value.error))}`] : [],
  };
}

/** A Messages event stream, as a client assembles its blocks. */
export function readMessagesStream(body: string): ReplyReading {
  let content = '';
  const calls: StreamedCall[] = [];
  /** Block index → the call it is, for the argument deltas. */
  const callAt = new Map<number, StreamedCall>();
  let finishReason: string | undefined;
  let done = false;
  const problems: string[] = [];
  const parser = createParser({
    onEvent(event) {
      let data: Fields | undefined;
      try {
        data = fieldsOf(JSON.parse(event.data));
      } catch {
        problems.push(`an event that is not JSON: ${event.data.slice(0, 80)}`);
        return;
      }
      if (!data) return;
      const index = typeof data.index === 'number' ? data.index : -1;
      switch (data.type) {
        case 'content_block_start': {
          const block = fieldsOf(data.content_block);
          if (block?.type === 'text' && typeof block.text === 'string') content += block.text;
          if (block?.type === 'tool_use') {
            const call: StreamedCall = {
              ...(typeof block.id === 'string' ? { id: block.id } : {}),
              ...(typeof block.name === 'string' ? { name: block.name } : {}),
              arguments: '',
            };
            calls.push(call);
            callAt.set(index, call);
          }
          break;
        }
        case 'content_block_delta': {
          const delta = fieldsOf(data.delta);
          if (delta?.type === 'text_delta' && typeof delta.text === 'string') content += delta.text;
          if (delta?.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
            const call = callAt.get(index);
            if (call) call.arguments += delta.partial_json;
            else problems.push(`an input_json_delta for block ${index}, which is no tool_use`);
          }
          break;
        }
        case 'message_delta':
          finishReason = finishOfStop(fieldsOf(data.delta)?.stop_reason);
          break;
        case 'message_stop':
          done = true;
          break;
        case 'error':
          problems.push(`an error event: ${clip(JSON.stringify(data.error))}`);
          break;
      }
    },
  });
  parser.feed(body);
  return { content, calls, finishReason, done, problems };
}

/** The text, calls and end of a `response` object. */
function readResponseObject(response: Fields): ReplyReading {
  let content = '';
  const calls: StreamedCall[] = [];
  for (const item of Array.isArray(response.output) ? response.output : []) {
    const output = fieldsOf(item);
    if (output?.type === 'message')
      for (const part of Array.isArray(output.content) ? output.content : []) {
        const text = fieldsOf(part);
        if (text?.type === 'output_text' && typeof text.text === 'string') content += text.text;
      }
    if (output?.type === 'function_call')
      calls.push({
        ...(typeof output.call_id === 'string' ? { id: output.call_id } : {}),
        ...(typeof output.name === 'string' ? { name: output.name } : {}),
        arguments: typeof output.arguments === 'string' ? output.arguments : '',
      });
  }
  const completed = response.status === 'completed';
  return {
    content,
    calls,
    finishReason: completed ? (calls.length > 0 ? 'tool_calls' : 'stop') : String(response.status),
    done: completed,
    problems: response.error ? [`an error: ${clip(JSON.stringify(response.error))}`] : [],
  };
}

/** A whole `response` object (`stream: false`). */
export function readResponseJson(body: string): ReplyReading {
  const { value, problem } = jsonBody(body);
  if (!value)
    return { content: '', calls: [], finishReason: undefined, done: false, problems: [problem!] };
  if (value.object !== 'response')
    return {
      content: '',
      calls: [],
      finishReason: undefined,
      done: false,
      problems: [`not a response: ${clip(body)}`],
    };
  return readResponseObject(value);
}

/**
 * A Responses event stream: the text and arguments assembled from the deltas, which must agree
 * with the response `response.completed` carries, and `sequence_number` rising on every event.
 */
export function readResponseStream(body: string): ReplyReading {
  let content = '';
  const calls: StreamedCall[] = [];
  const callAt = new Map<number, StreamedCall>();
  let completed: ReplyReading | undefined;
  let sequence = -1;
  const problems: string[] = [];
  const parser = createParser({
    onEvent(event) {
      let data: Fields | undefined;
      try {
        data = fieldsOf(JSON.parse(event.data));
      } catch {
        problems.push(`an event that is not JSON: ${event.data.slice(0, 80)}`);
        return;
      }
      if (!data) return;
      if (typeof data.sequence_number !== 'number' || data.sequence_number <= sequence)
        problems.push(
          `${String(data.type)} has sequence_number ${String(data.sequence_number)} after ${sequence}`,
        );
      else sequence = data.sequence_number;
      const index = typeof data.output_index === 'number' ? data.output_index : -1;
      switch (data.type) {
        case 'response.output_text.delta':
          if (typeof data.delta === 'string') content += data.delta;
          break;
        case 'response.output_item.added': {
          const item = fieldsOf(data.item);
          if (item?.type === 'function_call') {
            const call: StreamedCall = {
              ...(typeof item.call_id === 'string' ? { id: item.call_id } : {}),
              ...(typeof item.name === 'string' ? { name: item.name } : {}),
              arguments: '',
            };
            calls.push(call);
            callAt.set(index, call);
          }
          break;
        }
        case 'response.function_call_arguments.delta': {
          const call = callAt.get(index);
          if (call && typeof data.delta === 'string') call.arguments += data.delta;
          else problems.push(`arguments for output ${index}, which is no function_call`);
          break;
        }
        case 'response.completed': {
          const response = fieldsOf(data.response);
          if (response) completed = readResponseObject(response);
          break;
        }
        case 'response.failed':
        case 'error':
          problems.push(`a ${data.type} event: ${clip(event.data)}`);
          break;
      }
    },
  });
  parser.feed(body);
  if (!completed)
    return {
      content,
      calls,
      finishReason: undefined,
      done: false,
      problems: [...problems, 'no response.completed'],
    };
  if (completed.content !== content)
    problems.push(`the text deltas (${clip(content)}) differ from the completed response's text`);
  if (JSON.stringify(completed.calls) !== JSON.stringify(calls))
    problems.push("the streamed calls differ from the completed response's");
  return { ...completed, problems: [...problems, ...completed.problems] };
}

/** What is wrong with a reading of toolwire's reply to `reply`, or undefined when nothing is. */
export function readingProblem(reading: ReplyReading, reply: ScriptedReply): string | undefined {
  if (reading.problems.length > 0) return reading.problems[0];
  if (!reading.done) return 'the reply did not end (no [DONE], message_stop or completed response)';
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

/** What is wrong with toolwire's streamed chat completions reply, or undefined when nothing is. */
export function proxiedProblem(body: string, reply: ScriptedReply): string | undefined {
  return readingProblem(readChatStream(body), reply);
}

/** How a reply is read: which API answered it, streamed or not; `forwarded` is the model server's own. */
export type ReplyKind =
  | 'forwarded'
  | 'forwarded-whole'
  | 'chat'
  | 'chat-whole'
  | 'messages'
  | 'messages-whole'
  | 'responses'
  | 'responses-whole';

/** What is wrong with the model server's whole reply passed on unchanged, or undefined. */
export function forwardedWholeProblem(body: string, reply: ScriptedReply): string | undefined {
  const reading = readChatJson(body);
  if (reading.problems.length > 0) return reading.problems[0];
  if (reading.calls.length > 0) return `${reading.calls.length} tool_calls in a forwarded reply`;
  if (reading.content !== reply.text)
    return `the text differs from the model's: ${clip(reading.content)} (${reading.content.length} of ${reply.text.length} characters)`;
  return undefined;
}

/** What is wrong with a reply of that kind to `reply`, or undefined when nothing is. */
export function replyProblem(
  kind: ReplyKind,
  body: string,
  reply: ScriptedReply,
): string | undefined {
  switch (kind) {
    case 'forwarded':
      return forwardedProblem(body, reply);
    case 'forwarded-whole':
      return forwardedWholeProblem(body, reply);
    case 'chat':
      return proxiedProblem(body, reply);
    case 'chat-whole':
      return readingProblem(readChatJson(body), reply);
    case 'messages':
      return readingProblem(readMessagesStream(body), reply);
    case 'messages-whole':
      return readingProblem(readMessagesJson(body), reply);
    case 'responses':
      return readingProblem(readResponseStream(body), reply);
    case 'responses-whole':
      return readingProblem(readResponseJson(body), reply);
  }
}

/**
 * What is wrong with one exchange: a failure, a status, or a reply that is not the scripted one
 * (read as toolwire's proxy writes it when `proxied`, or as the kind of reply named).
 */
export function exchangeProblem(
  result: Exchange,
  replies: readonly ScriptedReply[],
  proxied: boolean | ReplyKind,
): string | undefined {
  if (result.error !== undefined) return `request failed: ${result.error}`;
  if (result.status !== 200) return `status ${result.status}: ${clip(result.body)}`;
  const reply = replies[result.reply];
  if (!reply || reply.index !== result.reply) return `no scripted reply ${result.reply}`;
  const kind: ReplyKind = typeof proxied === 'string' ? proxied : proxied ? 'chat' : 'forwarded';
  return replyProblem(kind, result.body, reply);
}
