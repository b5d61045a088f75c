import type { UIMessage } from 'ai';
import { type UIMessagesRun, uiMessagesToRun } from '../agent/ui/ui-message-stream.ts';
import { HttpError } from '../http/http-error.ts';
import {
  type ConversationLimits,
  checkToolAnswers,
  parseConversationInput,
} from './conversation-input.ts';

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
/** A chat's id as `POST /api/chat` takes it; longer ones are cut in messages. */
export const MAX_CHAT_ID_CHARS = 200;

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
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_CHAT_ID_CHARS)
    throw new HttpError(
      400,
      `${where}: "id" must be the chat's id, a string of 1 to ${MAX_CHAT_ID_CHARS} characters`,
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
  checkToolAnswers(run.results, limits, `${where} (tool outputs)`);
  return {
    chatId: id,
    trigger: trigger as ChatRequest['trigger'],
    messages: messages as UIMessage[],
    run,
  };
}
