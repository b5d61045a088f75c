import { ModelCallError, networkErrorCode } from '../core/model-call-error.ts';

/**
 * Asks the model server whether it is there, cheaply, so the page can say at once that none
 * answers instead of after a question. Resolves when it answered (any HTTP status counts: a
 * server that refuses the request is still there); rejects when nothing answered.
 */
export type ModelServerProbe = (signal: AbortSignal) => Promise<void>;

/** What the probe found; `problem` is the server's own words, never the model server's. */
export type ModelServerCheck =
  | { readonly answers: true }
  | { readonly answers: false; readonly problem: string };

/**
 * The probe of an OpenAI-compatible server: `GET <baseURL>/models`, the lightest request every
 * such server (Ollama, vLLM, llama.cpp, LM Studio) serves. The body is not read.
 * @example openAICompatibleProbe('http://127.0.0.1:11434/v1', { apiKey: process.env.KEY })
 */
export function openAICompatibleProbe(
  baseURL: string,
  options: { readonly apiKey?: string } = {},
): ModelServerProbe {
  const url = `${baseURL.replace(/\/+$/, '')}/models`;
  const headers: Record<string, string> = options.apiKey
    ? { authorization: `Bearer ${options.apiKey}` }
    : {};
  return async (signal) => {
    const response = await fetch(url, { headers, signal, redirect: 'manual' });
    await response.body?.cancel().catch(() => {});
  };
}

/**
 * Runs `probe` for at most `timeoutMs`. Never throws: what went wrong comes back as short,
 * fixed text chosen from the error's code, so nothing a remote server wrote reaches the page.
 */
export async function checkModelServer(
  probe: ModelServerProbe,
  timeoutMs: number,
): Promise<ModelServerCheck> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    await Promise.race([
      probe(controller.signal),
      // A probe that ignores its signal still ends the check in time.
      new Promise<never>((_, reject) =>
        controller.signal.addEventListener(
          'abort',
          () => reject(new ModelCallError('model-timeout', { timeoutMs })),
          { once: true },
        ),
      ),
    ]);
    return { answers: true };
  } catch (error) {
    return {
      answers: false,
      problem: controller.signal.aborted ? `no answer within ${timeoutMs} ms` : problemOf(error),
    };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

const PROBLEMS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused (nothing listens there)',
  ECONNRESET: 'the connection was reset',
  ENOTFOUND: 'the host name was not found',
  EAI_AGAIN: 'the host name could not be looked up',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection was closed',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  ERR_INVALID_URL: 'the address is not a valid URL',
};

/** The error's code (on it or on its cause, as `fetch` reports) as fixed words. */
function problemOf(error: unknown): string {
  const code = networkErrorCode(error);
  if (code !== undefined && Object.hasOwn(PROBLEMS, code)) return PROBLEMS[code]!;
  if (error instanceof TypeError && /url/i.test(error.message)) return PROBLEMS.ERR_INVALID_URL!;
  return 'the request failed';
}
