import { setOwnProperty, type ToolDefinition } from '../../core/index.ts';
import { EXCLAMATION_MARK, GREATER_THAN, LESS_THAN, SLASH } from '../../scan/char-codes.ts';
import { isMarkupSpace, isWhiteSpace } from '../../scan/characters.ts';
import { jsonValueText, keyOpening } from '../../scan/json-writer.ts';
import { textReading } from '../../schema/index.ts';
import { isNameCharacter, isNameStart, MAX_TAG_LENGTH } from './tag-names.ts';
import type { XmlToolShape } from './tool-shape.ts';
import { decodeHeldPieces, type HeldPiece } from './value-sink.ts';
import { decodeReferences } from './value-text.ts';

/** A call read in one piece: its input, the input's JSON text, and where the call ends. */
export interface WholeCall {
  /** Index just after the tool's closing tag. */
  readonly end: number;
  readonly input: Record<string, unknown>;
  /** The input as the streaming body writes it: members in order of appearance. */
  readonly json: string;
}

const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';

/**
 * The CDATA sections of the value being read, as pairs: where `<![CDATA[` starts and where its
 * `]]>` starts. Reused: values are read one at a time.
 */
const cdataSections: number[] = [];

/**
 * Reads a call whose closing tag is already in the text at hand, in one pass, or gives up.
 *
 * Why: the streaming body handles every tag and every piece of a value as an event, which is
 * what a call arriving a few characters at a time needs, and costs several microseconds per
 * call. Text usually arrives in larger pieces (the AI SDK middleware joins what the provider
 * has already delivered; `parseGeneratedText` has it all), so most calls are complete in one
 * write. This reader takes the common shape only: `<tool>`, then declared parameters, each
 * written once as `<name>value</name>`, then `</tool>`. String values may hold anything the
 * streaming body reads as text or content (`a < b`, `<div>`, entities, CDATA); held values
 * (numbers, enums, objects) plain text, entities and CDATA. Anything else (attributes, nested
 * tags in held values, a parameter named twice, a closing tag the streaming body would have to
 * weigh, a call not closed yet) returns undefined before anything is emitted, and the streaming
 * body reads the call as always. The input and JSON text are the streaming body's, which the
 * chunk-invariance property tests check (a whole text takes this path, its splits do not).
 *
 * `start` is just after `<tool` (the opener); only `text[start, end)` is read.
 */
export function readWholeCall(
  text: string,
  start: number,
  end: number,
  tool: ToolDefinition,
  shape: XmlToolShape,
): WholeCall | undefined {
  const toolName = tool.name;
  const openEnd = skipMarkupSpace(text, start, end);
  if (openEnd >= end || text.charCodeAt(openEnd) !== GREATER_THAN) return undefined;
  let tag = tagAt(text, skipMarkupSpace(text, openEnd + 1, end), end, toolName, shape);
  const input: Record<string, unknown> = {};
  /** Parameters given so far, by their index in the shape (a bit each; beyond 31, a list). */
  let givenBits = 0;
  let givenBeyond: number[] | undefined;
  let json = '{';
  while (tag !== TOOL_CLOSE) {
    // `<name>`: a declared parameter, given for the first time, with no attributes.
    if (tag === NOT_A_TAG) return undefined;
    if (tag < 31) {
      if ((givenBits & (1 << tag)) !== 0) return undefined;
      givenBits |= 1 << tag;
    } else {
      givenBeyond ??= [];
      if (givenBeyond.includes(tag)) return undefined;
      givenBeyond.push(tag);
    }
    const parameter = shape.parameters[tag]!;
    const name = parameter.name;
    if (name === toolName || parameter.isRepeatable) return undefined;
    const valueStart = tagEnd;
    const closeEnd = valueEnd(text, valueStart, end, name, toolName, parameter.isString);
    if (closeEnd === -1) return undefined;
    const valueClose = closingTagStart;
    // The closing tag counts only when the next parameter or the tool's end follows it.
    tag = tagAt(text, skipMarkupSpace(text, closeEnd, end), end, toolName, shape);
    if (tag === NOT_A_TAG) return undefined;
    const decoded = decodeValue(text, valueStart, valueClose);
    const value = parameter.isString ? decoded : textReading(parameter.policy).type(decoded);
    setOwnProperty(input, name, value);
    const valueJson = jsonValueText(value);
    json += `${json.length > 1 ? ',' : ''}${keyOpening(name)}${valueJson}`;
  }
  return { end: tagEnd, input, json: `${json}}` };
}

/** `tagAt` found the tool's closing tag. */
const TOOL_CLOSE = -2;
/** `tagAt` found neither the tool's closing tag nor a declared parameter's opening tag. */
const NOT_A_TAG = -1;
/**
 * Where the tag `tagAt` found ends, and where the closing tag `valueEnd` found starts. Set by
 * those functions for their caller to read at once (read whole calls never nest).
 */
let tagEnd = 0;
let closingTagStart = 0;

/**
 * The tag at `at`: the tool's closing tag (TOOL_CLOSE), a declared parameter's plain opening tag
 * (its index in the shape), or NOT_A_TAG. Sets `tagEnd`.
 */
function tagAt(
  text: string,
  at: number,
  end: number,
  toolName: string,
  shape: XmlToolShape,
): number {
  if (at + 1 >= end || text.charCodeAt(at) !== LESS_THAN) return NOT_A_TAG;
  if (text.charCodeAt(at + 1) === SLASH) {
    const after = closingTagEnd(text, at, end, toolName);
    if (after === -1) return NOT_A_TAG;
    tagEnd = after;
    return TOOL_CLOSE;
  }
  const nameEnd = plainOpeningTagEnd(text, at, end);
  if (nameEnd === -1) return NOT_A_TAG;
  tagEnd = nameEnd + 1;
  return parameterAt(text, at + 1, nameEnd, shape);
}

/**
 * Whether `literal` is written at `at` (the caller checked it fits). A loop, not `startsWith`:
 * names are short, and the call costs more than the comparison.
 */
function isAt(text: string, at: number, literal: string): boolean {
  for (let index = 0; index < literal.length; index++) {
    if (text.charCodeAt(at + index) !== literal.charCodeAt(index)) return false;
  }
  return true;
}

function skipMarkupSpace(text: string, index: number, end: number): number {
  while (index < end && isMarkupSpace(text.charCodeAt(index))) index++;
  return index;
}

/** Where the name that starts at `index` ends; -1 when no name starts there. */
function nameEndAt(text: string, index: number, end: number): number {
  if (index >= end || !isNameStart(text.charCodeAt(index))) return -1;
  index++;
  while (index < end && isNameCharacter(text.charCodeAt(index))) index++;
  return index;
}

/** For `<name>` at `at`, where its name ends (at the `>`); otherwise -1. */
function plainOpeningTagEnd(text: string, at: number, end: number): number {
  const nameEnd = nameEndAt(text, at + 1, end);
  return nameEnd !== -1 && nameEnd < end && text.charCodeAt(nameEnd) === GREATER_THAN
    ? nameEnd
    : -1;
}

/**
 * The declared parameter named by `text[nameStart, nameEnd)`, as its index in the shape (compared
 * in place, so nothing is cut out of the text), or -1.
 */
function parameterAt(
  text: string,
  nameStart: number,
  nameEnd: number,
  shape: XmlToolShape,
): number {
  const parameters = shape.parameters;
  const length = nameEnd - nameStart;
  for (let which = 0; which < parameters.length; which++) {
    const name = parameters[which]!.name;
    if (name.length === length && isAt(text, nameStart, name)) return which;
  }
  return -1;
}

/** The index after `</name>` (white space allowed before `>`) at `at`; -1 if it is not that. */
function closingTagEnd(text: string, at: number, end: number, name: string): number {
  const nameEnd = at + 2 + name.length;
  if (nameEnd > end || text.charCodeAt(at + 1) !== SLASH || !isAt(text, at + 2, name)) {
    return -1;
  }
  let index = nameEnd;
  if (index < end && isNameCharacter(text.charCodeAt(index))) return -1;
  while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
  if (index >= end || text.charCodeAt(index) !== GREATER_THAN) return -1;
  return index - at + 1 > MAX_TAG_LENGTH ? -1 : index + 1;
}

/**
 * Where the value that starts at `index` ends: the index after its `</name>` (whose start is left
 * in `closingTagStart`), or -1; its CDATA sections are left in `cdataSections`. Every other `<` must be one the streaming body reads as text of
 * this value: in a string, anything but the parameter's or the tool's own tags; in a held value,
 * only a `<` that starts no tag (a tag there would build structure).
 */
function valueEnd(
  text: string,
  index: number,
  end: number,
  name: string,
  toolName: string,
  isString: boolean,
): number {
  // (Only when needed: setting an array's length is not cheap.)
  if (cdataSections.length > 0) cdataSections.length = 0;
  for (;;) {
    const at = text.indexOf('<', index);
    if (at === -1 || at + 1 >= end) return -1;
    index = at + 1;
    const code = text.charCodeAt(index);
    if (code === SLASH) {
      const closeEnd = closingTagEnd(text, at, end, name);
      if (closeEnd !== -1) {
        closingTagStart = at;
        return closeEnd;
      }
      if (!isString) return -1;
      // `</other>` is text; `</tool>` may end the call, which the streaming body weighs.
      if (closingTagEnd(text, at, end, toolName) !== -1) return -1;
      const nameEnd = nameEndAt(text, at + 2, end);
      if (nameEnd >= end) return -1;
    } else if (code === EXCLAMATION_MARK) {
      if (text.startsWith(CDATA_OPEN, at)) {
        const close = text.indexOf(CDATA_CLOSE, at + CDATA_OPEN.length);
        if (close === -1 || close + CDATA_CLOSE.length > end) return -1;
        cdataSections.push(at, close);
        index = close + CDATA_CLOSE.length;
      } else if (at + CDATA_OPEN.length > end) {
        // Maybe a CDATA opening cut by the end of the text.
        return -1;
      }
    } else if (isNameStart(code)) {
      if (!isString) return -1;
      // `<name>` or `<tool>` inside the value nest; any other tag is text of a string.
      const nameEnd = nameEndAt(text, index, end);
      if (nameEnd >= end) return -1;
      const length = nameEnd - index;
      if (
        (length === name.length && isAt(text, index, name)) ||
        (length === toolName.length && isAt(text, index, toolName))
      ) {
        return -1;
      }
    }
  }
}

/**
 * The value `text[start, close)`, decoded and trimmed as the streaming body does (TrimmingSink):
 * text, here; one CDATA section is its content; text mixed with CDATA goes through the shared
 * decoder.
 */
function decodeValue(text: string, start: number, close: number): string {
  if (cdataSections.length === 0) return trimPlainText(text.slice(start, close));
  const contentStart = cdataSections[0]! + CDATA_OPEN.length;
  if (
    cdataSections.length === 2 &&
    cdataSections[0] === start &&
    cdataSections[1]! + CDATA_CLOSE.length === close
  ) {
    return text.slice(contentStart, cdataSections[1]);
  }
  const pieces: HeldPiece[] = [];
  let from = start;
  for (let pair = 0; pair < cdataSections.length; pair += 2) {
    const open = cdataSections[pair]!;
    const closeAt = cdataSections[pair + 1]!;
    if (open > from) pieces.push({ text: text.slice(from, open), isContent: false });
    pieces.push({ text: text.slice(open + CDATA_OPEN.length, closeAt), isContent: true });
    from = closeAt + CDATA_CLOSE.length;
  }
  if (close > from) pieces.push({ text: text.slice(from, close), isContent: false });
  return decodeHeldPieces(pieces);
}

/**
 * Plain text decoded and trimmed as a streamed value is: white space around it is layout, except
 * that a multi-line value keeps its first line's indentation (it is code).
 */
function trimPlainText(raw: string): string {
  const length = raw.length;
  let first = 0;
  while (first < length && isMarkupSpace(raw.charCodeAt(first))) first++;
  if (first === length) return '';
  let last = length - 1;
  while (isMarkupSpace(raw.charCodeAt(last))) last--;
  // References are content, never trimmed: decoded inside the literal white space around them.
  const written = first === 0 && last === length - 1 ? raw : raw.slice(first, last + 1);
  const core = written.includes('&') ? decodeReferences(written) : written;
  if (first === 0) return core;
  const lineStart = raw.lastIndexOf('\n', first - 1) + 1;
  return lineStart < first && core.includes('\n') ? raw.slice(lineStart, first) + core : core;
}
