import type { ToolDefinition } from '../../core/index.ts';
import { CallAssembler } from '../engine/call-assembler.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { XmlCallBody } from './call-body.ts';
import type { XmlToolShape } from './tool-shape.ts';
import { readWholeCall } from './whole-call.ts';

/**
 * One XML call: read in one piece when its closing tag is already in the first text it is given
 * (see readWholeCall), otherwise by the streaming body, made only then (it is the larger object).
 */
export class XmlCall implements CallBody {
  private body: XmlCallBody | undefined;
  private readonly context: CallContext;
  private readonly tool: ToolDefinition;
  private readonly shape: XmlToolShape;
  /** Opened by the tool's name alone on a line (see XmlCallBody): never read whole. */
  private readonly bare: boolean;

  constructor(context: CallContext, tool: ToolDefinition, shape: XmlToolShape, bare = false) {
    this.context = context;
    this.tool = tool;
    this.shape = shape;
    this.bare = bare;
  }

  get leftover(): string {
    return this.body?.leftover ?? '';
  }

  write(text: string, start: number, end: number): number {
    if (this.body === undefined && !this.bare) {
      const whole = readWholeCall(text, start, end, this.tool, this.shape);
      if (whole !== undefined) {
        new CallAssembler(this.context, this.tool).completeWhole(whole.json, whole.input);
        return whole.end;
      }
    }
    this.body ??= new XmlCallBody(this.context, this.tool, this.shape, this.bare);
    return this.body.write(text, start, end);
  }

  finish(interrupted: boolean): void {
    this.body ??= new XmlCallBody(this.context, this.tool, this.shape, this.bare);
    this.body.finish(interrupted);
  }

  abandon(): void {
    this.body?.abandon();
  }
}
