import { UNCONSTRAINED_POLICY, type ValuePolicy } from '../core/index.ts';
import {
  CARRIAGE_RETURN,
  DIGIT_NINE,
  DIGIT_ZERO,
  DOT,
  LEFT_BRACE,
  LEFT_BRACKET,
  LINE_FEED,
  LOWER_E,
  LOWER_F,
  LOWER_N,
  LOWER_T,
  MINUS,
  PLUS,
  SPACE,
  TAB,
  UPPER_E,
} from '../scan/char-codes.ts';
import { coerceText } from './coerce.ts';
import { ALL_TYPES, ARRAY, BOOLEAN, NULL, NUMBER, OBJECT, STRING } from './resolve.ts';

/**
 * How a format that reads values as text (xml, qwen3-coder, glm, minimax, seed-oss, DSML…)
 * treats the text at one place of a call: the rule of coerceText, with what a streaming reader
 * needs to know before the text is complete.
 */
export interface TextReading {
  /** The text is always the string itself (the schema admits strings only, no enum): stream it. */
  readonly asString: boolean;
  /**
   * A probe for one value (when not `asString`): give it the value's text piece by piece; it
   * answers false once the text can no longer be anything but the string, so the rest may
   * stream. Linear in the text, whatever the pieces.
   */
  probe(): TextProbe;
  /** The complete text typed by the schema (coerceText). */
  type(text: string): unknown;
}

export interface TextProbe {
  /** Adds the next piece; true while the text so far may still type as something else. */
  push(piece: string): boolean;
}

/** Readings of the policies createValuePolicy built, registered as they are built. */
const readings = new WeakMap<ValuePolicy, TextReading>();

export function registerTextReading(policy: ValuePolicy, reading: TextReading): void {
  readings.set(policy, reading);
}

const UNCONSTRAINED_READING = createTextReading(ALL_TYPES, false, false, (text) =>
  coerceText(text),
);

/**
 * The text reading of a value policy. Policies of createValuePolicy follow coerceText; for any
 * other policy the text is a string when the policy streams strings, else it is coerced.
 */
export function textReading(policy: ValuePolicy): TextReading {
  if (policy === UNCONSTRAINED_POLICY) return UNCONSTRAINED_READING;
  const reading = readings.get(policy);
  if (reading) return reading;
  const asString = policy.streams('string');
  return {
    asString,
    probe: () => new SettledProbe(!asString),
    type: asString ? (text) => text : (text) => policy.coerce(text),
  };
}

/**
 * A reading for a place whose schema admits the types in `mask`. `asString` says the text is
 * always the string; otherwise the probe watches for JSON of the admitted types besides string.
 * `holdAll`: a `const`/`enum` may rewrite the text (`"TRUE"` to `true`), or the schema was too
 * tangled to walk: nothing is settled before the text is complete.
 */
export function createTextReading(
  mask: number,
  asString: boolean,
  holdAll: boolean,
  type: (text: string) => unknown,
): TextReading {
  const probes = !asString && !holdAll && (mask & STRING) !== 0;
  return {
    asString,
    probe: () => (probes ? new JsonKindProbe(mask) : new SettledProbe(!asString)),
    type,
  };
}

/** A probe whose answer is fixed. */
class SettledProbe implements TextProbe {
  private readonly answer: boolean;
  constructor(answer: boolean) {
    this.answer = answer;
  }
  push(): boolean {
    return this.answer;
  }
}

const Phase = {
  /** White space before the value. */
  Leading: 0,
  /** Inside `null`, `true` or `false`. */
  Word: 1,
  /** Inside a number. */
  Number: 2,
  /** White space after a complete literal or number: anything more ends the chance. */
  Trailing: 3,
  /** An object or array may be written: only the complete text can say. */
  Container: 4,
  /** Only a string now. */
  Settled: 5,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/**
 * Whether a text so far may still be a JSON document of one of the non-string types of `mask`
 * (see coerceText). Conservative: `true` may turn out a string in the end; `false` never turns
 * out typed. Each character is looked at once.
 */
class JsonKindProbe implements TextProbe {
  private readonly mask: number;
  private phase: Phase = Phase.Leading;
  private word = '';
  private wordAt = 0;

  constructor(mask: number) {
    this.mask = mask;
  }

  push(piece: string): boolean {
    for (let index = 0; index < piece.length && this.phase !== Phase.Settled; index++) {
      if (this.phase === Phase.Container) return true;
      this.step(piece.charCodeAt(index));
    }
    return this.phase !== Phase.Settled;
  }

  private step(code: number): void {
    switch (this.phase) {
      case Phase.Leading:
        if (isJsonSpace(code)) return;
        this.start(code);
        return;
      case Phase.Word:
        if (isJsonSpace(code)) {
          this.phase = this.wordAt === this.word.length ? Phase.Trailing : Phase.Settled;
        } else if (this.word.charCodeAt(this.wordAt) === code) this.wordAt++;
        else this.phase = Phase.Settled;
        return;
      case Phase.Number:
        if (isJsonSpace(code)) this.phase = Phase.Trailing;
        else if (!isNumberCharacter(code)) this.phase = Phase.Settled;
        return;
      case Phase.Trailing:
        if (!isJsonSpace(code)) this.phase = Phase.Settled;
        return;
      default:
        return;
    }
  }

  private start(code: number): void {
    const mask = this.mask;
    let word = '';
    if (code === LEFT_BRACE && mask & OBJECT) this.phase = Phase.Container;
    else if (code === LEFT_BRACKET && mask & ARRAY) this.phase = Phase.Container;
    else if ((code === MINUS || (code >= DIGIT_ZERO && code <= DIGIT_NINE)) && mask & NUMBER) {
      this.phase = Phase.Number;
    } else if (code === LOWER_N && mask & NULL) word = 'null';
    else if (code === LOWER_T && mask & BOOLEAN) word = 'true';
    else if (code === LOWER_F && mask & BOOLEAN) word = 'false';
    else this.phase = Phase.Settled;
    if (word !== '') {
      this.phase = Phase.Word;
      this.word = word;
      this.wordAt = 1;
    }
  }
}

function isJsonSpace(code: number): boolean {
  return code === SPACE || code === TAB || code === LINE_FEED || code === CARRIAGE_RETURN;
}

/** Characters a JSON number is made of (the order is checked when the text is complete). */
function isNumberCharacter(code: number): boolean {
  return (
    (code >= DIGIT_ZERO && code <= DIGIT_NINE) ||
    code === MINUS ||
    code === PLUS ||
    code === DOT ||
    code === LOWER_E ||
    code === UPPER_E
  );
}
