import { ToolwireError, type ToolwireErrorOptions } from '../core/errors.ts';

/** Bad command-line usage: the CLI prints the message and exits with status 2. */
export class UsageError extends ToolwireError {
  constructor(message: string, options?: ToolwireErrorOptions) {
    super('usage', message, options);
  }
}
