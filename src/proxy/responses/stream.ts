/**
 * A Responses reply as OpenAI streams it: Server-Sent Events, each named by its `type` and
 * numbered by `sequence_number`, from `response.created` to `response.completed` (or
 * `response.incomplete`, or `response.failed`).
 */
import type { HttpError } from '../../http/http-error.ts';
import { coalesce } from '../coalesce.ts';
import type { Turn } from '../conversation.ts';
import { errorBody } from '../errors.ts';
import type { ReplyEvent } from '../reply-events.ts';
import type { ReplyEnd } from '../reply-run.ts';
import type { FunctionCallItem, OutputItem, OutputListener } from './output.ts';
import type { ResponsesRequest } from './request.ts';
import {
  newItemId,
  ResponseBuilder,
  type ResponseIdentity,
  type ResponseObject,
  responseObject,
} from './response.ts';

export interface ResponseEventsSettings {
  readonly identity: ResponseIdentity;
  readonly request: ResponsesRequest;
  /** Ids of output items; default random (`msg_…`). */
  readonly newId?: (prefix: string) => string;
}

/**
 * Writes reply events as Responses stream events: each output item opened with
 * `response.output_item.added` and closed with `response.output_item.done`; a message's text as
 * `response.output_text.delta` in one `output_text` part, reasoning as
 * `response.reasoning_text.delta` in one `reasoning_text` part, a call's arguments as
 * `response.function_call_arguments.delta`. The last event carries the whole response, built by
 * the same `ResponseBuilder` as a response that does not stream, so the two agree.
 */
export class ResponseEvents {
  private readonly settings: ResponseEventsSettings;
  private readonly builder: ResponseBuilder;
  private sequence = 0;
  /** Events written since the last batch was taken. */
  private out = '';

  constructor(settings: ResponseEventsSettings) {
    this.settings = settings;
    const listener: OutputListener = {
      added: (index, item) => this.added(index, item),
      delta: (index, item, delta) => this.delta(index, item, delta),
      done: (index, item) => this.done(index, item),
      withdrawn: (index, item) => this.withdrawn(index, item),
    };
    this.builder = new ResponseBuilder(settings.request, settings.newId ?? newItemId, listener);
  }

  start(): string {
    const response = this.response({ status: 'in_progress', output: [] });
    this.event('response.created', { response });
    this.event('response.in_progress', { response });
    return this.take();
  }

  encode(events: readonly ReplyEvent[]): string {
    this.builder.add(coalesce(events));
    return this.take();
  }

  /**
   * The whole response and the assistant's turn, its open items finished (their events wait for
   * `completed`, or `error` if the response cannot be kept): the stream's end is `ended`, then
   * `completed` once the response is stored (`responseStreamWriter` in route.ts).
   */
  ended(end: ReplyEnd): {
    response: ResponseObject;
    turn: Turn & { readonly role: 'assistant' };
  } {
    return { response: this.builder.build(this.settings.identity, end), turn: this.builder.turn() };
  }

  /** The events that finish the stream with `response` (from `ended`): `response.completed` or `response.incomplete`. */
  completed(response: ResponseObject): string {
    this.event(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', {
      response,
    });
    return this.take();
  }

  /**
   * An error after the stream began: `response.failed` with the items finished so far and the
   * error (what Codex and the Agents SDK read), then OpenAI's `error` event (which the official
   * client throws as an `APIError`).
   */
  error(error: HttpError): string {
    const { error: body } = errorBody(
      'openai',
      error.status,
      error.message,
      error.param,
      typeof error.extra.code === 'string' ? error.extra.code : undefined,
    ) as { error: { type: string; param: string | null; code: string | null } };
    const response = this.response({
      status: 'failed',
      output: this.builder.items(),
      error: {
        code: error.status === 429 ? 'rate_limit_exceeded' : 'server_error',
        message: error.message,
      },
    });
    this.event('response.failed', { response });
    this.event('error', {
      code: body.code ?? body.type,
      message: error.message,
      param: body.param,
    });
    return this.take();
  }

  private response(state: Parameters<typeof responseObject>[2]): ResponseObject {
    return responseObject(this.settings.identity, this.settings.request, state);
  }

  private take(): string {
    const out = this.out;
    this.out = '';
    return out;
  }

  private event(type: string, fields: object): void {
    const data = JSON.stringify({ type, sequence_number: this.sequence++, ...fields });
    this.out += `event: ${type}\ndata: ${data}\n\n`;
  }

  private added(index: number, item: OutputItem): void {
    this.event('response.output_item.added', { output_index: index, item });
    if (item.type === 'message')
      this.event('response.content_part.added', {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
    else if (item.type === 'reasoning')
      this.event('response.content_part.added', {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { type: 'reasoning_text', text: '' },
      });
  }

  private delta(index: number, item: OutputItem, delta: string): void {
    // The most frequent event: written without building an object for it.
    const type =
      item.type === 'message'
        ? 'response.output_text.delta'
        : item.type === 'reasoning'
          ? 'response.reasoning_text.delta'
          : 'response.function_call_arguments.delta';
    const place = `"item_id":${JSON.stringify(item.id)},"output_index":${index}${item.type === 'function_call' ? '' : ',"content_index":0'}`;
    const tail = item.type === 'message' ? ',"logprobs":[]' : '';
    this.out += `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.sequence++},${place},"delta":${JSON.stringify(delta)}${tail}}\n\n`;
  }

  private done(index: number, item: OutputItem): void {
    const place = { item_id: item.id, output_index: index };
    if (item.type === 'function_call') {
      this.event('response.function_call_arguments.done', { ...place, arguments: item.arguments });
    } else {
      const part = item.content[0]!;
      if (item.type === 'message')
        this.event('response.output_text.done', {
          ...place,
          content_index: 0,
          text: part.text,
          logprobs: [],
        });
      else
        this.event('response.reasoning_text.done', { ...place, content_index: 0, text: part.text });
      this.event('response.content_part.done', { ...place, content_index: 0, part });
    }
    this.event('response.output_item.done', { output_index: index, item });
  }

  private withdrawn(index: number, item: FunctionCallItem): void {
    this.event('response.output_item.done', { output_index: index, item });
  }
}
