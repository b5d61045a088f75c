import type { ToolDefinition } from '../../core/index.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import { CallAssembler } from '../engine/call-assembler.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';

/**
 * A call to the code interpreter written as raw code, not JSON (`<|python_tag|>print(1)`,
 * Functionary v3.2's `>>>python\nprint(1)`): the code runs to one of the terminators or to the
 * end of the output, and is the tool's `code` argument. The code streams as it comes, less its
 * trailing white space and anything that may begin a terminator.
 */
export class RawCodeBody implements CallBody {
  private assembler: CallAssembler | undefined;
  /** The unstreamed end of the code: trailing white space, a possible terminator's start. */
  private held = '';
  /** A terminator that is also the opener of what follows (`>>>`) is read again. */
  leftover = '';

  private readonly context: CallContext;
  private readonly tool: ToolDefinition;
  private readonly terminators: readonly string[];
  private readonly rereadTerminator: boolean;

  constructor(
    context: CallContext,
    tool: ToolDefinition,
    terminators: readonly string[],
    rereadTerminator: boolean,
  ) {
    this.context = context;
    this.tool = tool;
    this.terminators = terminators;
    this.rereadTerminator = rereadTerminator;
  }

  write(text: string, start: number, end: number): number {
    const joined = this.held + text.slice(start, end);
    let found = -1;
    let terminator = '';
    for (const candidate of this.terminators) {
      const at = joined.indexOf(candidate);
      if (at !== -1 && (found === -1 || at < found)) {
        found = at;
        terminator = candidate;
      }
    }
    if (found !== -1) {
      this.held = '';
      this.stream(trimEnd(joined.slice(0, found)));
      if (this.rereadTerminator) this.leftover = terminator;
      this.complete();
      return end - (joined.length - found - terminator.length);
    }
    // The first line is held until it ends: `brave_search.call(…)` after the same token is a
    // Llama 3 built-in call, and `auto` tells the two apart by who commits first.
    const hold =
      this.assembler === undefined && !joined.includes('\n')
        ? joined.length
        : this.heldTail(joined);
    this.stream(joined.slice(0, joined.length - hold));
    this.held = joined.slice(joined.length - hold);
    return -1;
  }

  /** Characters at the end that may not be code: a terminator's start, white space before it. */
  private heldTail(text: string): number {
    let hold = 0;
    for (const terminator of this.terminators) {
      for (let size = Math.min(terminator.length - 1, text.length); size > hold; size--) {
        if (terminator.startsWith(text.slice(text.length - size))) {
          hold = size;
          break;
        }
      }
    }
    let index = text.length - hold;
    while (index > 0 && isWhiteSpace(text.charCodeAt(index - 1))) index--;
    // Half a surrogate pair is escaped alone by JSON.stringify: keep pairs together.
    const last = text.charCodeAt(index - 1);
    if (index > 0 && last >= 0xd800 && last <= 0xdbff) index--;
    return text.length - index;
  }

  private stream(code: string): void {
    if (code.length === 0) return;
    if (!this.assembler) {
      this.assembler = new CallAssembler(this.context, this.tool);
      this.assembler.delta('{"code":"');
    }
    this.assembler.delta(JSON.stringify(code).slice(1, -1));
  }

  private complete(): void {
    const assembler = this.assembler;
    if (!assembler) {
      // No code at all: not a call.
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    assembler.delta('"}');
    assembler.complete(JSON.parse(assembler.inputText()));
  }

  finish(interrupted: boolean): void {
    if (interrupted) {
      if (this.assembler) {
        this.assembler.fail(
          'incomplete-call',
          `the output was cut off inside the code of a call to "${this.tool.name}"; it was not run`,
        );
      } else this.context.settle({ kind: 'not-a-call' });
      return;
    }
    this.stream(trimEnd(this.held));
    this.held = '';
    this.complete();
  }

  abandon(): void {
    this.assembler?.end();
  }
}

function trimEnd(text: string): string {
  let end = text.length;
  while (end > 0 && isWhiteSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}
