import { AgUiInputError, type AgUiRunRequest, agUiInputToRun } from '../agent/ui/ag-ui.ts';
import { HttpError } from '../http/http-error.ts';
import {
  type ConversationLimits,
  checkToolAnswers,
  parseConversationInput,
} from './conversation-input.ts';

const WHERE = 'POST /api/ag-ui';
/** Ids come from the client: long enough for any UUID or name, short enough for a key. */
export const MAX_ID_CHARS = 200;

export interface AgUiRequestOptions {
  readonly limits: ConversationLimits;
  /** The server's own tools: a client tool may not take one's name. */
  readonly serverTools: readonly string[];
}

/**
 * The `RunAgentInput` an AG-UI client posts, as what a run needs. The messages are the client's,
 * so what they make is held to the limits of a run's `conversation` (entries, nesting). The
 * messages must end with a user message (a new run) or with tool messages (the answers to a
 * paused run's front-end calls). Throws a 400 `HttpError` naming the place (`param`).
 */
export function parseAgUiRequest(body: unknown, options: AgUiRequestOptions): AgUiRunRequest {
  const { limits } = options;
  let request: AgUiRunRequest;
  try {
    request = agUiInputToRun(body, {
      maxMessages: limits.maxConversationEntries,
      maxArgumentsDepth: limits.maxConversationDepth,
    });
  } catch (error) {
    if (!(error instanceof AgUiInputError)) throw error;
    throw new HttpError(400, `${WHERE}: ${error.message}`, { param: error.path, cause: error });
  }
  for (const [name, id] of [
    ['threadId', request.threadId],
    ['runId', request.runId],
  ] as const)
    if (id.length > MAX_ID_CHARS)
      throw new HttpError(400, `${WHERE}: ${name} is longer than ${MAX_ID_CHARS} characters`, {
        param: name,
      });
  parseConversationInput(request.conversation, limits, WHERE);
  checkToolAnswers(request.toolResults, limits, `${WHERE} (tool results)`);
  if (request.prompt === undefined && request.toolResults.length === 0)
    throw new HttpError(
      400,
      `${WHERE}: the messages must end with a user message (a new run) or with tool messages (the results a paused run waits for)`,
      { param: 'messages' },
    );
  if (request.prompt !== undefined && request.prompt.trim().length === 0)
    throw new HttpError(400, `${WHERE}: the last user message is empty; ask something`, {
      param: 'messages',
    });
  const taken = Object.keys(request.tools).filter((name) => options.serverTools.includes(name));
  if (taken.length > 0)
    throw new HttpError(
      400,
      `${WHERE}: the client tool${taken.length > 1 ? 's' : ''} ${taken
        .slice(0, 5)
        .map((name) => JSON.stringify(name.slice(0, 64)))
        .join(
          ', ',
        )} take${taken.length > 1 ? '' : 's'} the name of a server tool; rename ${taken.length > 1 ? 'them' : 'it'}`,
      { param: 'tools' },
    );
  return request;
}
