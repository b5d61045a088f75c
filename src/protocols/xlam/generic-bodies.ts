import {
  COLON,
  LEFT_BRACE,
  LEFT_BRACKET,
  QUOTATION_MARK,
  RIGHT_BRACE,
} from '../../scan/char-codes.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import {
  createJsonTokenizer,
  DISCARDING_HANDLER,
  type JsonTokenizer,
} from '../../scan/json-tokenizer.ts';
import { type JsonCallShape, JsonCallsBody } from '../codecs/json/json-calls-body.ts';
import { JsonLeadReader, LEAD_NEEDS_MORE, LEAD_REFUSED } from '../codecs/json/json-lead.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';

/*
 * llama.cpp's "generic" tool-call format, for models without a format of their own: the whole
 * answer is one JSON object, `{"tool_calls": [{"name": …, "arguments": …}, …]}`,
 * `{"tool_call": {"name": …, "arguments": …}}`, or `{"response": "…"}` when no tool is called.
 */

/** Reads `:` and the white space around it after a key; -1 while it needs more text. */
class KeyColon {
  private seen = false;
  /** Where something other than the colon came, when `scan` returned -2. */
  strayAt = -1;

  /** Index of the value's first character, -1 when more text is needed, -2 when not a colon. */
  scan(text: string, start: number, end: number): number {
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index);
      if (isWhiteSpace(code)) continue;
      if (!this.seen && code === COLON) {
        this.seen = true;
        continue;
      }
      if (this.seen) return index;
      this.strayAt = index;
      return -2;
    }
    return -1;
  }
}

/**
 * After `{"tool_call` (the opener): an optional `s`, the key's closing quote and the colon, then
 * the call object or the list of them, whose block ends with the wrapper's `}`. The key is the
 * format's own framing, so the calls are read as explicit ones (announced once named, a broken
 * one reported) rather than as JSON that may be data.
 */
export class GenericCallsBody implements CallBody {
  private keyRead = false;
  private readonly colon = new KeyColon();
  private inner: CallBody | undefined;

  private readonly context: CallContext;
  private readonly shape: JsonCallShape;

  constructor(context: CallContext, shape: JsonCallShape) {
    this.context = context;
    this.shape = shape;
  }

  get leftover(): string | undefined {
    return this.inner?.leftover;
  }

  /** Reads the key's end: `"` or `s"`. Returns where the colon search begins, or -1 / -2. */
  private keyCharacters = '';

  write(text: string, start: number, end: number): number {
    if (this.inner) return this.inner.write(text, start, end);
    let index = start;
    while (!this.keyRead && index < end) {
      this.keyCharacters += text[index];
      index++;
      if (this.keyCharacters === '"' || this.keyCharacters === 's"') this.keyRead = true;
      else if (this.keyCharacters !== 's') return this.notACall(index - 1);
    }
    if (!this.keyRead) return -1;
    const valueAt = this.colon.scan(text, index, end);
    if (valueAt === -1) return -1;
    if (valueAt === -2) return this.notACall(this.colon.strayAt);
    const code = text.charCodeAt(valueAt);
    if (code !== LEFT_BRACKET && code !== LEFT_BRACE) return this.notACall(valueAt);
    this.inner = new JsonCallsBody(this.context, {
      shape: this.shape,
      closer: '}',
      speculative: false,
    });
    return this.inner.write(text, valueAt, end);
  }

  private notACall(index: number): number {
    this.context.settle({ kind: 'not-a-call' });
    return index;
  }

  finish(interrupted: boolean): void {
    if (this.inner) this.inner.finish(interrupted);
    else this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {
    this.inner?.abandon();
  }
}

const Step = { Colon: 0, Value: 1, Close: 2 } as const;
type Step = (typeof Step)[keyof typeof Step];

/**
 * After `{"response"` (the opener): the answer as a JSON string. Its decoded text is the
 * answer, streamed as it comes; the wrapper around it is dropped. What follows the string
 * other than the closing `}` is read again as text.
 */
export class GenericResponseBody implements CallBody {
  private step: Step = Step.Colon;
  private readonly colon = new KeyColon();
  private tokenizer: JsonTokenizer | undefined;
  /** Characters written to the tokenizer before the current write. */
  private written = 0;
  private readonly context: CallContext;

  constructor(context: CallContext) {
    this.context = context;
  }

  write(text: string, start: number, end: number): number {
    let index = start;
    if (this.step === Step.Colon) {
      const valueAt = this.colon.scan(text, index, end);
      if (valueAt === -1) return -1;
      if (valueAt === -2 || text.charCodeAt(valueAt) !== QUOTATION_MARK) {
        this.context.settle({ kind: 'not-a-call' });
        return valueAt === -2 ? this.colon.strayAt : valueAt;
      }
      this.step = Step.Value;
      const emit = (chunk: string) => this.context.emitText(chunk);
      this.tokenizer = createJsonTokenizer(
        { ...DISCARDING_HANDLER, stringChunk: emit },
        { maxDepth: 1 },
      );
      index = valueAt;
    }
    if (this.step === Step.Value) {
      const tokenizer = this.tokenizer!;
      const stop = tokenizer.write(text, index, end);
      if (stop === -1) {
        if (tokenizer.status !== 'failed') {
          this.written += end - index;
          return -1;
        }
        // A broken string: what was decoded is the answer, the rest is text again.
        const failedAt = index + (tokenizer.failure?.offset ?? this.written) - this.written;
        this.context.settle({ kind: 'markup' });
        return Math.min(end, Math.max(index, failedAt));
      }
      this.step = Step.Close;
      index = stop;
    }
    while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
    if (index >= end) return -1;
    this.context.settle({ kind: 'markup' });
    return text.charCodeAt(index) === RIGHT_BRACE ? index + 1 : index;
  }

  finish(): void {
    if (this.step === Step.Colon) this.context.settle({ kind: 'not-a-call' });
    else this.context.settle({ kind: 'markup' });
  }

  abandon(): void {}
}

/** The keys a generic answer's object begins with. */
const GENERIC_KEYS = ['tool_call', 'tool_calls', 'response'];

/**
 * A generic answer in any layout of JSON white space: after `{` and one white-space character
 * (the opener), more white space and the answer's key, then that answer's body, as if the opener
 * had been `{"tool_call`, `{"tool_calls` or `{"response"`. Any other key, or anything else, is
 * no answer: what followed the `{` is read again (it may hold another opener).
 */
export class GenericLeadBody implements CallBody {
  private readonly lead = new JsonLeadReader({ objectToOpen: false, keys: GENERIC_KEYS });
  private inner: CallBody | undefined;
  private handedBack: string | undefined;
  private readonly context: CallContext;
  private readonly shape: JsonCallShape;

  constructor(context: CallContext, shape: JsonCallShape) {
    this.context = context;
    this.shape = shape;
  }

  get leftover(): string | undefined {
    return this.inner ? this.inner.leftover : this.handedBack;
  }

  write(text: string, start: number, end: number): number {
    if (this.inner) return this.inner.write(text, start, end);
    const read = this.lead.scan(text, start, end);
    if (read === LEAD_NEEDS_MORE) return -1;
    if (read === LEAD_REFUSED) {
      const at = this.lead.refusedAt;
      this.handedBack = this.context.callText(1, this.context.callLength - (end - at));
      this.context.settle({ kind: 'not-a-call' });
      return at;
    }
    if (this.lead.key === 'response') this.inner = new GenericResponseBody(this.context);
    else {
      const calls = new GenericCallsBody(this.context, this.shape);
      // The end of the key, which the body's own opener leaves to it.
      const keyEnd = this.lead.key === 'tool_calls' ? 's"' : '"';
      calls.write(keyEnd, 0, keyEnd.length);
      this.inner = calls;
    }
    return this.inner.write(text, read, end);
  }

  finish(interrupted: boolean): void {
    if (this.inner) this.inner.finish(interrupted);
    else this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {
    this.inner?.abandon();
  }
}
