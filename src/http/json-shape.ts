/**
 * What a JSON text will cost once parsed, read from its bytes before `JSON.parse` runs: how many
 * values it holds and how deep it nests. A 16 MiB body of `{},` is 5.6 million objects (about
 * 600 MB parsed), and a deep one overflows the stack of whatever walks it later; both are
 * refused from this count, which is one linear pass without recursion that keeps nothing.
 */
import { parseJsonText } from '../core/parse-json.ts';

const QUOTATION_MARK = 0x22;
const BACKSLASH = 0x5c;
const LEFT_BRACE = 0x7b;
const RIGHT_BRACE = 0x7d;
const LEFT_BRACKET = 0x5b;
const RIGHT_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** The limits a request body is read within unless the proxy is told others. */
export const DEFAULT_JSON_SHAPE_LIMITS: JsonShapeLimits = { maxDepth: 128, maxValues: 1_000_000 };

export interface JsonShapeLimits {
  /** Deepest nesting of arrays and objects read. */
  readonly maxDepth: number;
  /** Most values read, object keys included. */
  readonly maxValues: number;
}

/** A text within the limits: its count of values (keys included) and its deepest nesting. */
export interface JsonShape {
  readonly values: number;
  readonly depth: number;
}

/** A text past a limit: which one (the scan stops at the first value past it). */
export interface JsonShapeExcess {
  readonly exceeds: 'maxDepth' | 'maxValues';
}

/**
 * Counts the values (strings, numbers, literals, arrays and objects; keys are strings too) and
 * the nesting of a JSON text, as bytes or as a string, stopping at the first one past a limit.
 * It does not check the grammar: `JSON.parse` does that afterwards, on a text now known to be
 * affordable. Escapes in strings are skipped, so a quotation mark inside a string never ends it.
 */
export function measureJson(
  input: Uint8Array | string,
  limits: JsonShapeLimits,
): JsonShape | JsonShapeExcess {
  // Every structural character is ASCII, so UTF-16 units and UTF-8 bytes read alike.
  const text = typeof input === 'string' ? input : undefined;
  const bytes = typeof input === 'string' ? undefined : input;
  let values = 0;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  /** Inside a number or a literal (`true`, `null`, …): its next bytes are the same value. */
  let inBareValue = false;
  const length = input.length;
  for (let i = 0; i < length; i++) {
    const byte = text === undefined ? bytes![i]! : text.charCodeAt(i);
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTATION_MARK) inString = false;
      continue;
    }
    switch (byte) {
      case QUOTATION_MARK:
        inString = true;
        inBareValue = false;
        values++;
        break;
      case LEFT_BRACE:
      case LEFT_BRACKET:
        inBareValue = false;
        values++;
        depth++;
        if (depth > limits.maxDepth) return { exceeds: 'maxDepth' };
        if (depth > deepest) deepest = depth;
        break;
      case RIGHT_BRACE:
      case RIGHT_BRACKET:
        inBareValue = false;
        depth--;
        break;
      case COMMA:
      case COLON:
      case SPACE:
      case TAB:
      case LINE_FEED:
      case CARRIAGE_RETURN:
        inBareValue = false;
        break;
      default:
        if (!inBareValue) {
          inBareValue = true;
          values++;
        }
    }
    if (values > limits.maxValues) return { exceeds: 'maxValues' };
  }
  return { values, depth: deepest };
}

/** Bytes of memory a parsed value takes besides its text: V8's object, array slot, property. */
const BYTES_PER_VALUE = 80;
/**
 * Copies of its text a request is held in while answered: the bytes read, the decoded string,
 * the parsed strings, the messages rendered for the model server, and their JSON on the wire.
 */
const COPIES_OF_TEXT = 6;

/**
 * A rough upper estimate of the memory a JSON text of this size and shape takes while it is
 * parsed and answered, in bytes. Measured: 16 MiB of `{},` (5.6 million empty objects) peaks at
 * about 390 MiB of heap, 70 bytes a value.
 */
export function estimateJsonCost(bytes: number, shape: JsonShape): number {
  return COPIES_OF_TEXT * bytes + BYTES_PER_VALUE * shape.values;
}

/**
 * Parses the JSON texts a request carries inside its strings (chat completions sends a call's
 * arguments as JSON text): each is measured first, against what the request's limits leave, so
 * such a string cannot be what a body may not be. `cost` sums what they will take, for the
 * memory budget.
 */
export class JsonTextReader {
  private readonly limits: JsonShapeLimits;
  private values = 0;
  /** Estimated memory of what was parsed, in bytes. */
  cost = 0;

  constructor(limits: JsonShapeLimits) {
    this.limits = limits;
  }

  /** The value, or a problem: the text is nested too deep, holds too many values, or is not JSON. */
  parse(
    text: string,
  ):
    | { value: unknown }
    | { problem: 'maxDepth' | 'maxValues' }
    | { problem: 'syntax'; message: string } {
    const shape = measureJson(text, {
      maxDepth: this.limits.maxDepth,
      maxValues: this.limits.maxValues - this.values,
    });
    if ('exceeds' in shape) return { problem: shape.exceeds };
    let value: unknown;
    try {
      value = parseJsonText(text);
    } catch (error) {
      return { problem: 'syntax', message: (error as Error).message };
    }
    this.values += shape.values;
    this.cost += estimateJsonCost(2 * text.length, shape);
    return { value };
  }
}
