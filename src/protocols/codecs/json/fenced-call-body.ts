import { GRAVE_ACCENT, LEFT_BRACE, LEFT_BRACKET, LESS_THAN } from '../../../scan/char-codes.ts';
import { isWhiteSpace, isWordOrHyphen } from '../../../scan/characters.ts';
import type { OpenerTrie } from '../../../scan/opener-trie.ts';
import type { CallBody, CallContext, CallOutcome } from '../../engine/call-body.ts';
import { ForwardingContext } from '../../engine/forwarding-context.ts';
import { JsonCallsBody, type JsonCallsBodyConfig } from './json-calls-body.ts';

const Phase = {
  /** The fence's language word (`json`, `xml`, `tool_call`). */
  Language: 0,
  Space: 1,
  /** A `<` after the fence: perhaps a tagged call (`<tool_call>`, `<function=…>`). */
  Tag: 2,
  /** A body reads the JSON or the tagged call. */
  Inner: 3,
  /** After a tagged call: white space, then the closing fence, which goes with the call. */
  ClosingFence: 4,
  Done: 5,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

const FENCE = '```';

/** Passes everything on, noting how the inner body settled. */
class SettleSpy extends ForwardingContext {
  outcome: CallOutcome | undefined;

  override settle(outcome: CallOutcome): void {
    this.outcome = outcome;
    super.settle(outcome);
  }
}

/**
 * A Markdown code fence that may hold a call: JSON (```` ```json {"name": …} ``` ````, read as
 * `json` says), or a tagged call that models wrap in a fence (```` ```xml <tool_call>…</tool_call>
 * ``` ````, seen from Hermes and Qwen models in llama.cpp's tests): the tagged call is read by its
 * own body, and the fence around it goes with it. Any other fence is text.
 */
export class FencedCallBody implements CallBody {
  private phase: Phase = Phase.Language;
  private inner: CallBody | undefined;
  private spy: SettleSpy | undefined;
  /** The tag read so far in `Tag`. */
  private tag = '';
  private fenceMatched = 0;
  /** What was read after a tagged call before it was clear that no fence closes it. */
  private afterCall = '';
  private ownLeftover = '';

  private readonly context: CallContext;
  private readonly json: JsonCallsBodyConfig;
  private readonly tagged: OpenerTrie<JsonCallsBodyConfig>;

  constructor(
    context: CallContext,
    json: JsonCallsBodyConfig,
    tagged: OpenerTrie<JsonCallsBodyConfig>,
  ) {
    this.context = context;
    this.json = json;
    this.tagged = tagged;
  }

  get leftover(): string {
    return this.phase === Phase.Inner ? (this.inner?.leftover ?? '') : this.ownLeftover;
  }

  write(text: string, start: number, end: number): number {
    let index = start;
    while (index < end) {
      switch (this.phase) {
        case Phase.Language:
          while (index < end && isWordOrHyphen(text.charCodeAt(index))) index++;
          if (index < end) this.phase = Phase.Space;
          break;
        case Phase.Space: {
          while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
          if (index >= end) return -1;
          const code = text.charCodeAt(index);
          if (code === LESS_THAN) this.phase = Phase.Tag;
          else if (code === LEFT_BRACE || code === LEFT_BRACKET) {
            this.inner = new JsonCallsBody(this.context, this.json);
            this.phase = Phase.Inner;
          } else return this.notACall(index);
          break;
        }
        case Phase.Tag: {
          this.tag += text[index];
          const match = this.tagged.match(this.tag, 0);
          if (match.kind === 'none') return this.notACall(index);
          index++;
          if (match.kind === 'match') {
            this.spy = new SettleSpy(this.context);
            this.inner = new JsonCallsBody(this.spy, match.opener.data);
            this.phase = Phase.Inner;
          }
          break;
        }
        case Phase.Inner: {
          const stop = this.inner!.write(text, index, end);
          if (stop === -1) return -1;
          // A tagged call that was read: the fence's closing marks go with it.
          const read = this.spy?.outcome?.kind;
          if (this.spy === undefined || read === 'not-a-call' || this.inner!.leftover) {
            this.phase = Phase.Done;
            return stop;
          }
          this.phase = Phase.ClosingFence;
          index = stop;
          break;
        }
        case Phase.ClosingFence:
          return this.scanClosingFence(text, index, end);
        case Phase.Done:
          return index;
      }
    }
    return -1;
  }

  private scanClosingFence(text: string, start: number, end: number): number {
    let index = start;
    if (this.fenceMatched === 0) {
      while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
    }
    while (index < end && this.fenceMatched < FENCE.length) {
      if (text.charCodeAt(index) !== GRAVE_ACCENT) {
        // No fence closes the call: what was read after it is text again.
        this.ownLeftover = this.afterCall + text.slice(start, index);
        this.phase = Phase.Done;
        return index;
      }
      this.fenceMatched++;
      index++;
    }
    if (this.fenceMatched === FENCE.length) {
      this.phase = Phase.Done;
      return index;
    }
    this.afterCall += text.slice(start, index);
    return -1;
  }

  private notACall(index: number): number {
    this.context.settle({ kind: 'not-a-call' });
    this.phase = Phase.Done;
    return index;
  }

  finish(interrupted: boolean): void {
    if (this.phase === Phase.Inner) this.inner!.finish(interrupted);
    else if (this.phase === Phase.ClosingFence) {
      // The call stands; the output ended before a closing fence.
    } else if (this.phase !== Phase.Done) this.context.settle({ kind: 'not-a-call' });
  }

  abandon(): void {
    this.inner?.abandon();
  }
}
