import type { ParseEvent } from '../../core/index.ts';
import type { CallContext, CallOutcome } from './call-body.ts';

/**
 * A call context that passes everything on to the engine's: a body that wraps another (holding
 * its calls, watching how it settles) extends it and overrides only what it changes.
 */
export class ForwardingContext implements CallContext {
  protected readonly real: CallContext;

  constructor(real: CallContext) {
    this.real = real;
  }

  get options() {
    return this.real.options;
  }

  get callLength(): number {
    return this.real.callLength;
  }

  callText(start: number, end?: number): string {
    return this.real.callText(start, end);
  }

  emit(event: ParseEvent): void {
    this.real.emit(event);
  }

  inputDelta(id: string, delta: string): void {
    this.real.inputDelta(id, delta);
  }

  emitText(text: string): void {
    this.real.emitText(text);
  }

  reportFault(fault: Parameters<CallContext['reportFault']>[0]): void {
    this.real.reportFault(fault);
  }

  settle(outcome: CallOutcome): void {
    this.real.settle(outcome);
  }
}
