import type { ToolDefinition, ValidationProblem } from '../../core/index.ts';
import { RawText } from '../../scan/raw-text.ts';
import { createValidator } from '../../schema/index.ts';
import type { CallContext, CallOutcome } from './call-body.ts';

/**
 * Characters of streamed argument strings a call body keeps to have the input at hand when the
 * call closes; past this the input is parsed back from the streamed JSON, so a large argument
 * is not kept twice.
 */
export const MAX_KEPT_ARGUMENT_CHARS = 64 * 1024;

const CALL_OUTCOME: CallOutcome = { kind: 'call' };

/** One validator for the process: compiled schemas are cached per schema object. */
const sharedValidator = createValidator();

/**
 * Turns one recognised call into events: `tool-input-start` (once), `tool-input-delta`s whose
 * concatenation is exactly the final `input`, `tool-input-end`, then `tool-call` with the schema
 * problems attached. Protocol bodies feed it canonical JSON text; it never re-serialises.
 */
export class CallAssembler {
  readonly toolCallId: string;
  private started = false;
  private ended = false;
  /**
   * The streamed input so far, joined in blocks as it grows (see RawText). Made on the first
   * delta: a call read whole never streams.
   */
  private streamed: RawText | undefined;
  private extraProblems: ValidationProblem[] | undefined;

  private readonly context: CallContext;
  readonly tool: ToolDefinition;

  constructor(context: CallContext, tool: ToolDefinition) {
    this.context = context;
    this.tool = tool;
    this.toolCallId = context.options.generateId();
  }

  get hasStarted(): boolean {
    return this.started;
  }

  /** Emits `tool-input-start` if it has not been emitted yet. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.context.emit({ type: 'tool-input-start', id: this.toolCallId, toolName: this.tool.name });
  }

  /** Appends canonical JSON text to the streamed input. */
  readonly delta = (text: string): void => {
    if (text.length === 0) return;
    this.start();
    this.streamed ??= new RawText({ growsSmallText: true });
    this.streamed.append(text);
    this.context.inputDelta(this.toolCallId, text);
  };

  /** A problem the protocol found itself (e.g. a parameter given twice). */
  addProblem(problem: ValidationProblem): void {
    this.extraProblems ??= [];
    this.extraProblems.push(problem);
  }

  /** Closes the streamed input (`tool-input-end`) if it was opened. Idempotent. */
  end(): void {
    if (this.started && !this.ended) {
      this.ended = true;
      this.context.emit({ type: 'tool-input-end', id: this.toolCallId });
    }
  }

  /** The JSON text streamed so far. */
  inputText(): string {
    return this.streamed?.toString() ?? '';
  }

  /** Problems of `value` against the tool's schema (plus the protocol's own). */
  problemsFor(value: unknown): ValidationProblem[] {
    const problems = this.context.options.validate
      ? sharedValidator.validate(value, this.tool.inputSchema)
      : [];
    return this.extraProblems ? [...this.extraProblems, ...problems] : problems;
  }

  /** Emits the call. `value` is the input the streamed text describes. */
  complete(value: unknown, problems: readonly ValidationProblem[] = this.problemsFor(value)): void {
    this.start();
    this.end();
    this.emitCall(this.inputText(), problems);
  }

  /**
   * Emits a call read in one piece, with nothing streamed before: its whole input (`json`,
   * describing `value`) as one delta, then the call. The same events `delta` and `complete`
   * give, without keeping a copy of the input.
   */
  completeWhole(json: string, value: unknown): void {
    this.start();
    this.context.inputDelta(this.toolCallId, json);
    this.end();
    this.emitCall(json, this.problemsFor(value));
  }

  private emitCall(input: string, problems: readonly ValidationProblem[]): void {
    this.context.emit(
      problems.length > 0
        ? {
            type: 'tool-call',
            toolCallId: this.toolCallId,
            toolName: this.tool.name,
            input,
            problems,
          }
        : { type: 'tool-call', toolCallId: this.toolCallId, toolName: this.tool.name, input },
    );
    this.context.settle(CALL_OUTCOME);
  }

  /** The call cannot be completed: close the stream and report it with its raw text. */
  fail(code: 'malformed-call' | 'incomplete-call' | 'too-deep', message: string): void {
    this.end();
    this.context.settle({
      kind: 'fault',
      code,
      message,
      toolName: this.tool.name,
      ...(this.started ? { toolCallId: this.toolCallId } : {}),
    });
  }
}
