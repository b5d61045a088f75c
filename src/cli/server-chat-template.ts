/**
 * The chat template a model server says it renders prompts with, for `proxy --chat-template
 * auto`. llama.cpp's server answers `GET /props` (at its root, beside `/v1`) with JSON holding
 * `chat_template`, and `chat_template_tool_use` when the model ships a separate template for
 * requests with tools (that one is preferred: it is the one that teaches the calls).
 *
 * The model server is not trusted: its answer is read within a time limit and up to a size cap,
 * redirects are not followed, and anything but a JSON object with a non-empty template string is
 * "no template", with the reason, never an exception.
 */

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
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROPS_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_PROPS_MAX_BYTES;
  const none = (reason: string): ServerChatTemplate => ({ found: false, url, reason });
  const signal = AbortSignal.timeout(timeoutMs);
  let text: string;
  try {
    const response = await (options.fetch ?? globalThis.fetch)(url, {
      headers: {
        accept: 'application/json',
        ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
      },
      redirect: 'error',
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      return none(`it answered ${response.status}`);
    }
    const body = await readCapped(response, maxBytes);
    if (body === undefined) return none(`its answer is larger than ${maxBytes} bytes`);
    text = body;
  } catch (error) {
    if (signal.aborted) return none(`it did not answer within ${timeoutMs} ms`);
    return none(`the request failed: ${describeFailure(error)}`);
  }
  let props: unknown;
  try {
    props = JSON.parse(text);
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

/** The body as text, or undefined once it passes `maxBytes` (the rest is not read). */
async function readCapped(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  let bytes = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    pieces.push(decoder.decode(value, { stream: true }));
  }
  pieces.push(decoder.decode());
  return pieces.join('');
}

/** fetch's "fetch failed" says nothing: its cause (ECONNREFUSED, …) does. */
function describeFailure(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
