/**
 * Which model server the proxy talks to (`--upstream-kind auto`), told from what the server
 * answers about itself: each kind has a GET at its root that only it answers with fields of its
 * own, checked field by field, so a server that answers every path with 200 and `{}`, an HTML
 * page or a generic 404 is none of them. What each probe relies on, as each server's source or
 * documentation has it:
 *
 * - llama.cpp `GET /props`: an object with `default_generation_settings` (an object) and
 *   `total_slots` (a number) or `build_info` (`"b<build>-<commit>"`, from `llama_build_info()`).
 *   Checked in tools/server/server-context.cpp (the props handler, one model) and
 *   server-models.cpp (`get_router_props`: router mode answers `default_generation_settings`
 *   and `build_info` with `role: "router"`, no `total_slots`).
 * - Ollama `GET /api/version`: `{"version": "0.12.6"}`; checked in server/routes.go
 *   (`r.GET("/api/version", … gin.H{"version": version.Version})`).
 * - SGLang `GET /server_info` (newer) and `GET /get_server_info` (its older name, kept as an
 *   alias): the server arguments spread into one object with `version` and `internal_states`
 *   (`{**asdict(server_args), **scheduler_info, "internal_states": …, "version": __version__}`),
 *   so `model_path` and `tp_size` are there too; checked in
 *   python/sglang/srt/entrypoints/http_server.py. Asked before vLLM's `/version`: a server with
 *   SGLang's answer is SGLang whatever else it serves.
 * - vLLM `GET /version`: `{"version": "0.11.0"}` (`show_version` in
 *   vllm/entrypoints/openai/api_server.py). Only a version that begins with a digit counts:
 *   other servers (LocalAI's `"v2.…"`) answer `/version` too.
 * - LM Studio (closed source; its documentation): `GET /api/v1/models` (0.4 and later:
 *   `{"models": [{"key", "type", "loaded_instances", …}]}`) or `GET /api/v0/models` (0.3.6 and
 *   later: `{"object": "list", "data": [{"id", "type", "state", …}]}`).
 *
 * All probes go at once and the answers are read in the order above, so the outcome does not
 * depend on which answers first. One more GET, of a path no server has, tells a server that
 * answers every path alike: a kind whose fields that path also shows is not that kind.
 * Each probe is a bounded GET (`bounded-get.ts`): a server that never answers, trickles or sends
 * a gigabyte costs at most the probe's time limit and byte cap. None of this throws: no kind
 * recognised is `openai` (send no grammar), with the reason in `evidence`.
 */

import { parseJsonText } from '../core/parse-json.ts';
import { type JsonShapeLimits, measureJson } from '../http/json-shape.ts';
import { type BoundedAnswer, boundedGet } from './bounded-get.ts';
import { logLine } from './log-line.ts';
import { type Fields, isFields } from './request-fields.ts';
import { serverRoot, type UpstreamSettings, upstreamTarget } from './upstream.ts';

/** The model servers the proxy knows how to constrain; `openai`: one it sends no grammar to. */
export type UpstreamKind = 'llama.cpp' | 'vllm' | 'sglang' | 'ollama' | 'lmstudio' | 'openai';

/** Every kind, for the command line's checks and help. */
export const UPSTREAM_KINDS: readonly UpstreamKind[] = [
  'llama.cpp',
  'vllm',
  'sglang',
  'ollama',
  'lmstudio',
  'openai',
];

/** The kind of model server found, and how it was told. */
export interface DetectedUpstream {
  readonly kind: UpstreamKind;
  /** The server's own version string where it says one (vLLM, Ollama, SGLang, llama.cpp build). */
  readonly version?: string;
  /** One line for logs: which probe answered what (`GET /props: build_info b6500-abc`). */
  readonly evidence: string;
  /**
   * True when no probe got any HTTP answer (nothing listens, the name does not resolve, no
   * answer in time): the kind is `openai` for now, and worth asking again later.
   */
  readonly unreachable?: boolean;
  /**
   * True when no probe got an answer that says what the server is: none at all, or only 5xx and
   * 429 (llama.cpp answers every path 503 "Loading model" while it loads). The kind is `openai`
   * for now and not to be kept: asked again at a later request. Set whenever `unreachable` is.
   */
  readonly retryable?: boolean;
}

/** A status that says the server cannot answer yet (busy, loading, failing), not what it is. */
function isPassingStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Longest a probe may take: the upstream time limit, at most this. */
const PROBE_TIMEOUT_MS = 5000;
/** Most of a probe's answer read. SGLang's server arguments, the largest, are a few kilobytes. */
const PROBE_MAX_BYTES = 256 * 1024;
/** A path no model server serves: a server answering it as it answers a probe answers anything. */
const NO_SUCH_PATH = '/toolwire-probe-no-such-path';

/** What a probe's answer says when it is the real server's: its version, and the words for logs. */
interface Recognised {
  readonly version?: string;
  readonly sign: string;
}

interface Probe {
  readonly kind: Exclude<UpstreamKind, 'openai'>;
  readonly path: string;
  /** The answer read as this kind's, or undefined when it lacks the kind's fields. */
  recognise(answer: Fields): Recognised | undefined;
}

/** In the order they are read: the first that recognises its answer decides. */
const PROBES: readonly Probe[] = [
  {
    kind: 'llama.cpp',
    path: '/props',
    recognise(answer) {
      if (!isFields(answer.default_generation_settings)) return undefined;
      const build = shownVersion(answer.build_info, false);
      if (build !== undefined) return { version: build, sign: `build_info ${build}` };
      if (typeof answer.total_slots !== 'number') return undefined;
      return { sign: 'default_generation_settings and total_slots' };
    },
  },
  { kind: 'ollama', path: '/api/version', recognise: versionField },
  { kind: 'sglang', path: '/server_info', recognise: sglangServerInfo },
  { kind: 'sglang', path: '/get_server_info', recognise: sglangServerInfo },
  { kind: 'vllm', path: '/version', recognise: versionField },
  {
    kind: 'lmstudio',
    path: '/api/v1/models',
    recognise(answer) {
      const models = answer.models;
      if (!Array.isArray(models)) return undefined;
      const lmStudioModel = (model: unknown) =>
        isFields(model) &&
        typeof model.key === 'string' &&
        typeof model.type === 'string' &&
        Array.isArray(model.loaded_instances);
      return models.every(lmStudioModel) ? { sign: `models (${models.length})` } : undefined;
    },
  },
  {
    kind: 'lmstudio',
    path: '/api/v0/models',
    recognise(answer) {
      const data = answer.data;
      if (answer.object !== 'list' || !Array.isArray(data)) return undefined;
      const lmStudioModel = (model: unknown) =>
        isFields(model) &&
        typeof model.id === 'string' &&
        typeof model.type === 'string' &&
        typeof model.state === 'string';
      return data.every(lmStudioModel) ? { sign: `data (${data.length} models)` } : undefined;
    },
  },
];

/** Ollama's and vLLM's answer: `version`, a release number. */
function versionField(answer: Fields): Recognised | undefined {
  const version = shownVersion(answer.version, true);
  return version === undefined ? undefined : { version, sign: `version ${version}` };
}

/** SGLang's server information: its version among its server arguments and internal states. */
function sglangServerInfo(answer: Fields): Recognised | undefined {
  const version = shownVersion(answer.version, true);
  if (version === undefined) return undefined;
  if (typeof answer.model_path !== 'string' || !Array.isArray(answer.internal_states))
    return undefined;
  return { version, sign: `version ${version} with server arguments` };
}

/** Longest version string kept; longer is not a version. */
const MAX_VERSION_CHARS = 64;

/**
 * A version string the server sent, if it is one that can be shown as it is: printable ASCII
 * without spaces (it goes into log lines), not too long, and, for release numbers, beginning
 * with a digit.
 */
function shownVersion(value: unknown, releaseNumber: boolean): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_VERSION_CHARS)
    return undefined;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) return undefined;
  }
  if (releaseNumber && !(value.charCodeAt(0) >= 0x30 && value.charCodeAt(0) <= 0x39))
    return undefined;
  return value;
}

/**
 * A probe's outcome: the JSON object it answered, or why there is none, in a few words
 * (`status`: the HTTP status, when any answer came).
 */
type Outcome = { readonly fields: Fields } | { readonly why: string; readonly status?: number };

/** The JSON object in an answer, parsed only once it is whole and known to be affordable. */
function outcomeOf(answer: BoundedAnswer, limits: JsonShapeLimits): Outcome {
  if (!answer.ok)
    return answer.status === undefined
      ? { why: answer.reason }
      : { why: answer.reason, status: answer.status };
  const status = answer.status;
  const shape = measureJson(answer.text, limits);
  if ('exceeds' in shape) return { why: `its answer goes past ${shape.exceeds}`, status };
  let value: unknown;
  try {
    value = parseJsonText(answer.text);
  } catch {
    return { why: 'its answer is not JSON', status };
  }
  return isFields(value) ? { fields: value } : { why: 'its answer is not a JSON object', status };
}

/**
 * Probes the server root of `settings.baseURL` (the base URL without its `/v1`, as `serverRoot`
 * has it) and says which kind of model server it is. Never throws for a server that answers
 * oddly or not at all: that is `openai`, with evidence saying why. Rejects only when `signal`
 * aborts (with its reason).
 */
export async function detectUpstreamKind(
  settings: UpstreamSettings,
  signal: AbortSignal,
): Promise<DetectedUpstream> {
  signal.throwIfAborted();
  // Credentials in the URL become its Authorization, as for the proxy's own requests: fetch
  // refuses such URLs, and its message would quote them.
  let target: { readonly baseURL: string; readonly authorization: string | undefined };
  try {
    target = upstreamTarget(settings.baseURL);
  } catch (error) {
    return { kind: 'openai', evidence: logLine(`not probed: ${(error as Error).message}`) };
  }
  const root = serverRoot(target.baseURL);
  const authorization = settings.authorization ?? target.authorization;
  const ask = async (path: string): Promise<Outcome> =>
    outcomeOf(
      await boundedGet(`${root}${path}`, {
        timeoutMs: Math.min(settings.timeoutMs, PROBE_TIMEOUT_MS),
        maxBytes: PROBE_MAX_BYTES,
        ...(authorization === undefined ? {} : { authorization }),
        ...(settings.transport === undefined ? {} : { transport: settings.transport }),
        ...(settings.fetch === undefined ? {} : { fetch: settings.fetch }),
        signal,
      }),
      settings.json,
    );
  const [control, ...outcomes] = await Promise.all([
    ask(NO_SUCH_PATH),
    ...PROBES.map((probe) => ask(probe.path)),
  ]);
  const notes: Array<{ readonly path: string; readonly why: string }> = [];
  for (const [index, probe] of PROBES.entries()) {
    const outcome = outcomes[index]!;
    if ('why' in outcome) {
      notes.push({ path: probe.path, why: outcome.why });
      continue;
    }
    const recognised = probe.recognise(outcome.fields);
    if (recognised === undefined) {
      notes.push({ path: probe.path, why: `not ${probe.kind}'s answer` });
      continue;
    }
    if ('fields' in control && probe.recognise(control.fields) !== undefined) {
      notes.push({ path: probe.path, why: `${probe.kind}'s answer, but GET ${NO_SUCH_PATH} too` });
      continue;
    }
    return {
      kind: probe.kind,
      ...(recognised.version === undefined ? {} : { version: recognised.version }),
      evidence: `GET ${probe.path}: ${recognised.sign}`,
    };
  }
  const all = [control, ...outcomes];
  const unreachable = all.every((outcome) => 'why' in outcome && outcome.status === undefined);
  // Only "not now" answers (a server still loading its model): nothing learned, ask again later.
  const retryable = all.every(
    (outcome) =>
      'why' in outcome && (outcome.status === undefined || isPassingStatus(outcome.status)),
  );
  return {
    kind: 'openai',
    evidence: logLine(`no known model server: ${summary(notes)}`),
    ...(unreachable ? { unreachable } : {}),
    ...(retryable ? { retryable } : {}),
  };
}

/** What each probe got, one reason said once when all got the same (a server that is down). */
function summary(notes: ReadonlyArray<{ readonly path: string; readonly why: string }>): string {
  const why = notes[0]?.why;
  if (notes.every((note) => note.why === why))
    return `GET ${notes.map((note) => note.path).join(', ')}: ${why}`;
  return notes.map((note) => `GET ${note.path}: ${note.why}`).join('; ');
}
