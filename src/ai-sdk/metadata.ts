import type { ProtocolFaultCode, ValidationProblem } from '../core/index.ts';

/**
 * The provider-metadata key under which the middleware describes a tool call it produced. The AI
 * SDK carries a call's `providerMetadata` into the next step's prompt as `providerOptions`, which
 * is how a malformed call's raw text and reason reach the history re-rendering. Providers only
 * read the key of their own name, so nothing under it is ever sent to a server.
 */
export const METADATA_KEY = 'toolwire';

/** `providerMetadata.toolwire` of a tool call. */
export type ToolCallMetadata = {
  /** Schema problems the middleware found in the input (the SDK validates the input itself). */
  problems?: { path: string; message: string; keyword: string }[];
  /** Set on a call made from markup that could not be read: what was wrong. */
  fault?: { code: ProtocolFaultCode; message: string };
  /** With `fault`: the exact text the model wrote. */
  raw?: string;
};

export function problemsMetadata(problems: readonly ValidationProblem[]): {
  [METADATA_KEY]: ToolCallMetadata;
} {
  return {
    [METADATA_KEY]: {
      problems: problems.map(({ path, message, keyword }) => ({ path, message, keyword })),
    },
  };
}

/** Reads `providerOptions.toolwire` of a prompt part, if it looks like ours. */
export function readCallMetadata(providerOptions: unknown): ToolCallMetadata | undefined {
  if (typeof providerOptions !== 'object' || providerOptions === null) return undefined;
  const entry = (providerOptions as Record<string, unknown>)[METADATA_KEY];
  if (typeof entry !== 'object' || entry === null) return undefined;
  return entry as ToolCallMetadata;
}
