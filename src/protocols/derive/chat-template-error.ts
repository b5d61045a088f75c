import { ToolwireError } from '../../core/errors.ts';

/**
 * A chat template no format can be derived from: it renders no tool call, throws, or writes its
 * calls in a way the markers cannot describe. The message names what was missing.
 */
export class ChatTemplateError extends ToolwireError {
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super('invalid-format', message, options);
  }
}
