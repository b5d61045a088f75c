import type { AgentEvent, AgentResult } from '../../agent/index.ts';
import {
  AgUiEncoder,
  type AgUiEventOptions,
  AgUiInputError,
  type AgUiRunRequest,
  agUiInputToRun,
  frameAgUiEvent,
} from '../../agent/ui/ag-ui.ts';
import { HttpError } from '../../http/http-error.ts';
import { type ConversationLimits, parseConversationInput } from '../conversation-input.ts';

/**
 * AG-UI clients (`@ag-ui/client`'s `HttpAgent`, CopilotKit) served from toolwire's runs. This
 * file holds what `POST /api/ag-ui` stands on: the `RunAgentInput` a client posts, checked, and
 * the run written as AG-UI's SSE frames for the event log. The route itself comes with the run
 * driver that writes any wire format to the store.
 */

const WHERE = 'POST /api/ag-ui';

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
  parseConversationInput(request.conversation, limits, WHERE);
  const answers = request.toolResults.map((result) => ({
    toolCallId: result.toolCallId,
    toolName: 'answer',
    output: result.output,
  }));
  parseConversationInput(
    [{ type: 'results', results: answers }],
    limits,
    `${WHERE} (tool results)`,
  );
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

/** What a lost instance's run ends with in AG-UI: its `RUN_ERROR`. */
export const AG_UI_INSTANCE_LOST = {
  code: 'instance_lost',
  message:
    'the server instance running this run stopped answering (its lease ran out); the run is over',
} as const;

/** The frame a reader gets when the store fails mid-read: the run's `RUN_ERROR`. */
export function agUiStoreFailureFrame(message: string): string {
  return frameAgUiEvent({ type: 'RUN_ERROR', code: 'store_unavailable', message });
}

/**
 * A run as AG-UI's SSE frames, for the event log (the driver's `WireEncoder`): `RUN_STARTED` first, each agent event's AG-UI
 * events one frame each, one terminal event last. `tail` is what closes the stream as it stands
 * if this instance dies (open messages and calls end, `RUN_ERROR instance_lost`); it changes
 * nothing.
 */
export class AgUiWire {
  private readonly encoder: AgUiEncoder;

  constructor(options: AgUiEventOptions) {
    this.encoder = new AgUiEncoder(options);
  }

  start(): string[] {
    return this.encoder.begin().map(frameAgUiEvent);
  }

  push(event: AgentEvent): string[] {
    return this.encoder.push(event).map(frameAgUiEvent);
  }

  /**
   * After the run's result: nothing when its `finish` event ended the stream (it always does);
   * a run that ended without one (a bug) says so rather than leave the client waiting.
   */
  finish(result: AgentResult): string[] {
    return this.encoder
      .end({
        code: result.error?.kind ?? result.stopReason,
        message: result.message ?? `the run stopped (${result.stopReason})`,
      })
      .map(frameAgUiEvent);
  }

  /** The server cannot go on (an encoder or the run threw): the stream ends with `server_error`. */
  failure(message: string): string[] {
    return this.encoder.end({ code: 'server_error', message }).map(frameAgUiEvent);
  }

  tail(): string[] {
    return this.encoder.tail(AG_UI_INSTANCE_LOST).map(frameAgUiEvent);
  }
}
