import { ToolwireError } from '../../core/errors.ts';

/** A template's own `raise_exception(…)`: what it refuses to render, in its words. */
export class ChatTemplateRaisedError extends ToolwireError {
  readonly templateMessage: string;
  constructor(templateMessage: string) {
    super('invalid-format', `the chat template raised an exception: ${templateMessage}`);
    this.templateMessage = templateMessage;
  }
}

/** The template could not be parsed or rendered (a construct neither jinja nor this module reads). */
export class ChatTemplateRenderError extends ToolwireError {
  constructor(message: string, cause?: unknown) {
    super('invalid-format', message, { cause });
  }
}
