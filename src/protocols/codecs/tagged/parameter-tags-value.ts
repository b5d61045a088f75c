import {
  setOwnProperty,
  type ToolDefinition,
  UNCONSTRAINED_POLICY,
  type ValuePolicy,
} from '../../../core/index.ts';
import { parseJsonText } from '../../../core/parse-json.ts';
import {
  CARRIAGE_RETURN,
  DIGIT_NINE,
  DIGIT_ZERO,
  DOT,
  LEFT_BRACE,
  LEFT_BRACKET,
  LINE_FEED,
  LOWER_E,
  MINUS,
  PLUS,
  RIGHT_BRACE,
  RIGHT_BRACKET,
  SPACE,
  TAB,
  UPPER_E,
} from '../../../scan/char-codes.ts';
import { readLenientJson } from '../../../scan/lenient-json.ts';
import { createValuePolicy, textReading } from '../../../schema/index.ts';
import type { ValueTextSink } from '../../xml/value-text.ts';

/**
 * The layout white space of a parameter value, removed as the value streams (the rule is
 * `ParameterTagsSyntax.layout`). Only white space at the value's two ends is ever held back, and,
 * for a `block` value whose first line is indented, that first line (until it is known whether
 * the value has more lines). A class with `reset` so a body reuses one for all its values.
 */
export class ValueLayout implements ValueTextSink {
  private readonly emit: (text: string) => void;
  private readonly block: boolean;
  /** `exact` layout: nothing is layout but a line break before a tag that ends an unclosed value. */
  private readonly exact: boolean;
  /** What the value began with, until its leading line break is decided ('' once decided). */
  private start = '';
  private started = false;
  /** The leading line break dropped: `\n`, `\r\n`, or ''. */
  private leadingBreak = '';
  /** Block layout: still on the value's first line of content. */
  private firstLine = true;
  /** Block layout: indentation before the first line's content, and that content, held. */
  private indentation = '';
  private heldLine = '';
  /** White space after the last content character. */
  private tail = '';
  private sawContent = false;

  constructor(layout: ValueLayoutKind, emit: (text: string) => void) {
    this.block = layout === 'block';
    this.exact = layout === 'exact';
    this.emit = emit;
  }

  reset(): void {
    this.start = '';
    this.started = false;
    this.leadingBreak = '';
    this.firstLine = true;
    this.indentation = '';
    this.heldLine = '';
    this.tail = '';
    this.sawContent = false;
  }

  literal(text: string): void {
    if (text.length === 0) return;
    // Exact values have no leading layout: the first character is the value's.
    if (!this.started && this.exact) this.started = true;
    if (!this.started) {
      text = this.decideStart(text);
      if (text.length === 0) return;
    }
    const last = lastNonSpace(text);
    if (last === -1) {
      if (!this.sawContent && this.block) this.indentation += text;
      else this.tail += text;
      return;
    }
    let first = 0;
    if (!this.sawContent && this.block) {
      while (first < text.length && isSpace(text.charCodeAt(first))) first++;
      this.indentation += text.slice(0, first);
    }
    this.addContent(text.slice(first, last + 1));
    this.tail = text.slice(last + 1);
  }

  /** Text that is content whatever it holds (a decoded reference). */
  content(text: string): void {
    if (text.length === 0) return;
    if (!this.started && this.exact) this.started = true;
    if (!this.started) this.literal(this.decideStart('', true));
    this.addContent(text);
  }

  /** Reads the leading line break; returns the rest of `text`, or '' while it is undecided. */
  private decideStart(text: string, force = false): string {
    const seen = this.start + text;
    if (seen === '\r' && !force) {
      this.start = seen;
      return '';
    }
    this.started = true;
    this.start = '';
    if (seen.startsWith('\r\n')) this.leadingBreak = '\r\n';
    else if (seen.startsWith('\n')) this.leadingBreak = '\n';
    return seen.slice(this.leadingBreak.length);
  }

  private addContent(segment: string): void {
    const pending = this.tail;
    this.tail = '';
    if (!this.block) {
      this.sawContent = true;
      this.emit(pending + segment);
      return;
    }
    if (!this.sawContent) {
      // Block indentation before the first content: white space read so far is indentation,
      // line breaks included.
      this.sawContent = true;
      const lastBreak = this.indentation.lastIndexOf('\n');
      if (lastBreak !== -1) this.firstLine = false;
      if (this.indentation === '' || !this.firstLine || segment.includes('\n')) {
        this.flushLine(this.indentation + segment);
        return;
      }
      this.heldLine = segment;
      return;
    }
    if (this.firstLine) {
      if (pending.includes('\n') || segment.includes('\n')) {
        this.flushLine(this.indentation + this.heldLine + pending + segment);
        return;
      }
      if (this.heldLine !== '' || this.indentation !== '') {
        this.heldLine += pending + segment;
        return;
      }
    }
    this.emit(pending + segment);
  }

  private flushLine(text: string): void {
    if (text.includes('\n')) this.firstLine = false;
    this.indentation = '';
    this.heldLine = '';
    this.emit(text);
  }

  /**
   * The value ended: `ownCloser` tells whether by its own closing tag (`</arg_value>`) or by a tag
   * that ends it because its closer is missing (the next parameter, the call's closer).
   */
  end(ownCloser = true): void {
    if (this.exact) {
      this.endExact(ownCloser);
      return;
    }
    if (!this.started) this.literal(this.decideStart('', true));
    let tail = this.tail;
    let trailingBreak = false;
    let closingIndented = false;
    if (!this.sawContent && this.block) {
      // Nothing but white space: it was read as indentation.
      tail = this.indentation;
      this.indentation = '';
    }
    const lastBreak = tail.lastIndexOf('\n');
    if (lastBreak !== -1 && isIndentation(tail, lastBreak + 1)) {
      trailingBreak = true;
      closingIndented = lastBreak + 1 < tail.length;
      let cut = lastBreak;
      if (this.leadingBreak === '\r\n' && cut > 0 && tail.charCodeAt(cut - 1) === CARRIAGE_RETURN)
        cut--;
      tail = tail.slice(0, cut);
    }
    const exactLayout = this.leadingBreak !== '' && trailingBreak && !closingIndented;
    if (this.block && this.firstLine && !tail.includes('\n') && !exactLayout) {
      // One line, not in the exact layout: the white space around it is layout too.
      if (this.heldLine !== '') this.emit(this.heldLine);
    } else {
      const text = this.indentation + this.heldLine + tail;
      if (text !== '') this.emit(text);
    }
    this.reset();
  }

  /**
   * An exact value is all of its text; only when its closer is missing is the line break before
   * the tag that ended it (with that line's indentation) layout, as that tag starts its own line.
   */
  private endExact(ownCloser: boolean): void {
    let tail = this.tail;
    if (!ownCloser) {
      const lastBreak = tail.lastIndexOf('\n');
      if (lastBreak !== -1 && isIndentation(tail, lastBreak + 1)) {
        const cut =
          lastBreak > 0 && tail.charCodeAt(lastBreak - 1) === CARRIAGE_RETURN
            ? lastBreak - 1
            : lastBreak;
        tail = tail.slice(0, cut);
      }
    }
    if (tail !== '') this.emit(tail);
    this.reset();
  }
}

/**
 * How white space at a value's ends is read (`ParameterTagsSyntax.layout`): `block` and
 * `inline` drop layout line breaks, `exact` keeps every character between the tags.
 */
export type ValueLayoutKind = 'block' | 'inline' | 'exact';

/**
 * The value `raw` (all of its text between its tags) comes to after layout: what `ValueLayout`
 * gives when it is written the whole text at once, computed in one pass for a value read whole.
 */
export function layoutValueText(raw: string, layout: ValueLayoutKind): string {
  if (layout === 'exact') return raw;
  const leadingBreak = raw.startsWith('\r\n') ? 2 : raw.charCodeAt(0) === LINE_FEED ? 1 : 0;
  const length = raw.length;
  // raw[leadingBreak, first) is indentation, raw[first, last) content, raw[last, length) the tail.
  let last = length;
  while (last > leadingBreak && isSpace(raw.charCodeAt(last - 1))) last--;
  let first = leadingBreak;
  if (last > leadingBreak) {
    while (isSpace(raw.charCodeAt(first))) first++;
  } else first = last;
  // The closing tag's own line break (and that line's indentation) is layout.
  let tailEnd = length;
  let trailingBreak = false;
  let closingIndented = false;
  const lastBreak = raw.lastIndexOf('\n');
  if (lastBreak >= last && isIndentation(raw, lastBreak + 1)) {
    trailingBreak = true;
    closingIndented = lastBreak + 1 < length;
    tailEnd = lastBreak;
    if (leadingBreak === 2 && tailEnd > last && raw.charCodeAt(tailEnd - 1) === CARRIAGE_RETURN)
      tailEnd--;
  }
  if (layout === 'block') {
    const exactLayout = leadingBreak !== 0 && trailingBreak && !closingIndented;
    const lineBreakAt = raw.indexOf('\n', leadingBreak);
    // One line, not in the exact layout: the white space around it is layout too.
    if (!exactLayout && (lineBreakAt === -1 || lineBreakAt >= tailEnd)) {
      return raw.slice(first, last);
    }
  }
  return leadingBreak === 0 && tailEnd === length ? raw : raw.slice(leadingBreak, tailEnd);
}

function isSpace(code: number): boolean {
  return code === SPACE || code === TAB || code === LINE_FEED || code === CARRIAGE_RETURN;
}

function lastNonSpace(text: string): number {
  for (let index = text.length - 1; index >= 0; index--) {
    if (!isSpace(text.charCodeAt(index))) return index;
  }
  return -1;
}

/** Whether `text[from…]` is only spaces and tabs. */
function isIndentation(text: string, from: number): boolean {
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code !== SPACE && code !== TAB) return false;
  }
  return true;
}

/**
 * How a value is typed:
 * - `raw`: a string, streamed as it arrives (the schema wants a string here);
 * - `held`: kept whole and coerced by the schema when it closes (numbers, objects, enums…);
 * - `probe`: nothing types it (an open schema): JSON-looking text (`42`, `true`, `null`, `{…}`,
 *   `[…]`) is that JSON value, anything else a string, streamed as soon as it cannot be JSON;
 * - `json`: DSML's `string="false"`: a JSON value, coerced by the schema;
 * - `discard`: a repeated parameter, read and dropped.
 */
export type ValueKind = 'raw' | 'held' | 'probe' | 'json' | 'discard';

/** What a `probe` value's text so far may still be. */
export const ProbeVerdict = {
  /** It may still be a JSON scalar or container: keep holding. */
  Maybe: 0,
  /** It cannot be JSON: stream it as a string. */
  Text: 1,
} as const;
export type ProbeVerdict = (typeof ProbeVerdict)[keyof typeof ProbeVerdict];

const LITERALS = ['true', 'false', 'null'];

/** Whether `text` (a probe value so far, layout removed) may still turn out to be JSON. */
export function probeVerdict(text: string): ProbeVerdict {
  let first = 0;
  while (first < text.length && isSpace(text.charCodeAt(first))) first++;
  if (first === text.length) return ProbeVerdict.Maybe;
  const code = text.charCodeAt(first);
  if (code === LEFT_BRACE || code === LEFT_BRACKET) return ProbeVerdict.Maybe;
  if (code === MINUS || (code >= DIGIT_ZERO && code <= DIGIT_NINE)) {
    for (let index = first; index < text.length; index++) {
      if (!isNumberCharacter(text.charCodeAt(index))) {
        return lastNonSpace(text) < index ? ProbeVerdict.Maybe : ProbeVerdict.Text;
      }
    }
    return ProbeVerdict.Maybe;
  }
  const word = text.slice(first).trimEnd();
  if (word.length <= 5 && LITERALS.some((literal) => literal.startsWith(word))) {
    return lastNonSpace(text) - first + 1 === word.length ? ProbeVerdict.Maybe : ProbeVerdict.Text;
  }
  return ProbeVerdict.Text;
}

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

const NOT_JSON: unique symbol = Symbol('not JSON');

/**
 * The JSON value `text` is (a scalar, or a container written whole and repaired if it is a bit
 * loose), or NOT_JSON. Numbers are read as JSON reads them.
 */
export function jsonValueOf(text: string, maxDepth: number): unknown | typeof NOT_JSON {
  const trimmed = text.trim();
  if (trimmed === '') return NOT_JSON;
  const first = trimmed.charCodeAt(0);
  const last = trimmed.charCodeAt(trimmed.length - 1);
  const container =
    (first === LEFT_BRACE && last === RIGHT_BRACE) ||
    (first === LEFT_BRACKET && last === RIGHT_BRACKET);
  if (container) {
    const read = readLenientJson(trimmed, { maxDepth });
    return read.ok ? read.value : NOT_JSON;
  }
  if (first === LEFT_BRACE || first === LEFT_BRACKET) return NOT_JSON;
  try {
    return parseJsonText(trimmed) as unknown;
  } catch {
    return NOT_JSON;
  }
}

export { NOT_JSON };

/** Per tool schema: the policy (schemas are reused across calls and steps). */
const policies = new WeakMap<object, ValuePolicy>();

/** The value policy of a tool's input schema. */
export function policyOf(tool: ToolDefinition): ValuePolicy {
  const schema = tool.inputSchema;
  if (typeof schema !== 'object' || schema === null) return createValuePolicy(schema);
  let policy = policies.get(schema);
  if (policy === undefined) {
    policy = createValuePolicy(schema);
    policies.set(schema, policy);
  }
  return policy;
}

/** One child element of an element-named value: its name and its inner text. */
interface ElementChild {
  readonly name: string;
  readonly inner: string;
}

/**
 * The child elements of `raw` (`OPEN name>…CLOSE name>`, in order), or undefined when `raw` is
 * not a sequence of child elements with only white space between them. A child whose name
 * repeats inside it is matched to its own closer (depth counted per name).
 */
function elementChildren(raw: string, open: string, close: string): ElementChild[] | undefined {
  const children: ElementChild[] = [];
  let at = skipSpaceFrom(raw, 0);
  if (!raw.startsWith(open, at) || raw.startsWith(close, at)) return undefined;
  while (at < raw.length) {
    if (!raw.startsWith(open, at) || raw.startsWith(close, at)) return undefined;
    const nameStart = at + open.length;
    const nameEnd = raw.indexOf('>', nameStart);
    if (nameEnd === -1) return undefined;
    const name = raw.slice(nameStart, nameEnd);
    const childOpen = `${open}${name}>`;
    const childClose = `${close}${name}>`;
    const innerStart = nameEnd + 1;
    let depth = 0;
    let from = innerStart;
    let end = -1;
    while (end === -1) {
      const next = raw.indexOf(open, from);
      if (next === -1) return undefined;
      if (raw.startsWith(childClose, next)) {
        if (depth === 0) end = next;
        else depth--;
      } else if (raw.startsWith(childOpen, next)) depth++;
      from = next + 1;
    }
    children.push({ name: readElementName(name), inner: raw.slice(innerStart, end) });
    at = skipSpaceFrom(raw, end + childClose.length);
  }
  return children;
}

function skipSpaceFrom(text: string, index: number): number {
  while (index < text.length && isSpace(text.charCodeAt(index))) index++;
  return index;
}

/** An element's name as written: trimmed, with `&…;` references left to `readName`'s caller. */
function readElementName(name: string): string {
  return name.trim();
}

/**
 * The value of an element-named parameter (`ParameterTagsSyntax.elementParameters`) from its raw
 * text: child elements make an object (a key written twice, an array) or, all named `item`, an
 * array; text is typed by the schema (`policy`). Nesting deeper than `maxDepth` stays text.
 */
export function elementValue(
  raw: string,
  policy: ValuePolicy,
  open: string,
  close: string,
  maxDepth: number,
  readKey: (name: string) => string,
): unknown {
  const children = maxDepth > 0 ? elementChildren(raw, open, close) : undefined;
  if (children === undefined) {
    const reading = textReading(policy);
    if (reading.asString) return raw;
    const text = raw.trim();
    if (policy === UNCONSTRAINED_POLICY) {
      const value = jsonValueOf(text, maxDepth);
      return value === NOT_JSON ? raw : value;
    }
    return reading.type(text);
  }
  if (children.every((child) => child.name === 'item')) {
    return policy.coerce(
      children.map((child, index) =>
        elementValue(child.inner, policy.item(index), open, close, maxDepth - 1, readKey),
      ),
    );
  }
  const object: Record<string, unknown> = {};
  /** Keys written more than once: their value is the array of what each gave. */
  const repeatedKeys = new Set<string>();
  for (const child of children) {
    const key = readKey(child.name);
    const value = elementValue(
      child.inner,
      policy.property(key),
      open,
      close,
      maxDepth - 1,
      readKey,
    );
    if (!Object.hasOwn(object, key)) setOwnProperty(object, key, value);
    else if (repeatedKeys.has(key)) (object[key] as unknown[]).push(value);
    else {
      setOwnProperty(object, key, [object[key], value]);
      repeatedKeys.add(key);
    }
  }
  return policy.coerce(object);
}
