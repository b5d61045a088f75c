import { RE2JS } from 're2js';
import { BoundedCache } from '../core/bounded-cache.ts';
import { ToolwireError } from '../core/errors.ts';
import {
  ASTERISK,
  BACKSLASH,
  CIRCUMFLEX_ACCENT,
  DIGIT_NINE,
  DIGIT_ZERO,
  DOLLAR,
  DOT,
  LEFT_BRACE,
  LEFT_BRACKET,
  LEFT_PARENTHESIS,
  PLUS,
  QUESTION_MARK,
  RIGHT_PARENTHESIS,
  VERTICAL_LINE,
} from '../scan/char-codes.ts';

/**
 * Patterns from schemas (`pattern`, `patternProperties`, `propertyNames`), matched in linear
 * time. A schema comes from whoever declares the tools (a proxy's client, a page) and the text
 * it is matched against comes from a model: a backtracking engine lets `^(a+)+$` and 34 `a`s
 * freeze the process. So every such pattern is checked as ECMAScript (`u` flag, as Ajv compiles
 * it), translated to RE2 syntax with ECMAScript's meaning, and run by re2js, a pure-JavaScript
 * port of RE2 (linear in the text, no backtracking). What RE2 cannot express (backreferences,
 * lookaround, inline modifiers, unknown Unicode properties, repeats above 1000) is refused with
 * an UnsupportedPatternError naming the pattern, never run another way.
 */

/** A compiled schema pattern: `test` as RegExp's (a match anywhere in the text). */
export interface SchemaPattern {
  test(text: string): boolean;
  /** The pattern and flags, `/…/u`: Ajv keys its compiled patterns by this. */
  toString(): string;
}

/**
 * A pattern that cannot be matched in linear time, or is no regular expression at all.
 * `schemaPath` is the JSON Pointer of the keyword inside the schema (`/properties/id/pattern`)
 * when the pattern was found by walking a schema (checkSchemaPatterns), '' when only the
 * pattern is known (Ajv's compile hook). `cause` is the parser's own error, when one said why.
 */
export class UnsupportedPatternError extends ToolwireError {
  declare readonly kind: 'unsupported-pattern';
  readonly pattern: string;
  readonly reason: string;
  readonly schemaPath: string;

  constructor(pattern: string, reason: string, schemaPath = '', options: { cause?: unknown } = {}) {
    const where = schemaPath === '' ? '' : ` at ${schemaPath}`;
    super(
      'unsupported-pattern',
      `the pattern ${JSON.stringify(pattern)}${where} ${reason}`,
      options,
    );
    this.pattern = pattern;
    this.reason = reason;
    this.schemaPath = schemaPath;
  }

  /** The same refusal, placed at `schemaPath`. */
  at(schemaPath: string): UnsupportedPatternError {
    return new UnsupportedPatternError(this.pattern, this.reason, schemaPath, {
      cause: this.cause,
    });
  }
}

/** Thrown inside the translation; becomes an UnsupportedPatternError with the pattern. */
class Refusal {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}

const LINEAR_ONLY = 'cannot be matched in linear time';

/** ECMAScript's `\s`: white space and line terminators (RE2's `\s` is ASCII only). */
const SPACE_RANGES: readonly (readonly [number, number])[] = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;

function hex(code: number): string {
  return `\\x{${code.toString(16)}}`;
}

function rangesText(ranges: readonly (readonly [number, number])[]): string {
  return ranges.map(([from, to]) => (from === to ? hex(from) : `${hex(from)}-${hex(to)}`)).join('');
}

function complement(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const result: [number, number][] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    if (from > next) result.push([next, from - 1]);
    next = to + 1;
  }
  if (next <= MAX_CODE_POINT) result.push([next, MAX_CODE_POINT]);
  return result;
}

const SPACE = rangesText(SPACE_RANGES);
const NOT_SPACE = rangesText(complement(SPACE_RANGES));
/** ECMAScript's `.` without the `s` flag: anything but a line terminator. */
const ANY_BUT_LINE_TERMINATOR = `[^${hex(0x0a)}${hex(0x0d)}${hex(0x2028)}${hex(0x2029)}]`;
const ANYTHING = `${hex(0)}-${hex(MAX_CODE_POINT)}`;

/** Long names of general categories, which RE2 knows only by their short names. */
const CATEGORY_NAMES: Readonly<Record<string, string>> = {
  Letter: 'L',
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Mark: 'M',
  Combining_Mark: 'M',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Number: 'N',
  Decimal_Number: 'Nd',
  digit: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Punctuation: 'P',
  punct: 'P',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Symbol: 'S',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Other: 'C',
  Control: 'Cc',
  cntrl: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
};

/** `\p{…}` as RE2 writes it (RE2 itself refuses the names it does not know). */
function property(body: string, negated: boolean, inClass: boolean): string {
  const equals = body.indexOf('=');
  let name = body;
  if (equals !== -1) {
    const key = body.slice(0, equals);
    name = body.slice(equals + 1);
    if (key !== 'General_Category' && key !== 'gc' && key !== 'Script' && key !== 'sc') {
      throw new Refusal(`uses the Unicode property \\p{${body}}, which the linear engine lacks`);
    }
  }
  if (name === 'ASCII') {
    const range = `${hex(0)}-${hex(0x7f)}`;
    if (inClass && negated) return `${hex(0x80)}-${hex(MAX_CODE_POINT)}`;
    return inClass ? range : `[${negated ? '^' : ''}${range}]`;
  }
  name = CATEGORY_NAMES[name] ?? name;
  return `\\${negated ? 'P' : 'p'}{${name}}`;
}

/**
 * The largest pattern accepted, counted with its repeats written out. The engine is linear in
 * the text, but its work per character grows with the pattern: at 20 000 (`(?:a|b|c|d){1000}`
 * twenty times) 50 000 characters took 20 s; at 5 000, a million take well under a second.
 */
const MAX_PATTERN_SIZE = 5000;
/** The same bound on the compiled program (RE2 counts about two steps per counted repeat). */
const MAX_PROGRAM_SIZE = 4 * MAX_PATTERN_SIZE;

/** Where the quantifier `{n}`, `{n,}` or `{n,m}` at `start` ends, or -1 when there is none. */
function quantifierEnd(source: string, start: number): number {
  let index = start + 1;
  const digitsFrom = index;
  while (isDigit(source.charCodeAt(index))) index++;
  if (index === digitsFrom) return -1;
  if (source[index] === ',') {
    index++;
    while (isDigit(source.charCodeAt(index))) index++;
  }
  return source[index] === '}' ? index + 1 : -1;
}

function isDigit(code: number): boolean {
  return code >= DIGIT_ZERO && code <= DIGIT_NINE;
}

/**
 * Translates an ECMAScript pattern (already known to be valid) to RE2 syntax with the same
 * meaning. Literal characters are written as `\x{…}` so no character means more in RE2 than it
 * did in ECMAScript.
 */
class Translation {
  private index = 0;
  private output = '';
  private readonly source: string;

  constructor(source: string) {
    this.source = source;
  }

  run(): string {
    const source = this.source;
    while (this.index < source.length) {
      const code = source.charCodeAt(this.index);
      switch (code) {
        case BACKSLASH:
          this.output += this.escape(false);
          this.atom(1);
          break;
        case LEFT_BRACKET:
          this.output += this.characterClass();
          this.atom(1);
          break;
        case LEFT_PARENTHESIS:
          this.output += this.group();
          this.weights.push(0);
          break;
        case RIGHT_PARENTHESIS:
          this.output += ')';
          this.index++;
          this.atom(this.weights.pop() ?? 0);
          break;
        case DOT:
          this.index++;
          this.output += ANY_BUT_LINE_TERMINATOR;
          this.atom(1);
          break;
        case LEFT_BRACE: {
          // A quantifier when it reads as one; otherwise (outside the `u` flag) a literal brace.
          const end = quantifierEnd(source, this.index);
          if (end === -1) {
            this.output += this.literal();
            this.atom(1);
            break;
          }
          const bounds = source.slice(this.index + 1, end - 1).split(',');
          const most = bounds.length === 1 ? Number(bounds[0]) : Number(bounds[1] || bounds[0]) + 1;
          this.repeat(most);
          this.output += source.slice(this.index, end);
          this.index = end;
          break;
        }
        case VERTICAL_LINE:
        case ASTERISK:
        case PLUS:
        case QUESTION_MARK:
        case CIRCUMFLEX_ACCENT:
        case DOLLAR:
          this.output += source[this.index];
          this.index++;
          break;
        default:
          this.output += this.literal();
          this.atom(1);
      }
    }
    const size = this.weights[0]!;
    if (size > MAX_PATTERN_SIZE) {
      throw new Refusal(
        `expands to about ${size} steps for each character matched (repeats multiply); at most ${MAX_PATTERN_SIZE} are allowed`,
      );
    }
    return this.output;
  }

  /**
   * The size of the pattern with its counted repeats written out (`(ab){3}` is 6), which the
   * engine's work per character grows with: the weight of the sequence open at each group
   * level, and that of the last atom or group (what a quantifier repeats).
   */
  private readonly weights: number[] = [0];
  private last = 0;

  private atom(weight: number): void {
    this.last = weight;
    this.weights[this.weights.length - 1]! += weight;
  }

  private repeat(most: number): void {
    const extra = this.last * Math.max(most - 1, 0);
    this.weights[this.weights.length - 1]! += extra;
    this.last += extra;
  }

  private literal(): string {
    const code = this.source.codePointAt(this.index)!;
    this.index += code > 0xffff ? 2 : 1;
    return hex(code);
  }

  private group(): string {
    const source = this.source;
    this.index++;
    if (source[this.index] !== '?') return '(';
    const next = source[this.index + 1];
    if (next === ':') {
      this.index += 2;
      return '(?:';
    }
    if (next === '=' || next === '!') throw new Refusal(`uses a lookahead, which ${LINEAR_ONLY}`);
    if (next === '<') {
      const after = source[this.index + 2];
      if (after === '=' || after === '!') {
        throw new Refusal(`uses a lookbehind, which ${LINEAR_ONLY}`);
      }
      // A named group: its name matters only to backreferences, which are refused.
      const close = source.indexOf('>', this.index);
      this.index = close + 1;
      return '(';
    }
    throw new Refusal(`uses inline modifiers "(?${next ?? ''}", which the linear engine lacks`);
  }

  /** An escape at `index` (the backslash): its RE2 form, a class body when `inClass`. */
  private escape(inClass: boolean): string {
    const source = this.source;
    const letter = source[this.index + 1] ?? '';
    this.index += 2;
    switch (letter) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return `\\${letter}`;
      case 'b':
      case 'B':
        // In a class `\b` is a backspace; outside, the ASCII word boundary RE2 shares.
        return inClass ? hex(0x08) : `\\${letter}`;
      case 's':
        return inClass ? SPACE : `[${SPACE}]`;
      case 'S':
        return inClass ? NOT_SPACE : `[${NOT_SPACE}]`;
      case 't':
        return hex(0x09);
      case 'n':
        return hex(0x0a);
      case 'v':
        return hex(0x0b);
      case 'f':
        return hex(0x0c);
      case 'r':
        return hex(0x0d);
      case '0':
        if (!/[0-9]/.test(source[this.index] ?? '')) return hex(0);
        throw new Refusal(`uses a backreference, which ${LINEAR_ONLY}`);
      case 'c': {
        const control = source.charCodeAt(this.index);
        if (/[A-Za-z]/.test(source[this.index] ?? '')) {
          this.index++;
          return hex(control % 32);
        }
        // Outside the `u` flag a `\c` not followed by a letter is a backslash and a `c`.
        return hex(0x5c) + hex(0x63);
      }
      case 'x': {
        const digits = source.slice(this.index, this.index + 2);
        if (/^[0-9A-Fa-f]{2}$/.test(digits)) {
          this.index += 2;
          return hex(Number.parseInt(digits, 16));
        }
        return hex(0x78);
      }
      case 'u':
        return hex(this.unicodeEscape());
      case 'p':
      case 'P': {
        const close = source.indexOf('}', this.index);
        if (source[this.index] !== '{' || close === -1) return hex(letter.charCodeAt(0));
        const body = source.slice(this.index + 1, close);
        this.index = close + 1;
        return property(body, letter === 'P', inClass);
      }
      case 'k':
        throw new Refusal(`uses a backreference, which ${LINEAR_ONLY}`);
      default:
        if (/[1-9]/.test(letter)) {
          throw new Refusal(`uses a backreference (\\${letter}), which ${LINEAR_ONLY}`);
        }
        // An identity escape (`\.`, `\/`, `\-`): the character itself.
        this.index--;
        return this.literal();
    }
  }

  /** `\u{…}`, `\uXXXX`, or a surrogate pair of them; `index` is past the `u`. */
  private unicodeEscape(): number {
    const source = this.source;
    if (source[this.index] === '{') {
      const close = source.indexOf('}', this.index);
      const code = Number.parseInt(source.slice(this.index + 1, close), 16);
      this.index = close + 1;
      return code;
    }
    const digits = source.slice(this.index, this.index + 4);
    if (!/^[0-9A-Fa-f]{4}$/.test(digits)) return 0x75; // outside `u`: a plain `u`
    this.index += 4;
    const code = Number.parseInt(digits, 16);
    if (code >= 0xd800 && code <= 0xdbff && source.startsWith('\\u', this.index)) {
      const low = source.slice(this.index + 2, this.index + 6);
      const lowCode = /^[0-9A-Fa-f]{4}$/.test(low) ? Number.parseInt(low, 16) : 0;
      if (lowCode >= 0xdc00 && lowCode <= 0xdfff) {
        this.index += 6;
        return 0x10000 + ((code - 0xd800) << 10) + (lowCode - 0xdc00);
      }
    }
    return code;
  }

  /** `[…]` at `index`. */
  private characterClass(): string {
    const source = this.source;
    this.index++;
    let negated = false;
    if (source[this.index] === '^') {
      negated = true;
      this.index++;
    }
    let body = '';
    let empty = true;
    while (this.index < source.length && source[this.index] !== ']') {
      const atom = this.classAtom();
      empty = false;
      if (
        atom.single &&
        source[this.index] === '-' &&
        this.index + 1 < source.length &&
        source[this.index + 1] !== ']'
      ) {
        this.index++;
        const end = this.classAtom();
        // (Ranges to or from a class escape are syntax errors, refused before translating.)
        body += `${atom.text}-${end.text}`;
      } else body += atom.text;
    }
    this.index++;
    // `[]` matches nothing and `[^]` anything; RE2 has no such classes.
    if (empty) return negated ? `[${ANYTHING}]` : `[^${ANYTHING}]`;
    return `[${negated ? '^' : ''}${body}]`;
  }

  private classAtom(): { text: string; single: boolean } {
    const source = this.source;
    if (source[this.index] === '\\') {
      const letter = source[this.index + 1] ?? '';
      const single = !/[dDwWsSpP]/.test(letter);
      return { text: this.escape(true), single };
    }
    return { text: this.literal(), single: true };
  }
}

/** Compiled patterns (and refusals), by flags and pattern; bounded, since schemas come from outside. */
const MAX_COMPILED = 1024;
const compiled = new BoundedCache<string, SchemaPattern | UnsupportedPatternError>(MAX_COMPILED);

/** How many patterns were compiled for the linear engine (tests count it). */
export const patternStatistics = { compiled: 0 };

/**
 * A schema pattern compiled for linear-time matching, with ECMAScript's meaning under `flags`
 * (`u` as Ajv passes it; `i` is honoured too). Throws UnsupportedPatternError for a pattern that
 * is invalid or that the linear engine cannot express.
 */
export function compileSchemaPattern(pattern: string, flags = 'u'): SchemaPattern {
  const key = `${flags}/${pattern}`;
  const found = compiled.getOrCreate(key, () => compileUncached(pattern, flags));
  if (found instanceof UnsupportedPatternError) throw found;
  return found;
}

/** compileSchemaPattern, or undefined for a pattern it refuses. */
export function trySchemaPattern(pattern: string, flags = 'u'): SchemaPattern | undefined {
  try {
    return compileSchemaPattern(pattern, flags);
  } catch {
    return undefined;
  }
}

function compileUncached(pattern: string, flags: string): SchemaPattern | UnsupportedPatternError {
  try {
    // Only parsed, never run: this checks ECMAScript syntax, which the translation relies on.
    new RegExp(pattern, flags.includes('u') ? 'u' : '');
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return new UnsupportedPatternError(
      pattern,
      `is not a valid regular expression (${detail})`,
      '',
      {
        cause: error,
      },
    );
  }
  let translated: string;
  try {
    translated = new Translation(pattern).run();
  } catch (error) {
    if (error instanceof Refusal) return new UnsupportedPatternError(pattern, error.reason);
    throw error;
  }
  let engine: RE2JS;
  try {
    engine = RE2JS.compile(translated, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return new UnsupportedPatternError(
      pattern,
      `is beyond the linear-time engine (${detail})`,
      '',
      {
        cause: error,
      },
    );
  }
  if (engine.programSize() > MAX_PROGRAM_SIZE) {
    return new UnsupportedPatternError(
      pattern,
      `compiles to ${engine.programSize()} steps for each character matched; at most ${MAX_PROGRAM_SIZE} are allowed`,
    );
  }
  patternStatistics.compiled++;
  const text = `/${pattern}/${flags}`;
  return { test: (input) => engine.test(input), toString: () => text };
}
