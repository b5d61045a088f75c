/**
 * `POST /v1/responses`: a reply run collected into OpenAI's `response` object or streamed as its
 * events, and the conversation it ends kept for a later `previous_response_id`.
 */
import { listedNamesLine, plainNames } from '../listed-names.ts';
import type { ReplyCollector, ReplyWriter } from '../reply-writing.ts';
import type { KeptConversations } from './kept-conversations.ts';
import type { ResponsesRequest } from './request.ts';
import {
  conversationAfter,
  newItemId,
  ResponseBuilder,
  type ResponseIdentity,
  type ResponseObject,
} from './response.ts';
import { ResponseEvents } from './stream.ts';

/** The header naming the tool types left out of the prompt (`web_search`, `mcp`, …), comma-separated. */
export const LEFT_OUT_TOOLS_HEADER = 'x-toolwire-left-out-tools';

/** Headers every Responses answer carries: which tools were left out, when any were. */
export function responsesHeaders(request: ResponsesRequest): Record<string, string> {
  const line = listedNamesLine(request.leftOutTools);
  return line === '' ? {} : { [LEFT_OUT_TOOLS_HEADER]: line };
}

/** The most tool types the log remembers having named (each is named once). */
const MAX_REMEMBERED_TYPES = 256;

/**
 * Logs each tool type left out of the prompt the first time a request sends it: Codex sends some
 * on every request, and once says it.
 */
export class LeftOutToolsLog {
  private readonly seen = new Set<string>();
  private readonly write: (line: string) => void;

  constructor(write: (line: string) => void = (line) => console.warn(line)) {
    this.write = write;
  }

  note(request: ResponsesRequest): void {
    const { listed } = plainNames(request.leftOutTools);
    const fresh = listed.filter((type) => !this.seen.has(type));
    if (fresh.length === 0 || this.seen.size >= MAX_REMEMBERED_TYPES) return;
    for (const type of fresh) this.seen.add(type);
    this.write(
      `toolwire proxy: tools of type ${fresh.join(', ')} cannot be served and are left out of the prompt`,
    );
  }
}

/** A new response's identity: its id, the model as the client named it, and now. */
export function responseIdentity(request: ResponsesRequest): ResponseIdentity {
  return {
    id: newItemId('resp'),
    model: request.chat.model,
    createdAt: Math.floor(Date.now() / 1000),
  };
}

/**
 * Writes the run as Responses stream events; once it has ended well, keeps the conversation it
 * ends in `kept` (unless the request said `store: false`) before `response.completed` is sent,
 * so a client that continues it at once, on any instance, finds it. A store that fails then ends
 * the stream with `response.failed` (the error is the store's 503).
 */
export function responseStreamWriter(
  request: ResponsesRequest,
  kept: KeptConversations,
): ReplyWriter {
  const events = new ResponseEvents({ identity: responseIdentity(request), request });
  return {
    start: () => events.start(),
    encode: (batch) => events.encode(batch),
    error: (error) => events.error(error),
    async finish(end) {
      const { response, turn } = events.ended(end);
      if (request.store) await kept.put(response.id, conversationAfter(request, turn));
      return events.completed(response);
    },
  };
}

/**
 * Collects the run into a `response` object; keeps the conversation it ends in `kept` (unless
 * the request said `store: false`) before the response is sent.
 */
export function responseCollector(
  request: ResponsesRequest,
  kept: KeptConversations,
): ReplyCollector<ResponseObject> {
  const builder = new ResponseBuilder(request);
  const identity = responseIdentity(request);
  return {
    add: (events) => builder.add(events),
    build: async (end) => {
      const response = builder.build(identity, end);
      if (request.store) await kept.put(identity.id, conversationAfter(request, builder.turn()));
      return response;
    },
  };
}
