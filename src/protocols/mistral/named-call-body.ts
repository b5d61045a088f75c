import { COLON, DOT, LEFT_BRACE, LEFT_BRACKET } from '../../scan/char-codes.ts';
import { isWhiteSpace, isWordOrHyphen } from '../../scan/characters.ts';
import { ForeignJsonBody, opensJson } from '../codecs/json/foreign-json-body.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { argumentsBody } from './arguments-body.ts';

/** A name and call id longer than this are not a v11 call header. */
const MAX_HEADER = 256;

const ARGS_TOKEN = '[ARGS]';
const CALL_ID_TOKEN = '[CALL_ID]';

const Step = {
  /** White space after `[TOOL_CALLS]`. */
  Lead: 0,
  Name: 1,
  /** White space after the name. */
  AfterName: 2,
  /** Inside `[ARGS]` or `[CALL_ID]`. */
  Token: 3,
  CallId: 4,
  /** After `[ARGS]`: white space, then the arguments. */
  Args: 5,
} as const;
type Step = (typeof Step)[keyof typeof Step];

/** Tool names: word characters, `-`, and the `.` and `:` of namespaced (MCP) tools. */
function isNameCharacter(code: number): boolean {
  return isWordOrHyphen(code) || code === DOT || code === COLON;
}

/**
 * The hook behind Mistral's v11 form: one call whose name comes after `[TOOL_CALLS]`
 * (`[TOOL_CALLS]NAME[ARGS]{…}`, `[TOOL_CALLS]NAME[CALL_ID]a1b2c3d4e[ARGS]{…}`, and
 * `[TOOL_CALLS]NAME{…}` when the server left `[ARGS]` out of the text), where the spec's name
 * header reads one ending only. When no call follows, the token is dropped (a special token is
 * never text) and what followed it is read again as text. The JSON list of the tokenizers before
 * v11 (`[TOOL_CALLS] [{…}]`) is the spec's other form of the same token, chosen by its `[`.
 */
export class MistralNamedCallBody implements CallBody {
  private step: Step = Step.Lead;
  private name = '';
  /** The part of `[ARGS]` or `[CALL_ID]` read so far. */
  private token = '';
  private sawCallId = false;
  private headerLength = 0;
  /** The body of the JSON once it begins. */
  private inner: CallBody | undefined;
  /** Where the text after `[TOOL_CALLS]` begins, in the call's raw text. */
  private readonly afterToken: number;
  private givenBack = '';

  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
    this.afterToken = context.callLength;
  }

  get leftover(): string {
    return this.inner?.leftover ?? this.givenBack;
  }

  write(text: string, start: number, end: number): number {
    if (this.inner) return this.inner.write(text, start, end);
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index);
      if (++this.headerLength > MAX_HEADER) return this.giveUp(index, end);
      switch (this.step) {
        case Step.Lead:
          if (isWhiteSpace(code)) break;
          if (!isNameCharacter(code)) return this.giveUp(index, end);
          this.name += text[index];
          this.step = Step.Name;
          break;
        case Step.Name:
        case Step.AfterName:
          if (this.step === Step.Name && isNameCharacter(code)) this.name += text[index];
          else if (isWhiteSpace(code)) this.step = Step.AfterName;
          else if (code === LEFT_BRACE) return this.startArguments(text, index, end);
          else if (code === LEFT_BRACKET) this.beginToken();
          else return this.giveUp(index, end);
          break;
        case Step.Token: {
          this.token += text[index];
          if (ARGS_TOKEN.startsWith(this.token)) {
            if (this.token === ARGS_TOKEN) this.step = Step.Args;
          } else if (!this.sawCallId && CALL_ID_TOKEN.startsWith(this.token)) {
            if (this.token === CALL_ID_TOKEN) {
              this.sawCallId = true;
              this.step = Step.CallId;
            }
          } else return this.giveUp(index, end);
          break;
        }
        case Step.CallId:
          if (isWordOrHyphen(code)) break;
          if (code === LEFT_BRACKET) this.beginToken();
          else if (code === LEFT_BRACE) return this.startArguments(text, index, end);
          else return this.giveUp(index, end);
          break;
        case Step.Args:
          // Whatever follows `[ARGS]` is the arguments: the arguments body reports what is wrong.
          if (!isWhiteSpace(code)) return this.startArguments(text, index, end);
          break;
      }
    }
    return -1;
  }

  private beginToken(): void {
    this.token = '[';
    this.step = Step.Token;
  }

  /** The header named a tool: a call to a declared one, or text with its arguments. */
  private startArguments(text: string, index: number, end: number): number {
    const tool = this.context.options.toolsByName.get(this.name);
    if (tool === undefined) {
      if (opensJson(text.charCodeAt(index))) {
        // A call of an undeclared tool: its arguments are text too, and nothing in them is read.
        this.inner = new ForeignJsonBody(this.context);
        return this.inner.write(text, index, end);
      }
      this.context.settle({ kind: 'not-a-call' });
      return index;
    }
    this.inner = argumentsBody(this.context, tool, false);
    return this.inner.write(text, index, end);
  }

  /** No call follows: the token is dropped and the text after it is read again. */
  private giveUp(index: number, end: number): number {
    const at = this.context.callLength - (end - index);
    this.givenBack = this.context.callText(this.afterToken, at);
    this.context.settle({ kind: 'markup' });
    return index;
  }

  finish(interrupted: boolean): void {
    if (this.inner) {
      this.inner.finish(interrupted);
      return;
    }
    const tool =
      this.step === Step.Lead ? undefined : this.context.options.toolsByName.get(this.name);
    if (tool) {
      this.context.settle({
        kind: 'fault',
        code: 'incomplete-call',
        message: `the output ended after the name of a call to "${tool.name}", before its arguments; it was not run`,
        toolName: tool.name,
      });
      return;
    }
    this.context.emitText(this.context.callText(this.afterToken));
    this.context.settle({ kind: 'markup' });
  }

  abandon(): void {
    this.inner?.abandon();
  }
}
