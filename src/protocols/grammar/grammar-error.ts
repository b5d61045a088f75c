/**
 * A grammar toolwire cannot write for a format, a tool list or a choice: a format whose calls no
 * generator covers yet, a JSON Schema keyword a grammar cannot hold exactly. The message names
 * the format (or tool) and what is missing, so a caller never gets a grammar that is wrong.
 */
import { ToolwireError } from '../../core/errors.ts';

export class GrammarUnsupportedError extends ToolwireError {
  /** The format the grammar was asked for. */
  readonly format: string;

  constructor(format: string, problem: string) {
    super('invalid-format', `no grammar for format "${format}": ${problem}`);
    this.format = format;
  }
}
