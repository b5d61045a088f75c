import { ToolwireError } from '../../core/errors.ts';

/**
 * A response template (or legacy response schema) that toolwire cannot turn into a format. The
 * message names the field (`fields.tool_calls.open_pattern`), the construct refused in it (a
 * lookahead, `[^<]*`, a content parser) and why a streaming parser cannot follow it.
 */
export class ResponseTemplateError extends ToolwireError {
  /** Where the problem is, as a dotted path into the template (`fields.thinking.open_pattern`). */
  readonly path: string;
  /** The construct refused, as written in the template (`(?=`, `[^<]*`, `kv-lines`), if one. */
  readonly construct: string | undefined;

  constructor(path: string, problem: string, construct?: string) {
    const where = path === '' ? 'response template' : `response template ${path}`;
    super(
      'invalid-format',
      construct === undefined ? `${where}: ${problem}` : `${where}: ${construct} ${problem}`,
    );
    this.path = path;
    this.construct = construct;
  }
}
