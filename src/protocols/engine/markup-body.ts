import type { CallBody, CallContext } from './call-body.ts';

/**
 * The body of an opener that is framing markup and nothing more (a section token around calls,
 * such as Kimi-K2's `<|tool_calls_section_begin|>`): the opener consumed it all, so it ends where
 * it starts and is dropped.
 */
export class MarkupBody implements CallBody {
  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
  }

  write(_text: string, start: number): number {
    this.context.settle({ kind: 'markup' });
    return start;
  }

  finish(): void {
    this.context.settle({ kind: 'markup' });
  }

  abandon(): void {}
}
