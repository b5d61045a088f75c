/**
 * Where the conversations of stored responses are kept for a later `previous_response_id`: in
 * the proxy's own memory (one process, as objects), or in a run store shared by instances (JSON
 * text, in memory or Redis), so a response stored through one instance continues on another.
 */
import { isErrorOfKind } from '../../core/errors.ts';
import { HttpError } from '../../http/http-error.ts';
import { estimateJsonCost, measureJson } from '../../http/json-shape.ts';
import type { StoredResponses } from '../../store/run-store.ts';
import type { EarlierConversation } from './request.ts';
import type { ResponseStore } from './store.ts';
import { readStoredConversation, storedConversationText } from './stored-conversation.ts';

/** A stored response's conversation, and the memory reading it took (0 when it was held already). */
export interface KeptConversation {
  readonly conversation: EarlierConversation;
  readonly bytes: number;
}

export interface KeptConversations {
  /** The conversation kept under `id`; undefined when it never was or has been forgotten. */
  get(id: string): Promise<KeptConversation | undefined>;
  /** Keeps the conversation a response ends (one too large for the bounds is not kept). */
  put(id: string, conversation: EarlierConversation): Promise<void>;
}

/** The proxy's own memory: objects as they are, nothing serialised. */
export function ownMemoryConversations(
  store: ResponseStore<EarlierConversation>,
): KeptConversations {
  return {
    get: async (id) => {
      const conversation = store.get(id);
      return conversation === undefined ? undefined : { conversation, bytes: 0 };
    },
    put: async (id, conversation) => {
      store.put(id, conversation);
    },
  };
}

export interface SharedConversationsSettings {
  /** Most bytes a stored text may have (the store's `maxStoredResponseBytes`): longer is not one it kept. */
  readonly maxTextBytes: number;
  /** Deepest nesting a stored text may have (the proxy's `maxJsonDepth`). */
  readonly maxDepth: number;
  /** Tells the operator about a stored response that cannot be read. */
  readonly log: (line: string) => void;
}

/** Longer than any id this proxy makes (`resp_` and 32 hex digits): such an id is never stored. */
const MAX_ID_LENGTH = 256;

/**
 * A run store's `responses`, shared with other instances. Its failures (Redis down, too slow)
 * become 503; a text it gives back that is not a conversation this proxy wrote becomes a 500
 * naming the response, and a line in the log.
 */
export function sharedConversations(
  responses: StoredResponses,
  settings: SharedConversationsSettings,
): KeptConversations {
  return {
    async get(id) {
      if (id.length > MAX_ID_LENGTH) return undefined;
      const text = await storeCall(() => responses.get(id));
      if (text === undefined) return undefined;
      try {
        if (text.length > settings.maxTextBytes)
          throw new HttpError(
            500,
            `the stored response '${id}' cannot be read: it is larger than the store keeps (${settings.maxTextBytes} bytes)`,
            { kind: 'store-unavailable' },
          );
        const shape = measureJson(text, {
          maxDepth: settings.maxDepth,
          maxValues: Number.MAX_SAFE_INTEGER,
        });
        if ('exceeds' in shape)
          throw new HttpError(
            500,
            `the stored response '${id}' cannot be read: it nests deeper than ${settings.maxDepth} levels`,
            { kind: 'store-unavailable' },
          );
        const conversation = readStoredConversation(id, text);
        return { conversation, bytes: estimateJsonCost(2 * text.length, shape) };
      } catch (error) {
        const failure = HttpError.isInstance(error)
          ? error
          : new HttpError(500, (error as Error).message, { cause: error });
        settings.log(failure.message);
        throw failure;
      }
    },
    async put(id, conversation) {
      await storeCall(() => responses.put(id, storedConversationText(conversation)));
    },
  };
}

/** A store call, its `store-unavailable` failure as a 503 the client can retry. */
async function storeCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isErrorOfKind(error, 'store-unavailable'))
      throw new HttpError(503, `the response store is unavailable: ${error.message}`, {
        cause: error,
      });
    throw error;
  }
}
