import { LEFT_BRACE, QUOTATION_MARK } from '../../../scan/char-codes.ts';
import { isMarkupSpace } from '../../../scan/characters.ts';

/**
 * How bare JSON must begin past its opener to be a call: the opener took `[` or `{` and one
 * character of white space (`[\t`, `{\n`), and JSON lets any run of white space stand between
 * tokens, which no set of literals can list. The body checks the rest before it reads on: more
 * white space, the call object's `{` when the opener was a list's, more white space, then one of
 * `keys` as the object's first key (`"name"`). This is what an opener literal such as
 * `[{"name"` checks for one layout, so a bare value is a call exactly when it was before, in any
 * layout.
 */
export interface JsonLead {
  /** The opener took the list's `[` only: the first call object's `{` is still to come. */
  readonly objectToOpen: boolean;
  /** The keys a call object may begin with (`name`, or `tool_call_id` for Command R). */
  readonly keys: readonly string[];
}

/** What `JsonLeadReader.scan` found. */
export const LEAD_NEEDS_MORE = -1;
export const LEAD_REFUSED = -2;

const Step = { Brace: 0, Quote: 1, Key: 2, Done: 3 } as const;
type Step = (typeof Step)[keyof typeof Step];

/** Reads a `JsonLead` a character at a time, across writes. */
export class JsonLeadReader {
  private step: Step;
  /** The key's characters so far (a key is a few characters: `tool_call_id` is the longest). */
  private keyRead = '';
  private readonly keys: readonly string[];
  /** Where the lead stopped being one, when `scan` returned `LEAD_REFUSED`. */
  refusedAt = -1;

  /** The first key, once the lead is read whole. */
  get key(): string {
    return this.step === Step.Done ? this.keyRead : '';
  }

  constructor(lead: JsonLead) {
    this.step = lead.objectToOpen ? Step.Brace : Step.Quote;
    this.keys = lead.keys;
  }

  /**
   * Reads `text[start, end)`: the index just past the lead's closing quote once it is all there,
   * `LEAD_NEEDS_MORE` when the text ends inside it, `LEAD_REFUSED` at the first character that
   * cannot continue it (`refusedAt`).
   */
  scan(text: string, start: number, end: number): number {
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index);
      switch (this.step) {
        case Step.Brace:
          if (code === LEFT_BRACE) this.step = Step.Quote;
          else if (!isMarkupSpace(code)) return this.refuse(index);
          break;
        case Step.Quote:
          if (code === QUOTATION_MARK) this.step = Step.Key;
          else if (!isMarkupSpace(code)) return this.refuse(index);
          break;
        case Step.Key:
          if (code === QUOTATION_MARK) {
            if (!this.keys.includes(this.keyRead)) return this.refuse(index);
            this.step = Step.Done;
            return index + 1;
          }
          this.keyRead += text[index];
          if (!this.keys.some((key) => key.startsWith(this.keyRead))) return this.refuse(index);
          break;
        case Step.Done:
          return index;
      }
    }
    return this.step === Step.Done ? start : LEAD_NEEDS_MORE;
  }

  private refuse(index: number): number {
    this.refusedAt = index;
    return LEAD_REFUSED;
  }
}

/** The white space an opener of bare JSON ends with: one character of it, the rest is read. */
export const JSON_SPACE_CHARACTERS = [' ', '\t', '\n', '\r'] as const;
