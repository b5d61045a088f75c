import { ModelCallError } from '../../core/model-call-error.ts';
import type { MemoryReservation } from '../memory-budget.ts';
import { fieldsAt, isFields, nameAt } from '../request-fields.ts';
import { callUpstream, readReplyJson, serverRoot, type UpstreamSettings } from '../upstream.ts';

/**
 * Ollama's model endpoints (`/api/tags`, `/api/show`, `/api/version`, `/api/ps`): passed through
 * to an Ollama server at the upstream's root; a model server that is not Ollama (it answers
 * 404) gets them answered from its chat completions API (`/v1/models`) or with what the proxy
 * knows.
 */

/** How to reach the model server for one client request. */
export interface OllamaServerAccess {
  /** The proxy's upstream: its base URL is the chat completions one (`http://host:11434/v1`). */
  readonly upstream: UpstreamSettings;
  /** The client's `Authorization`, sent unless the proxy has credentials of its own. */
  readonly authorization: string | undefined;
  readonly signal: AbortSignal;
  /** The request's share of the proxy's memory: whole replies are added to it. */
  readonly memory?: MemoryReservation;
}

/**
 * The version `/api/version` answers when the model server is not Ollama: the Ollama release
 * whose API the proxy speaks (tool calls with ids, `thinking`, `tool_name`), so clients that
 * check it enable those.
 */
export const OLLAMA_API_VERSION = '0.12.0';

/** What the proxy adds to every model's capabilities: it reads tool calls from any model's text. */
const PROXY_CAPABILITIES = ['completion', 'tools'] as const;

/** The upstream at its root, where Ollama serves `/api/…`: the base URL without its `/v1`. */
export function ollamaRoot(upstream: UpstreamSettings): UpstreamSettings {
  return { ...upstream, baseURL: serverRoot(upstream.baseURL) };
}

/** Statuses that say the server has no such path: it is not Ollama. */
const NOT_SERVED = new Set([404, 405]);

/**
 * The Ollama server's JSON answer at `path`, or undefined when the server does not serve it: it
 * answers 404 or 405, or something that is not JSON (a web page some servers show at any path).
 * Any other failure is thrown, as the model server's.
 */
async function fromOllama(
  access: OllamaServerAccess,
  path: string,
  init: { readonly method: 'GET' | 'POST'; readonly body?: unknown },
): Promise<unknown> {
  const root = ollamaRoot(access.upstream);
  try {
    const call = await callUpstream(root, path, {
      ...init,
      authorization: access.authorization,
      signal: access.signal,
    });
    return await readReplyJson(call, root, access.memory, `answer to ${path}`);
  } catch (error) {
    if (
      ModelCallError.isInstance(error) &&
      (error.kind === 'model-bad-reply' ||
        (error.kind === 'model-http-status' &&
          error.status !== undefined &&
          NOT_SERVED.has(error.status)))
    )
      return undefined;
    throw error;
  }
}

/** Details Ollama gives of a model, empty: a model server that is not Ollama tells none of them. */
const NO_DETAILS = {
  parent_model: '',
  format: '',
  family: '',
  families: [],
  parameter_size: '',
  quantization_level: '',
};

/** An OpenAI model list (`{data: [{id, created}]}`) as Ollama's `/api/tags` answer. */
export function tagsFromModelList(list: unknown): { models: object[] } {
  const data = isFields(list) && Array.isArray(list.data) ? list.data : [];
  const models: object[] = [];
  for (const entry of data) {
    if (!isFields(entry) || typeof entry.id !== 'string') continue;
    const created = entry.created;
    models.push({
      name: entry.id,
      model: entry.id,
      modified_at: new Date(
        Number.isSafeInteger(created) && (created as number) > 0 ? (created as number) * 1000 : 0,
      ).toISOString(),
      size: 0,
      digest: '',
      details: NO_DETAILS,
    });
  }
  return { models };
}

/** `GET /api/tags`: the Ollama server's list, or the model server's `/v1/models` in its shape. */
export async function ollamaTags(access: OllamaServerAccess): Promise<unknown> {
  const tags = await fromOllama(access, '/api/tags', { method: 'GET' });
  if (isFields(tags) && Array.isArray(tags.models)) return tags;
  const call = await callUpstream(access.upstream, '/models', {
    method: 'GET',
    authorization: access.authorization,
    signal: access.signal,
  });
  return tagsFromModelList(await readReplyJson(call, access.upstream, access.memory, 'model list'));
}

/** A show answer's capabilities with the proxy's own added: every model gets tools through it. */
function withProxyCapabilities(show: Readonly<Record<string, unknown>>): object {
  const given = Array.isArray(show.capabilities) ? show.capabilities : [];
  const capabilities = [...given];
  for (const capability of PROXY_CAPABILITIES)
    if (!capabilities.includes(capability)) capabilities.push(capability);
  return { ...show, capabilities };
}

/**
 * `POST /api/show`: the Ollama server's answer, with `tools` among the capabilities (clients
 * check it before they send tools); from a model server that is not Ollama, an answer that
 * says only that.
 */
export async function ollamaShow(access: OllamaServerAccess, body: unknown): Promise<unknown> {
  const fields = fieldsAt(body, 'the request body');
  // `name` is the field's older name, which Ollama still reads.
  nameAt(fields.model ?? fields.name, 'model', 'a model id (a string)');
  const show = await fromOllama(access, '/api/show', { method: 'POST', body: fields });
  if (isFields(show)) return withProxyCapabilities(show);
  return {
    modelfile: '',
    parameters: '',
    template: '',
    details: NO_DETAILS,
    model_info: {},
    capabilities: [...PROXY_CAPABILITIES],
    modified_at: new Date(0).toISOString(),
  };
}

/** `GET /api/version`: the Ollama server's, or the version of the API the proxy speaks. */
export async function ollamaVersion(access: OllamaServerAccess): Promise<unknown> {
  const version = await fromOllama(access, '/api/version', { method: 'GET' });
  return isFields(version) && typeof version.version === 'string'
    ? version
    : { version: OLLAMA_API_VERSION };
}

/** `GET /api/ps`: the models the Ollama server holds in memory; none known otherwise. */
export async function ollamaRunning(access: OllamaServerAccess): Promise<unknown> {
  const running = await fromOllama(access, '/api/ps', { method: 'GET' });
  return isFields(running) && Array.isArray(running.models) ? running : { models: [] };
}
