import type { UIMessage } from 'ai';
import type { AgentEvent, AgentResult } from '../../agent/index.ts';
import {
  frameUIMessageChunk,
  UI_MESSAGE_STREAM_DONE,
  UIMessageChunkEncoder,
  type UIMessageStreamOptions,
  type UIMessagesRun,
  uiMessagesToRun,
} from '../../agent/ui/ui-message-stream.ts';
import { HttpError } from '../../http/http-error.ts';
import { type ConversationLimits, parseConversationInput } from '../conversation-input.ts';

/**
 * The AI SDK's chat (`useChat` with `DefaultChatTransport`) served from toolwire's runs. This
 * file holds what the routes stand on: the request `DefaultChatTransport` posts, checked, and the
 * run written as the UI message stream's SSE frames. The routes themselves (`POST /api/chat`,
 * `GET /api/chat/:id/stream`) come with the run driver that writes any wire format to the store.
 */

/** What `POST /api/chat` carries, read and checked. */
export interface ChatRequest {
  /** The chat's id (`useChat`'s `id`). */
  readonly chatId: string;
  readonly trigger: 'submit-message' | 'regenerate-message';
  /** The messages as the client holds them. */
  readonly messages: readonly UIMessage[];
  /** What a run needs from them: prompt, conversation, the front-end answers. */
  readonly run: UIMessagesRun;
}

const TRIGGERS = new Set(['submit-message', 'regenerate-message']);

/**
 * The body `DefaultChatTransport.sendMessages` posts (`{id, messages, trigger, messageId, …}`,
 * plus whatever the app adds through its `body` option, which is left alone). The messages are
 * the client's, so they are held to the limits of a run's `conversation`: the entries they make
 * and how deeply call inputs and tool outputs nest. Throws a 400 `HttpError` naming the place.
 */
export function parseChatRequest(body: unknown, limits: ConversationLimits): ChatRequest {
  const where = 'POST /api/chat';
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(400, `${where}: the body must be a JSON object (what useChat sends)`);
  const { id, messages, trigger } = body as Record<string, unknown>;
  if (typeof id !== 'string' || id.length === 0 || id.length > 200)
    throw new HttpError(
      400,
      `${where}: "id" must be the chat's id, a string of 1 to 200 characters`,
      {
        param: 'id',
      },
    );
  if (typeof trigger !== 'string' || !TRIGGERS.has(trigger))
    throw new HttpError(400, `${where}: "trigger" must be submit-message or regenerate-message`, {
      param: 'trigger',
    });
  if (!Array.isArray(messages))
    throw new HttpError(400, `${where}: "messages" must be an array of UI messages`, {
      param: 'messages',
    });
  let run: UIMessagesRun;
  try {
    run = uiMessagesToRun(messages as UIMessage[]);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new HttpError(400, `${where}: ${error.message}`, { param: 'messages' });
  }
  // The conversation and the answers, checked as a run's `conversation` is.
  parseConversationInput(run.conversation, limits, where);
  const answers = run.results.map((result) => ({
    toolCallId: result.toolCallId,
    toolName: 'answer',
    output: result.output,
  }));
  parseConversationInput(
    [{ type: 'results', results: answers }],
    limits,
    `${where} (tool outputs)`,
  );
  return {
    chatId: id,
    trigger: trigger as ChatRequest['trigger'],
    messages: messages as UIMessage[],
    run,
  };
}

/** What a lost instance's run ends with in the UI message stream. */
export const INSTANCE_LOST_TEXT =
  'the server instance running this run stopped answering (its lease ran out); the run is over';

/**
 * A run as the UI message stream's SSE frames, for the event log: `start` first, each agent
 * event's chunks, one frame each, and `data: [DONE]` after the last. `tail` and `failure` say
 * what closes the stream as it stands (open parts end, an `error`, `[DONE]`): `tail` if this
 * instance dies (it changes nothing, the run may go on), `failure` when the server cannot go on.
 */
export class UIMessageWire {
  private readonly encoder: UIMessageChunkEncoder;
  private readonly messageId: string;
  private doneSent = false;

  /** `messageId`: the run's (a resumed run repeats it, with its pending calls as `resumedCalls`). */
  constructor(options: UIMessageStreamOptions) {
    this.encoder = new UIMessageChunkEncoder(options);
    this.messageId = options.messageId;
  }

  /** The stream's first frame, `start`, written before the run's first event. */
  start(): string[] {
    return [frameUIMessageChunk({ type: 'start', messageId: this.messageId })];
  }

  push(event: AgentEvent): string[] {
    const chunks = this.encoder.push(event);
    // `start` went out with `start()`.
    const frames = (
      event.type === 'run-start' ? chunks.filter((c) => c.type !== 'start') : chunks
    ).map(frameUIMessageChunk);
    if (this.encoder.done && !this.doneSent) {
      this.doneSent = true;
      frames.push(UI_MESSAGE_STREAM_DONE);
    }
    return frames;
  }

  /**
   * After the run's result: nothing when its `finish` event ended the stream (it always does);
   * a run that ended without one says so rather than leave the client waiting.
   */
  finish(result: AgentResult): string[] {
    return this.failure(result.message ?? `the run stopped (${result.stopReason})`);
  }

  tail(): string[] {
    if (this.doneSent) return [];
    return [
      ...this.encoder.tail(INSTANCE_LOST_TEXT).map(frameUIMessageChunk),
      UI_MESSAGE_STREAM_DONE,
    ];
  }

  /** Ends the stream with an error saying why (the server could not go on); once. */
  failure(message: string): string[] {
    if (this.doneSent) return [];
    this.doneSent = true;
    return [...this.encoder.tail(message).map(frameUIMessageChunk), UI_MESSAGE_STREAM_DONE];
  }
}
