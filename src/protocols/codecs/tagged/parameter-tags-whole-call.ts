import {
  setOwnProperty,
  type ToolDefinition,
  UNCONSTRAINED_POLICY,
  type ValuePolicy,
} from '../../../core/index.ts';
import {
  AMPERSAND,
  APOSTROPHE,
  EQUALS_SIGN,
  GREATER_THAN,
  LESS_THAN,
  LINE_FEED,
  QUOTATION_MARK,
  SPACE,
  TAB,
  TILDE,
} from '../../../scan/char-codes.ts';
import { isMarkupSpace } from '../../../scan/characters.ts';
import { jsonValueText, keyOpening } from '../../../scan/json-writer.ts';
import { textReading } from '../../../schema/index.ts';
import { CallAssembler } from '../../engine/call-assembler.ts';
import type { CallContext } from '../../engine/call-body.ts';
import {
  MAX_HEADER_CHARS,
  type ParameterTagsLiterals,
  type ParameterTagsSyntax,
  readTagHeader,
  type TagHeader,
} from './parameter-tags-syntax.ts';
import {
  jsonValueOf,
  layoutValueText,
  NOT_JSON,
  ProbeVerdict,
  policyOf,
  probeVerdict,
} from './parameter-tags-value.ts';

/** The call was not read: nothing was emitted, and the streaming reader reads it. */
export const DECLINED = -1;

/** `literalAt` found none of the literals. */
const NONE = -1;
/** `literalAt` met the end of the text inside one of the literals. */
const PARTIAL = -2;

/**
 * Reads one call of a parameter-tag format whose closing tag is already in the text at hand, in
 * one pass, and emits it; returns the index just after the call's closer, or DECLINED.
 *
 * Why: the streaming reader (`ParameterTagsBody`) passes every piece of a value through its
 * layout and JSON writer and decides on every tag as it comes, which a call arriving a few
 * characters at a time needs and a call read whole does not: `parseGeneratedText` has the whole
 * text, and a stream's chunks often hold whole calls.
 *
 * Only the common shape is read: a call header naming a declared tool, then parameters each
 * given once, each closed by its own closing tag, then the call's closer. Values may hold any
 * text the streaming reader reads as content (`a < b`, `<div>`, a `</parameter>` that no tag of
 * the call follows). Anything else (a missing closer, stray text between parameters, a
 * parameter given twice, a closing tag the streaming reader would read as the end of the call,
 * the end of the text) is DECLINED before anything is emitted. What is read is typed and laid
 * out exactly as the streaming reader does it, which the tests check on generated calls. Up to
 * where it declines, it reads the call as the streaming reader does, so the streaming reader
 * then reads at least that far in the same call: a declined call costs one extra pass, never a
 * rescan of the text after it.
 *
 * `start` is just after the call's opening literal (`<function`, `<invoke`); only
 * `text[start, limit)` is read. Formats whose name follows the block opener (GLM), whose keys
 * are tags of their own, or whose values hold references are left to the streaming reader.
 */
export function readWholeParameterCall(
  context: CallContext,
  syntax: ParameterTagsSyntax,
  literals: ParameterTagsLiterals,
  text: string,
  start: number,
  limit: number,
): number {
  if (
    syntax.keyClose !== undefined ||
    syntax.callClose === '' ||
    syntax.decodeEntities ||
    syntax.nameAsText ||
    syntax.cdata ||
    syntax.suffixedTags ||
    syntax.elementParameters
  ) {
    return DECLINED;
  }
  const headerClose = syntax.headerClose || '>';
  const nameAttribute = syntax.nameAttribute || 'name';
  const keyAttribute = syntax.keyAttribute || 'name';
  const headerEnd = tagHeaderEnd(text, start, limit, headerClose);
  if (headerEnd === DECLINED) return DECLINED;
  const header = tagHeader(text, start, headerEnd, nameAttribute, syntax);
  if (header === undefined) return DECLINED;
  const tool = context.options.toolsByName.get(header.name);
  if (tool === undefined) return DECLINED;
  const shape = shapeOf(tool);
  const callLiterals = literals.callLiterals;
  const input: Record<string, unknown> = {};
  /** Declared parameters given so far, a bit each by their index in the shape (up to 31). */
  let givenBits = 0;
  let json = '{';
  let at = headerEnd + headerClose.length;
  for (;;) {
    at = skipSpace(text, at, limit);
    // Stray text between parameters, or the end of the text.
    if (at >= limit || text.charCodeAt(at) !== LESS_THAN) return DECLINED;
    const which = literalAt(text, at, limit, callLiterals);
    if (which < 0) return DECLINED;
    const literal = callLiterals[which]!;
    if (literal === syntax.parameterOpen) {
      const headerStart = at + literal.length;
      const close = tagHeaderEnd(text, headerStart, limit, headerClose);
      if (close === DECLINED) return DECLINED;
      const parameter = tagHeader(text, headerStart, close, keyAttribute, syntax);
      if (parameter === undefined) return DECLINED;
      // The schema's own spelling of a declared name, so the input's keys are its strings.
      const declared = shape.indexByName.get(parameter.name);
      const name = declared === undefined ? parameter.name : shape.names[declared]!;
      if (declared !== undefined && declared < 31) {
        if ((givenBits & (1 << declared)) !== 0) return DECLINED;
        givenBits |= 1 << declared;
      } else if (Object.hasOwn(input, name)) return DECLINED;
      const valueStart = close + headerClose.length;
      const valueClose = valueEnd(text, valueStart, limit, syntax, literals);
      if (valueClose === DECLINED) return DECLINED;
      const value = typedValue(
        text.slice(valueStart, valueClose),
        parameter.string,
        declared === undefined ? shape.policy.property(name) : shape.policyAt(declared),
        syntax.layout,
        context.options.maxDepth,
      );
      setOwnProperty(input, name, value);
      json += `${json.length > 1 ? ',' : ''}${keyOpening(name)}${jsonValueText(value)}`;
      at = valueClose + syntax.parameterClose.length;
      continue;
    }
    // The call's closer ends it; any other tag of the call here means its closer is missing.
    if (literal !== syntax.callClose) return DECLINED;
    new CallAssembler(context, tool).completeWhole(`${json}}`, input);
    return at + literal.length;
  }
}

/** What the reader keeps per tool schema: its policy, and its declared parameters' names. */
interface ToolShape {
  readonly policy: ValuePolicy;
  readonly names: readonly string[];
  readonly indexByName: ReadonlyMap<string, number>;
  /** The policy of the declared parameter at an index. */
  policyAt(index: number): ValuePolicy;
}

const shapes = new WeakMap<object, ToolShape>();

function shapeOf(tool: ToolDefinition): ToolShape {
  const schema = tool.inputSchema;
  const cacheable = typeof schema === 'object' && schema !== null;
  let shape = cacheable ? shapes.get(schema) : undefined;
  if (shape === undefined) {
    const policy = policyOf(tool);
    const properties = cacheable ? (schema as { properties?: unknown }).properties : undefined;
    const names =
      typeof properties === 'object' && properties !== null && !Array.isArray(properties)
        ? Object.keys(properties)
        : [];
    const policies: (ValuePolicy | undefined)[] = [];
    shape = {
      policy,
      names,
      indexByName: new Map(names.map((name, index) => [name, index])),
      policyAt(index) {
        let found = policies[index];
        if (found === undefined) {
          found = policy.property(names[index]!);
          policies[index] = found;
        }
        return found;
      },
    };
    if (cacheable) shapes.set(schema, shape);
  }
  return shape;
}

const NAME_ATTRIBUTE = ' name="';

/**
 * A tag header, `text[start, close)`, read as `readTagHeader` reads it. The usual spellings,
 * `=NAME` and ` name="NAME"` with a plain name, are taken in place.
 */
function tagHeader(
  text: string,
  start: number,
  close: number,
  nameAttribute: string,
  syntax: ParameterTagsSyntax,
): TagHeader | undefined {
  const attribute = nameAttribute === 'name' ? NAME_ATTRIBUTE : ` ${nameAttribute}="`;
  if (text.charCodeAt(start) === EQUALS_SIGN) {
    if (isPlainName(text, start + 1, close)) return { name: text.slice(start + 1, close) };
  } else if (
    close - start > attribute.length + 1 &&
    text.charCodeAt(close - 1) === QUOTATION_MARK &&
    isAt(text, start, attribute) &&
    isPlainName(text, start + attribute.length, close - 1)
  ) {
    return { name: text.slice(start + attribute.length, close - 1) };
  }
  return readTagHeader(text.slice(start, close), nameAttribute, syntax);
}

/**
 * Whether `text[start, end)` is a name `readName` takes as written: not empty, printable ASCII,
 * no white space (of any kind `trim` removes), quotes or references.
 */
function isPlainName(text: string, start: number, end: number): boolean {
  if (end <= start) return false;
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (
      code <= SPACE ||
      code > TILDE ||
      code === QUOTATION_MARK ||
      code === APOSTROPHE ||
      code === AMPERSAND
    ) {
      return false;
    }
  }
  return true;
}

function skipSpace(text: string, index: number, limit: number): number {
  while (index < limit && isMarkupSpace(text.charCodeAt(index))) index++;
  return index;
}

/**
 * Where the literal ending a tag header that starts at `index` (`>`, or the syntax's
 * `headerClose`) begins, as the streaming reader finds it; or DECLINED.
 */
function tagHeaderEnd(text: string, index: number, limit: number, close: string): number {
  const stop = Math.min(limit, index + MAX_HEADER_CHARS);
  if (close === '>') {
    for (let at = index; at < stop; at++) {
      const code = text.charCodeAt(at);
      if (code === GREATER_THAN) return at;
      if (code === LESS_THAN || code === LINE_FEED) return DECLINED;
    }
    return DECLINED;
  }
  const first = close.charCodeAt(0);
  for (let at = index; at < stop; at++) {
    const code = text.charCodeAt(at);
    if (code === first && limit - at >= close.length && isAt(text, at, close)) return at;
    if (code === LESS_THAN || code === LINE_FEED) return DECLINED;
  }
  return DECLINED;
}

/**
 * Which of `literals` is written at `at` (its index, the first that matches whole, as the
 * streaming reader takes it), PARTIAL when the text ends inside one, or NONE.
 */
function literalAt(text: string, at: number, limit: number, literals: readonly string[]): number {
  const available = limit - at;
  let partial = false;
  for (let which = 0; which < literals.length; which++) {
    const literal = literals[which]!;
    if (available >= literal.length) {
      if (isAt(text, at, literal)) return which;
    } else if (literal.startsWith(text.slice(at, limit))) partial = true;
  }
  return partial ? PARTIAL : NONE;
}

/**
 * Whether `literal` is written at `at` (the caller checked it fits). A loop, not `startsWith`:
 * tags are short and most differ from the text at their second character.
 */
function isAt(text: string, at: number, literal: string): boolean {
  for (let index = 0; index < literal.length; index++) {
    if (text.charCodeAt(at + index) !== literal.charCodeAt(index)) return false;
  }
  return true;
}

/**
 * Where the value that starts at `valueStart` ends: the index of the parameter's closing tag
 * that closes it, or DECLINED. The streaming reader's rules: a tag of the call in a value is
 * content unless what follows it makes it an end (see `ParameterTagsBody`); only the value's own
 * closer followed by another tag of the call is taken here, every other end is DECLINED.
 */
function valueEnd(
  text: string,
  valueStart: number,
  limit: number,
  syntax: ParameterTagsSyntax,
  literals: ParameterTagsLiterals,
): number {
  const valueLiterals = literals.valueLiterals;
  let index = valueStart;
  for (;;) {
    const at = text.indexOf('<', index);
    if (at === -1 || at >= limit) return DECLINED;
    const which = literalAt(text, at, limit, valueLiterals);
    if (which === PARTIAL) return DECLINED;
    if (which === NONE) {
      index = at + 1;
      continue;
    }
    const literal = valueLiterals[which]!;
    if (literal === syntax.parameterOpen) {
      // The next parameter at the start of a line: this value's closer is missing.
      if (startsLine(text, valueStart, at)) return DECLINED;
      index = at + 1;
      continue;
    }
    const isParameterClose = literal === syntax.parameterClose;
    let next = at + literal.length;
    let lineBreak = false;
    while (next < limit) {
      const code = text.charCodeAt(next);
      if (!isMarkupSpace(code)) break;
      if (code === LINE_FEED) lineBreak = true;
      next++;
    }
    // The call's or block's closer followed by a line break ends the call (value closer missing).
    if (!isParameterClose && lineBreak) return DECLINED;
    if (next >= limit) return DECLINED;
    if (text.charCodeAt(next) === LESS_THAN) {
      const follows = literalAt(text, next, limit, literals.callLiterals);
      if (follows === PARTIAL) return DECLINED;
      if (follows !== NONE) return isParameterClose ? at : DECLINED;
      // The closer written twice may close the value (dropped and reported): left to the
      // streaming reader.
      if (isParameterClose && literalAt(text, next, limit, [literal]) !== NONE) return DECLINED;
    }
    // Nothing of the call follows: the tag is content, and reading goes on after it.
    index = next;
  }
}

/** Whether `text[at]` starts a line of the value that starts at `valueStart` (indentation aside). */
function startsLine(text: string, valueStart: number, at: number): boolean {
  for (let position = at - 1; position >= valueStart; position--) {
    const code = text.charCodeAt(position);
    if (code !== SPACE && code !== TAB) return code === LINE_FEED;
  }
  return true;
}

/** A value's text, laid out and typed as the streaming reader types it. */
function typedValue(
  raw: string,
  string: boolean | undefined,
  valuePolicy: ValuePolicy,
  layout: ParameterTagsSyntax['layout'],
  maxDepth: number,
): unknown {
  const text = layoutValueText(raw, layout);
  if (string === false) {
    const value = jsonValueOf(text, maxDepth);
    return valuePolicy.coerce(value === NOT_JSON ? text : value);
  }
  if (valuePolicy === UNCONSTRAINED_POLICY) {
    if (string === true || probeVerdict(text) === ProbeVerdict.Text) return text;
    const value = jsonValueOf(text, maxDepth);
    return value === NOT_JSON ? text : value;
  }
  return textReading(valuePolicy).type(text);
}
