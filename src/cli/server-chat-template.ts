/**
 * The chat template a model server says it renders prompts with, for `proxy --chat-template
 * auto`. llama.cpp's server answers `GET /props` (at its root, beside `/v1`) with JSON holding
 * `chat_template`, and `chat_template_tool_use` when the model ships a separate template for
 * requests with tools (that one is preferred: it is the one that teaches the calls).
 *
 * The model server is not trusted: its answer is read through the proxy's one bounded GET
 * (`boundedGet`: a time limit over the whole answer, a size cap, redirects not followed), and
 * anything but a JSON object with a non-empty template string is "no template", with the reason,
 * never an exception.
 */

import { parseJsonText } from '../core/parse-json.ts';
import { boundedGet } from '../proxy/index.ts';

/** How long the server may take to answer, body included. */
export const DEFAULT_PROPS_TIMEOUT_MS = 5000;
/** The most of its answer read. Real templates are a few to a few hundred kilobytes. */
export const DEFAULT_PROPS_MAX_BYTES = 4 * 1024 * 1024;

export interface ServerChatTemplateOptions {
  /** The `Authorization` to send (the proxy's upstream credentials), if any. */
  readonly authorization?: string;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  /** Default: the global fetch. */
  readonly fetch?: typeof globalThis.fetch;
}

/** The template found, or why there is none; `url` is where it was asked for. */
export type ServerChatTemplate =
  | { readonly found: true; readonly url: string; readonly template: string }
  | { readonly found: false; readonly url: string; readonly reason: string };

/** Where llama.cpp serves `/props`: the model server's root, the base URL without `/v1`. */
export function propsUrl(baseURL: string): string {
  const root = baseURL.replace(/\/+$/, '');
  return `${root.endsWith('/v1') ? root.slice(0, -3) : root}/props`;
}

/** Asks the model server at `baseURL` (an OpenAI-compatible base URL) for its chat template. */
export async function serverChatTemplate(
  baseURL: string,
  options: ServerChatTemplateOptions = {},
): Promise<ServerChatTemplate> {
  const url = propsUrl(baseURL);
  const maxBytes = options.maxBytes ?? DEFAULT_PROPS_MAX_BYTES;
  const none = (reason: string): ServerChatTemplate => ({ found: false, url, reason });
  const answer = await boundedGet(url, {
    timeoutMs: options.timeoutMs ?? DEFAULT_PROPS_TIMEOUT_MS,
    maxBytes,
    ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  if (!answer.ok) return none(answer.reason);
  let props: unknown;
  try {
    props = parseJsonText(answer.text);
  } catch {
    return none('its answer is not JSON');
  }
  if (typeof props !== 'object' || props === null || Array.isArray(props))
    return none('its answer is not a JSON object');
  const { chat_template_tool_use: toolUse, chat_template: plain } = props as Record<
    string,
    unknown
  >;
  const template = nonEmpty(toolUse) ?? nonEmpty(plain);
  if (template === undefined) return none('its answer has no chat_template');
  return { found: true, url, template };
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value : undefined;
}
