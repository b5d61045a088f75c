import { HttpError } from '../http/http-error.ts';
import type { JsonShapeLimits } from '../http/json-shape.ts';
import { isProtocolChoice, type ProtocolChoice, protocolChoices } from '../protocols/index.ts';

/**
 * What a page's request body may hold once parsed, unless the server says otherwise: a run
 * request is a prompt, settings and a conversation of a few thousand entries, far below these.
 */
export const BODY_SHAPE_LIMITS: JsonShapeLimits = { maxDepth: 80, maxValues: 500_000 };

function objectBody(body: unknown, what: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(400, `${what}: the body must be a JSON object`);
  return body as Record<string, unknown>;
}

/** Refuses (400) fields other than `allowed`, naming a few (cut short: they are the client's). */
export function onlyKeys(
  object: Record<string, unknown>,
  allowed: readonly string[],
  where: string,
): void {
  const unknown = Object.keys(object).filter((key) => !allowed.includes(key));
  if (unknown.length > 0)
    throw new HttpError(
      400,
      `${where}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown
        .slice(0, 5)
        .map((key) => JSON.stringify(key.slice(0, 40)))
        .join(', ')}; expected ${allowed.join(', ')}`,
    );
}

export interface StartRunRequest {
  readonly prompt: string;
  /** A format's name or alias, `auto`, or `model` (the server's model's format). */
  readonly protocol: ProtocolChoice | undefined;
  /**
   * The conversation to continue, as the client sent it: checked by `parseConversationInput`
   * against the server's limits. Absent for a new conversation.
   */
  readonly conversation?: unknown;
  /** Play the server's recording instead of asking the model (the prompt may then be absent). */
  readonly replay?: true;
}

/** `POST /api/runs`: `{prompt, protocol?, conversation?, replay?}`. */
export function parseStartRun(body: unknown): StartRunRequest {
  const where = 'POST /api/runs';
  const object = objectBody(body, where);
  onlyKeys(object, ['prompt', 'protocol', 'conversation', 'replay'], where);
  const { prompt, protocol, conversation, replay } = object;
  if (replay !== undefined && typeof replay !== 'boolean')
    throw new HttpError(400, `${where}: "replay" must be true or false`);
  // A recording answers no question: it needs none.
  const promptless = replay === true && prompt === undefined;
  if (!promptless && typeof prompt !== 'string')
    throw new HttpError(400, `${where}: "prompt" must be a string (the question to ask)`);
  if (!promptless && (prompt as string).trim().length === 0)
    throw new HttpError(400, `${where}: "prompt" is empty; ask something`);
  if (protocol !== undefined && (typeof protocol !== 'string' || !isProtocolChoice(protocol)))
    throw new HttpError(
      400,
      `${where}: "protocol" must be one of ${protocolChoices().join(', ')} or a format's alias (got ${JSON.stringify(protocol)})`,
    );
  return {
    prompt: promptless ? '' : (prompt as string),
    protocol,
    ...(conversation === undefined ? {} : { conversation }),
    ...(replay === true ? { replay } : {}),
  };
}

export interface FrontendToolResult {
  readonly toolUseId: string;
  readonly content: unknown;
  readonly isError: boolean;
}

/** `POST /api/runs/:id/tool-results`: `{results: [{tool_use_id, content, is_error?}]}`. */
export function parseToolResults(body: unknown): FrontendToolResult[] {
  const where = 'POST /api/runs/:id/tool-results';
  const object = objectBody(body, where);
  onlyKeys(object, ['results'], where);
  const { results } = object;
  if (!Array.isArray(results) || results.length === 0)
    throw new HttpError(
      400,
      `${where}: "results" must be a non-empty array of {tool_use_id, content, is_error?}`,
    );
  return results.map((item, index) => {
    const at = `${where}: results[${index}]`;
    const result = objectBody(item, at);
    onlyKeys(result, ['tool_use_id', 'content', 'is_error'], at);
    if (typeof result.tool_use_id !== 'string' || result.tool_use_id.length === 0)
      throw new HttpError(400, `${at}.tool_use_id must be the id of a pending call (a string)`);
    if (!('content' in result))
      throw new HttpError(400, `${at}.content is missing (the tool's answer)`);
    if (result.is_error !== undefined && typeof result.is_error !== 'boolean')
      throw new HttpError(400, `${at}.is_error must be true or false`);
    return {
      toolUseId: result.tool_use_id,
      content: result.content,
      isError: result.is_error === true,
    };
  });
}
