import type { ToolwireError, ToolwireErrorKind } from '../core/errors.ts';
import { ModelCallError } from '../core/model-call-error.ts';

/** Where the model lives, to say so when it does not answer. */
export interface ModelEndpoint {
  /** The OpenAI-compatible base URL, e.g. `http://127.0.0.1:11434/v1`. */
  readonly baseURL?: string;
  /** The model's name, for the `ollama pull` hint. */
  readonly model?: string;
}

/**
 * The error payload of a `content-block-error`, as the page reads it: `type` (`model_unreachable`
 * when no model server answers, `model_error` for any other failure), `kind` (the error's
 * `ToolwireErrorKind`), `message`, and when there is more to say, `hint` (what to do about it)
 * and `detail` (the underlying error).
 */
export type ErrorPayload = {
  readonly type: 'model_unreachable' | 'model_error';
  readonly kind: ToolwireErrorKind;
  readonly message: string;
} & { readonly [key: string]: string };

/**
 * A failed run (the agent's `error` event) as the payload the page shows and the CLI prints,
 * chosen by the error's `kind`: when no server answers, it says so plainly and how to start one;
 * a model the server does not have, or a key it refuses, says which setting to check.
 */
export function describeRunError(error: ToolwireError, endpoint: ModelEndpoint): ErrorPayload {
  const where = endpoint.baseURL ?? 'the configured address';
  const model = endpoint.model ?? '<model>';
  const detail = error.message;
  const fields = ModelCallError.isInstance(error) ? error : undefined;
  switch (error.kind) {
    case 'model-unreachable':
      if (fields?.brokeOff)
        return {
          type: 'model_error',
          kind: error.kind,
          message: `The reply of the model server at ${where} broke off.`,
          detail,
        };
      return {
        type: 'model_unreachable',
        kind: error.kind,
        message: `No model server answers at ${where}.`,
        hint:
          `Start one, for example Ollama: run \`ollama serve\`, then \`ollama pull ${model}\`. ` +
          'Or point --base-url (TOOLWIRE_BASE_URL) at any OpenAI-compatible server (vLLM, llama.cpp, LM Studio), ' +
          'or run `toolwire serve --replay examples/recorded-run.sse` to see a recorded run without a model.',
        detail,
      };
    case 'model-http-status': {
      const status = fields?.status;
      const said = fields?.detail ?? detail;
      const message = `The model server at ${where} answered with an error: ${said}`;
      if (status === 404)
        return {
          type: 'model_error',
          kind: error.kind,
          message,
          hint: `Check the model name (--model, TOOLWIRE_MODEL); with Ollama, \`ollama pull ${model}\` fetches it.`,
          detail,
        };
      if (status === 401 || status === 403)
        return {
          type: 'model_error',
          kind: error.kind,
          message,
          hint: 'Check the API key the model server expects (TOOLWIRE_API_KEY).',
          detail,
        };
      return { type: 'model_error', kind: error.kind, message, detail };
    }
    case 'model-timeout':
      return {
        type: 'model_error',
        kind: error.kind,
        message: `The model server at ${where} did not answer in time.`,
        detail,
      };
    default:
      return { type: 'model_error', kind: error.kind, message: `The run failed: ${detail}` };
  }
}
