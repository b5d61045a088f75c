/**
 * What a JSON text will cost once parsed, read from its bytes before `JSON.parse` runs: how many
 * values it holds and how deep it nests. A 16 MiB body of `{},` is 5.6 million objects (about
 * 600 MB parsed), and a deep one overflows the stack of whatever walks it later; both are
 * refused from this count, which is one linear pass without recursion that keeps nothing.
 */

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
 * the nesting of a JSON text, stopping at the first one past a limit. It does not check the
 * grammar: `JSON.parse` does that afterwards, on a text now known to be affordable. Escapes in
 * strings are skipped, so a quotation mark inside a string never ends it.
 */
export function measureJson(
  bytes: Uint8Array,
  limits: JsonShapeLimits,
): JsonShape | JsonShapeExcess {
  let values = 0;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  /** Inside a number or a literal (`true`, `null`, …): its next bytes are the same value. */
  let inBareValue = false;
  const length = bytes.length;
  for (let i = 0; i < length; i++) {
    const byte = bytes[i]!;
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
