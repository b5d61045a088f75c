import type { ParseEvent } from '../../core/index.ts';
import type { CallBody, CallContext, CallOutcome } from '../engine/call-body.ts';
import { ForwardingContext } from '../engine/forwarding-context.ts';

type Held = () => void;

/**
 * The context of a block's body that holds what would run its calls or show its elements
 * (`tool-call` events, text and faults about elements) until the block is known to be whole.
 * Input streams on: `tool-input-*` runs nothing.
 */
class HoldingContext extends ForwardingContext {
  held: Held[] = [];
  calls = 0;
  /** A fault the body reported or settled: the block did not end whole. */
  faulted = false;

  override emit(event: ParseEvent): void {
    if (event.type !== 'tool-call') {
      this.real.emit(event);
      return;
    }
    this.calls++;
    this.held.push(() => this.real.emit(event));
  }

  override emitText(text: string): void {
    this.held.push(() => this.real.emitText(text));
  }

  override reportFault(fault: Parameters<CallContext['reportFault']>[0]): void {
    if (!fault.dropped) this.faulted = true;
    this.held.push(() => this.real.reportFault(fault));
  }

  override settle(outcome: CallOutcome): void {
    if (outcome.kind === 'fault') this.faulted = true;
    this.real.settle(outcome);
  }

  release(): void {
    const held = this.held;
    this.held = [];
    for (const action of held) action();
  }
}

/**
 * A block of calls that ends with its own closing markup (Mistral's `[TOOL_CALLS][…]`, whose
 * closer is the array's `]`): none of its calls runs before the block is whole. When the output
 * ends inside it (a cut array), the calls it closed do not run either: the block is reported
 * whole, with its raw text, as a cut-off call. Without the hold, an array cut after its second
 * call ran two calls the model never finished asking for.
 */
export class HeldCallsBody implements CallBody {
  private readonly holding: HoldingContext;
  private readonly inner: CallBody;
  private readonly context: CallContext;

  constructor(context: CallContext, open: (context: CallContext) => CallBody) {
    this.context = context;
    this.holding = new HoldingContext(context);
    this.inner = open(this.holding);
  }

  get leftover(): string | undefined {
    return this.inner.leftover;
  }

  write(text: string, start: number, end: number): number {
    const stop = this.inner.write(text, start, end);
    // The block read its closing markup: it is whole.
    if (stop !== -1) this.holding.release();
    return stop;
  }

  finish(interrupted: boolean): void {
    const holding = this.holding;
    holding.faulted = false;
    this.inner.finish(interrupted);
    if (holding.calls === 0 || (!interrupted && !holding.faulted)) {
      // Nothing but the block's closing markup was missing (see CallBody.finish), or no call
      // is held: as the body said.
      holding.release();
      return;
    }
    const calls = holding.calls;
    holding.held = [];
    this.context.settle({
      kind: 'fault',
      code: 'incomplete-call',
      message: `the output ended inside a block of tool calls before its closing markup; none of its ${calls === 1 ? 'call' : `${calls} calls`} ran`,
    });
  }

  abandon(): void {
    this.inner.abandon();
  }
}
