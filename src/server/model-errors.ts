/** Where the model lives, to say so when it does not answer. */
export interface ModelEndpoint {
  /** The OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`. */
  readonly baseURL?: string;
  /** The model's name, for the `ollama pull` hint. */
  readonly model?: string;
}

/**
 * The error payload of a `content-block-error`, as the page reads it: `type`, `message`, and
 * when there is more to say, `hint` (what to do about it) and `detail` (the underlying error).
 */
export type ErrorPayload = { readonly type: string; readonly message: string } & {
  readonly [key: string]: string;
};

/** Nothing answers at the address (not an error the model server itself sent back). */
export function isUnreachableError(message: string): boolean {
  return /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|EAI_AGAIN|fetch failed|Cannot connect|ETIMEDOUT|socket hang up/i.test(
    message,
  );
}

/**
 * A failed run (the agent's `error` event, a model failure in words) as the payload the page
 * shows: when no server answers, it says so plainly and how to start one.
 */
export function describeRunError(message: string, endpoint: ModelEndpoint): ErrorPayload {
  const where = endpoint.baseURL ?? 'the configured address';
  const model = endpoint.model ?? '<model>';
  if (isUnreachableError(message)) {
    return {
      type: 'model_unreachable',
      message: `No model server answers at ${where}.`,
      hint:
        `Start one, for example Ollama: run \`ollama serve\`, then \`ollama pull ${model}\`. ` +
        'Or point --base-url (TOOLWIRE_BASE_URL) at any OpenAI-compatible server (vLLM, llama.cpp, LM Studio), ' +
        'or run `toolwire serve --replay examples/recorded-run.sse` to see a recorded run without a model.',
      detail: message,
    };
  }
  if (/\b404\b|not found/i.test(message)) {
    return {
      type: 'model_error',
      message: `The model server at ${where} answered with an error: ${message}`,
      hint: `Check the model name (--model, TOOLWIRE_MODEL); with Ollama, \`ollama pull ${model}\` fetches it.`,
      detail: message,
    };
  }
  return { type: 'model_error', message: `The run failed: ${message}` };
}
