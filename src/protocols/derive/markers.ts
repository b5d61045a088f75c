/**
 * A FormatSpec from the markers a chat template writes around its calls. Each rendered call is
 * located by its tool's name and argument values (values no template holds); then, from the turn
 * with two calls:
 *
 * - the text before the first call (P), between the calls (M) and after the last (S);
 * - the per-call opener: what P and M end with alike; the per-call closer: what M and S start
 *   with alike; the section's opener and closer: the rest of P and S; the separator: the rest of M.
 *
 * How the arguments are written decides the codec: JSON (the name under a key, or as the key, or
 * in a header before a JSON object), Python calls (`NAME(city="Oslo")`), a JSON-like dialect
 * (`NAME{city:<|"|>Oslo<|"|>}`), or parameter tags (`<parameter=city>Oslo</parameter>`).
 */
import type {
  CallFormSpec,
  DialectCallForm,
  FormatSpec,
  JsonCallForm,
  PythonCallForm,
  ReasoningSpec,
  TaggedCallForm,
} from '../spec/types.ts';
import { ChatTemplateError } from './chat-template-error.ts';
import type { ReasoningMarkers } from './reasoning-markers.ts';
import {
  RESULT_TEXT,
  type RenderedScenario,
  type RenderedTemplate,
  type ScenarioCall,
} from './render-scenarios.ts';

type Shape =
  | { readonly kind: 'json-object'; readonly nameKey: string; readonly argumentKey: string }
  | { readonly kind: 'json-name-as-key' }
  | {
      readonly kind: 'json-header';
      readonly headerEnd: string;
      readonly argumentsAsString: boolean;
    }
  | { readonly kind: 'python' }
  | { readonly kind: 'dialect'; readonly delimiters: readonly [string, string] }
  | { readonly kind: 'tagged' };

interface Span {
  readonly start: number;
  readonly end: number;
}

/** The frame around the calls: what the calls' spans leave. */
interface Frame {
  readonly sectionOpen: string;
  readonly callOpen: string;
  readonly separator: string;
  readonly callClose: string;
  readonly sectionClose: string;
}

export function specFromMarkers(
  rendered: RenderedTemplate,
  reasoning: ReasoningMarkers,
  name: string,
): FormatSpec {
  const base = scenario(rendered, 'two-arguments') ?? scenario(rendered, 'one-argument');
  if (base === undefined) throw missing('a turn with one call');
  const call = base.scenario.calls[0]!;
  const shape = shapeOf(base.turn, call);
  const spanOf = (turn: RenderedScenario) => spansOf(turn.turn, turn.scenario.calls, shape);
  const baseSpans = spanOf(base);
  const pair = scenario(rendered, 'two-calls');
  const frame =
    pair === undefined ? frameOfOne(base.turn, baseSpans[0]!) : frameOfTwo(pair.turn, spanOf(pair));
  const form = callForm(shape, frame, base.turn, baseSpans[0]!, call);
  // Section markers the call form does not read itself are dropped wherever they stand.
  const markup = [frame.sectionOpen.trim(), frame.sectionClose.trim()].filter(
    (literal) => literal !== '' && !overlaps(literal, form.open) && !overlaps(literal, form.close),
  );
  const write = writeSpec(shape, frame, base.turn, baseSpans[0]!, call, form);
  return {
    spec: 1,
    name,
    families: 'derived from a chat template',
    ...(reasoningSpecs(reasoning) ?? {}),
    ...(reasoning.promptOpens ? { startInReasoning: true } : {}),
    ...(markup.length > 0 ? { markup } : {}),
    calls: [form],
    write,
    results: resultSpec(rendered),
  };
}

function overlaps(literal: string, other: string | undefined): boolean {
  return (
    other !== undefined && other !== '' && (literal.includes(other) || other.includes(literal))
  );
}

function scenario(rendered: RenderedTemplate, id: string): RenderedScenario | undefined {
  return rendered.scenarios.find((turn) => turn.scenario.id === id);
}

function missing(what: string): ChatTemplateError {
  return new ChatTemplateError(`the chat template's calls cannot be described: ${what}`);
}

function reasoningSpecs(reasoning: ReasoningMarkers): { reasoning: ReasoningSpec[] } | undefined {
  if (reasoning.open === undefined || reasoning.close === undefined) return undefined;
  const own = { open: reasoning.open, close: reasoning.close };
  const blocks = [own];
  if (own.open !== '<think>') blocks.push({ open: '<think>', close: '</think>' });
  return { reasoning: blocks };
}

// ---------------------------------------------------------------------------------------------
// What kind of call: read from the text around the tool's name and its first argument.

function shapeOf(turn: string, call: ScenarioCall): Shape {
  const at = turn.indexOf(call.name);
  if (at < 0) throw missing(`the tool's name ${call.name} is not in the turn`);
  const end = at + call.name.length;
  const [key, value] = Object.entries(call.input)[0]!;
  const colon = skipSpaceBack(turn, at - 2);
  const quoted = turn[at - 1] === '"' && turn[end] === '"';
  if (quoted && turn[skipSpace(turn, end + 1)] === ':') return { kind: 'json-name-as-key' };
  // A JSON value (`"name": "NAME"`); a quoted attribute (`name="NAME"`) is markup.
  if (quoted && turn[colon] === ':') {
    const nameKey = quotedKeyBefore(turn, colon);
    if (nameKey === undefined) throw missing('the key the name stands under');
    const argumentsAt = turn.indexOf(`"${key}"`, end);
    if (argumentsAt < 0) throw missing(`the argument ${key}`);
    const argumentKey = keyOfObjectAt(turn, turn.lastIndexOf('{', argumentsAt), end);
    if (argumentKey === undefined) throw missing('the key the arguments stand under');
    return { kind: 'json-object', nameKey, argumentKey };
  }
  const keyAt = turn.indexOf(key, end);
  if (keyAt < 0) throw missing(`the argument ${key}`);
  const before = turn[keyAt - 1];
  const keyEnd = keyAt + key.length + (before === '\\' ? 1 : 0);
  const jsonKey =
    (before === '"' || before === '\\') &&
    turn[keyEnd] === '"' &&
    turn[skipSpace(turn, keyEnd + 1)] === ':';
  if (jsonKey) {
    const objectAt = turn.lastIndexOf(before === '"' ? '{' : '"', keyAt);
    const headerEnd = turn.slice(end, objectAt);
    if (headerEnd === '') throw missing('something between the name and its arguments');
    return { kind: 'json-header', headerEnd, argumentsAsString: before === '\\' };
  }
  const afterKey = skipSpace(turn, keyAt + key.length);
  if (turn[afterKey] === '=' && turn.slice(end, keyAt).trim() === '(') return { kind: 'python' };
  if (turn[afterKey] === ':') {
    const valueAt = turn.indexOf(String(value), afterKey);
    const open = turn.slice(afterKey + 1, valueAt);
    const closeEnd = turn.indexOf(open, valueAt + String(value).length);
    if (open !== '' && closeEnd >= 0) {
      return {
        kind: 'dialect',
        delimiters: [open, turn.slice(valueAt + String(value).length, closeEnd + open.length)],
      };
    }
  }
  return { kind: 'tagged' };
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text[at]!)) at++;
  return at;
}

function skipSpaceBack(text: string, at: number): number {
  while (at >= 0 && isSpace(text[at]!)) at--;
  return at;
}

function isSpace(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r';
}

/** The JSON key written before the `:` at `colon` (`"name"` → `name`). */
function quotedKeyBefore(text: string, colon: number): string | undefined {
  const close = skipSpaceBack(text, colon - 1);
  if (text[close] !== '"') return undefined;
  const open = text.lastIndexOf('"', close - 1);
  if (open < 0) return undefined;
  return text.slice(open + 1, close);
}

/** The key under which the object starting at `objectAt` stands (`"arguments": {`). */
function keyOfObjectAt(text: string, objectAt: number, from: number): string | undefined {
  if (objectAt < from) return undefined;
  const colon = skipSpaceBack(text, objectAt - 1);
  if (text[colon] !== ':') return undefined;
  return quotedKeyBefore(text, colon);
}

// ---------------------------------------------------------------------------------------------
// Where each call stands in a turn.

function spansOf(turn: string, calls: readonly ScenarioCall[], shape: Shape): Span[] {
  const spans: Span[] = [];
  let from = 0;
  for (const call of calls) {
    const span = spanOf(turn, call, shape, from);
    if (span === undefined) throw missing(`where the call to ${call.name} ends`);
    spans.push(span);
    from = span.end;
  }
  return spans;
}

function spanOf(turn: string, call: ScenarioCall, shape: Shape, from: number): Span | undefined {
  const at = turn.indexOf(call.name, from);
  if (at < 0) return undefined;
  switch (shape.kind) {
    case 'json-object':
    case 'json-name-as-key': {
      const start = turn.lastIndexOf('{', at);
      const end = jsonValueEnd(turn, start);
      return start < from || end === undefined ? undefined : { start, end };
    }
    case 'json-header': {
      const argumentsAt = turn.indexOf(shape.headerEnd, at) + shape.headerEnd.length;
      const end = shape.argumentsAsString
        ? stringEnd(turn, argumentsAt)
        : jsonValueEnd(turn, argumentsAt);
      return end === undefined ? undefined : { start: at, end };
    }
    case 'python': {
      const end = pythonCallEnd(turn, turn.indexOf('(', at));
      return end === undefined ? undefined : { start: at, end };
    }
    case 'dialect': {
      const end = dialectObjectEnd(turn, turn.indexOf('{', at), shape.delimiters);
      return end === undefined ? undefined : { start: at, end };
    }
    case 'tagged': {
      // After the last of its values, and the marker that closes that value.
      let end = at + call.name.length;
      for (const value of Object.values(call.input)) {
        const valueAt = turn.indexOf(String(value), at);
        if (valueAt >= 0) end = Math.max(end, valueAt + String(value).length);
      }
      const closerAt = skipSpace(turn, end);
      const closer = markerAt(turn, closerAt);
      return { start: at, end: closer === undefined ? end : closerAt + closer.length };
    }
  }
}

/** The end (exclusive) of the JSON object or array starting at `start`. */
export function jsonValueEnd(text: string, start: number): number | undefined {
  const first = text[start];
  if (first !== '{' && first !== '[') return undefined;
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      const end = stringEnd(text, index);
      if (end === undefined) return undefined;
      index = end - 1;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** The end (exclusive) of the JSON string starting at `start`. */
function stringEnd(text: string, start: number): number | undefined {
  if (text[start] !== '"') return undefined;
  for (let index = start + 1; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '"') return index + 1;
  }
  return undefined;
}

/** The end (exclusive) of the Python call whose `(` is at `open`. */
function pythonCallEnd(text: string, open: number): number | undefined {
  if (open < 0) return undefined;
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === '"' || char === "'") {
      const close = text.indexOf(char, index + 1);
      if (close < 0) return undefined;
      index = close;
    } else if (char === '(' || char === '[' || char === '{') depth++;
    else if (char === ')' || char === ']' || char === '}') {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** The end (exclusive) of a dialect object at `open`, strings between `delimiters` skipped. */
function dialectObjectEnd(
  text: string,
  open: number,
  [stringOpen, stringClose]: readonly [string, string],
): number | undefined {
  if (open < 0) return undefined;
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text.startsWith(stringOpen, index)) {
      const close = text.indexOf(stringClose, index + stringOpen.length);
      if (close < 0) return undefined;
      index = close + stringClose.length - 1;
      continue;
    }
    const char = text[index];
    if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** The marker at `at`: `<…>` or `[…]`, as long as it is short. */
function markerAt(text: string, at: number): string | undefined {
  const first = text[at];
  if (first !== '<' && first !== '[') return undefined;
  const end = text.indexOf(first === '<' ? '>' : ']', at + 1);
  if (end < 0 || end - at > 64) return undefined;
  return text.slice(at, end + 1);
}

// ---------------------------------------------------------------------------------------------
// The frame: section and per-call markers.

function frameOfOne(turn: string, span: Span): Frame {
  return {
    sectionOpen: '',
    callOpen: turn.slice(0, span.start).trimStart(),
    separator: '',
    callClose: turn.slice(span.end).trimEnd(),
    sectionClose: '',
  };
}

function frameOfTwo(turn: string, spans: readonly Span[]): Frame {
  const [first, second] = spans as [Span, Span];
  const before = turn.slice(0, first.start).trimStart();
  const between = turn.slice(first.end, second.start);
  const after = turn.slice(second.end).trimEnd();
  const callOpen = commonSuffix(before, between);
  const callClose = commonPrefix(between.slice(0, between.length - callOpen.length), after);
  return {
    sectionOpen: before.slice(0, before.length - callOpen.length),
    callOpen,
    separator: between.slice(callClose.length, between.length - callOpen.length),
    callClose,
    sectionClose: after.slice(callClose.length),
  };
}

/** What `a` and `b` end with alike, starting where a marker (or white space) starts. */
function commonSuffix(a: string, b: string): string {
  let length = 0;
  while (
    length < a.length &&
    length < b.length &&
    a[a.length - 1 - length] === b[b.length - 1 - length]
  )
    length++;
  // `<|calls|><|call|>` and `<|/call|><|call|>` end alike in `|><|call|>`: the marker is `<|call|>`.
  while (length > 0 && !startsMarker(a, a.length - length)) length--;
  return a.slice(a.length - length);
}

/** What `a` and `b` start with alike, ending where a marker (or white space) ends. */
function commonPrefix(a: string, b: string): string {
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length++;
  while (length > 0 && !endsMarker(a, length)) length--;
  return a.slice(0, length);
}

function startsMarker(text: string, at: number): boolean {
  const before = text[at - 1];
  const char = text[at]!;
  return (
    at === 0 ||
    char === '<' ||
    char === '[' ||
    isSpace(char) ||
    before === '>' ||
    before === ']' ||
    (before !== undefined && isSpace(before))
  );
}

function endsMarker(text: string, end: number): boolean {
  const last = text[end - 1]!;
  const next = text[end];
  return (
    end === text.length ||
    last === '>' ||
    last === ']' ||
    isSpace(last) ||
    next === '<' ||
    next === '[' ||
    (next !== undefined && isSpace(next))
  );
}

// ---------------------------------------------------------------------------------------------
// The call form.

function callForm(
  shape: Shape,
  frame: Frame,
  turn: string,
  span: Span,
  call: ScenarioCall,
): CallFormSpec {
  switch (shape.kind) {
    case 'json-object':
    case 'json-name-as-key':
      return jsonObjectForm(shape, frame);
    case 'json-header': {
      const open = (frame.sectionOpen + frame.callOpen).trim() || undefined;
      if (open === undefined) throw missing('a marker before the name');
      const form: JsonCallForm = {
        codec: 'json',
        open: frame.callOpen.trim() || open,
        nameHeader: { end: shape.headerEnd.trim() || shape.headerEnd },
        ...closeOf(frame.callClose),
      };
      return form;
    }
    case 'python': {
      const open = (frame.sectionOpen + frame.callOpen).trim();
      const close = (frame.callClose + frame.sectionClose).trim();
      const listed = open.endsWith('[') && close.startsWith(']');
      const form: PythonCallForm = {
        codec: 'python',
        open: open === '' ? '[' : open,
        ...(open === '' || open === '[' ? { certainty: 'speculative' as const } : {}),
        ...(listed ? { listOpened: true } : open === '' ? {} : { single: true }),
        ...closeOf(listed ? close.slice(1) : close),
      };
      if (open === '' && !listed) throw missing('a marker around the Python calls');
      return form;
    }
    case 'dialect': {
      const header = turn.slice(span.start + call.name.length, turn.indexOf('{', span.start));
      if (header.trim() !== '')
        throw missing('a dialect call with its object right after the name');
      const opener = frame.callOpen.trim();
      // `call:` between the marker and the name is the dialect's name prefix.
      const markerEnd = Math.max(opener.lastIndexOf('>'), opener.lastIndexOf(']')) + 1;
      const form: DialectCallForm = {
        codec: 'dialect',
        open: markerEnd > 0 ? opener.slice(0, markerEnd) : opener,
        ...(markerEnd > 0 && markerEnd < opener.length
          ? { namePrefix: opener.slice(markerEnd) }
          : {}),
        stringDelimiters: shape.delimiters,
        ...closeOf(frame.callClose),
      };
      if (form.open === '') throw missing('a marker before the dialect call');
      return form;
    }
    case 'tagged':
      return taggedForm(frame, turn, span, call);
  }
}

function closeOf(text: string): { close?: string } {
  const close = text.trim();
  return close === '' ? {} : { close };
}

function jsonObjectForm(shape: Shape, frame: Frame): JsonCallForm {
  const keys =
    shape.kind === 'json-object'
      ? { nameKeys: [shape.nameKey], argumentKeys: [shape.argumentKey] }
      : { nameAsKey: true };
  const open = frame.sectionOpen.trim();
  const perCall = frame.callOpen.trim();
  const close = frame.sectionClose.trim();
  const whole = (frame.sectionOpen + frame.callOpen).trim();
  const closing = (frame.callClose + frame.sectionClose).trim();
  // A JSON list of calls: the opener, then `[`, the calls, `]`, the closer.
  if (whole.endsWith('[') && closing.startsWith(']') && (perCall === '' || perCall.endsWith('['))) {
    const opener = whole.slice(0, -1).trim();
    const closer = closing.slice(1).trim();
    if (opener === '') {
      return {
        codec: 'json',
        open: '[',
        openHoldsJson: '[',
        certainty: 'speculative',
        ...keys,
        ...closeOf(closer),
      };
    }
    return { codec: 'json', open: opener, ...keys, ...closeOf(closer) };
  }
  const opener = perCall || open;
  const separator = frame.separator.trim();
  if (opener === '') {
    return {
      codec: 'json',
      open: '{',
      openHoldsJson: '{',
      certainty: 'speculative',
      ...keys,
      ...(separator === '' ? {} : { separator }),
    };
  }
  return {
    codec: 'json',
    open: opener,
    ...keys,
    ...closeOf(perCall ? frame.callClose : frame.callClose + close),
    ...(separator === '' ? {} : { separator }),
  };
}

/**
 * Parameter tags. The call's opener ends where its name starts (`<function=`); a parameter is
 * its key between markers (`<parameter=` `>`, or `<arg_key>` `</arg_key><arg_value>`), its value,
 * and the value's closer.
 */
function taggedForm(frame: Frame, turn: string, span: Span, call: ScenarioCall): TaggedCallForm {
  const entries = Object.entries(call.input);
  const [key, value] = entries[0]!;
  const keyAt = turn.indexOf(key, span.start + call.name.length);
  const valueAt = turn.indexOf(String(value), keyAt + key.length);
  if (keyAt < 0 || valueAt < 0) throw missing(`the parameter ${key} and its value`);
  // What stands between the name and the first key: the end of the call's header, then the
  // parameter's opener.
  const afterName = turn.slice(span.start + call.name.length, keyAt);
  const parameterStart = Math.max(afterName.lastIndexOf('<'), afterName.lastIndexOf('['));
  if (parameterStart < 0) throw missing('a marker before the first parameter');
  const parameterPrefix = afterName.slice(parameterStart);
  const keyToValue = turn.slice(keyAt + key.length, valueAt);
  const valueEnd = valueAt + String(value).length;
  const closerAt = skipSpace(turn, valueEnd);
  const parameterClose = markerAt(turn, closerAt);
  if (parameterClose === undefined) throw missing(`the marker after the value of ${key}`);
  const layout = turn.slice(valueEnd, closerAt).includes('\n') ? 'block' : 'inline';
  const headerStyle = /^\s*>\s*$/.test(keyToValue) || /^"\s*>\s*$/.test(keyToValue);
  let syntax: TaggedCallForm['syntax'];
  if (headerStyle) {
    syntax = {
      callOpen: '',
      callClose: '',
      parameterOpen: parameterPrefix.replace(/(=|\s+name="?)$/, ''),
      parameterClose,
      layout,
    };
  } else {
    const keyClose = markerAt(turn, keyAt + key.length);
    if (keyClose === undefined) throw missing(`the marker after the parameter name ${key}`);
    syntax = {
      callOpen: '',
      callClose: '',
      parameterOpen: parameterPrefix,
      keyClose,
      valueOpen: keyToValue.slice(keyClose.length).trim(),
      parameterClose,
      layout: 'exact',
    };
  }
  // The call's own tag: the last marker of the per-call opener, open before the name.
  const opener = frame.callOpen.trim();
  const tagStart = Math.max(opener.lastIndexOf('<'), opener.lastIndexOf('['));
  const ownTag =
    tagStart >= 0 && !/[>\]]/.test(opener.slice(tagStart)) ? opener.slice(tagStart) : '';
  const block = ownTag === '' ? opener : opener.slice(0, tagStart).trim();
  const callClose = frame.callClose.trim();
  const ownClose = ownTag === '' ? '' : (markerAt(callClose, 0) ?? '');
  syntax = {
    ...syntax,
    callOpen: ownTag.replace(/(=|\s+name="?)$/, ''),
    callClose: ownClose,
  };
  const blockClose = callClose.slice(ownClose.length).trim() || frame.sectionClose.trim();
  if (block === '') {
    if (ownTag === '') throw missing('a marker before the call');
    return {
      codec: 'tagged',
      open: ownTag,
      syntax,
      openConsumed: ownTag.slice(syntax.callOpen.length),
    };
  }
  return { codec: 'tagged', open: block, syntax, ...closeOf(blockClose) };
}

// ---------------------------------------------------------------------------------------------
// The writer: the template's own turn with the name and arguments made placeholders.

function writeSpec(
  shape: Shape,
  frame: Frame,
  turn: string,
  span: Span,
  call: ScenarioCall,
  form: CallFormSpec,
): FormatSpec['write'] {
  const core = turn.slice(span.start, span.end);
  let template: string;
  let parameter: string | undefined;
  switch (shape.kind) {
    case 'json-object': {
      const name = `"${call.name}"`;
      const argumentsAt = core.indexOf('{', core.indexOf(`"${shape.argumentKey}"`));
      const argumentsEnd = jsonValueEnd(core, argumentsAt) ?? core.length;
      template =
        core.slice(0, argumentsAt).replace(name, '{name_json}') +
        '{arguments}' +
        core.slice(argumentsEnd);
      break;
    }
    case 'json-name-as-key': {
      const argumentsAt = core.indexOf('{', core.indexOf(call.name));
      template = `{{name_json}: {arguments}${core.slice(jsonValueEnd(core, argumentsAt) ?? core.length)}`;
      break;
    }
    case 'json-header': {
      const argumentsAt = core.indexOf(shape.headerEnd) + shape.headerEnd.length;
      template = `{name}${core.slice(call.name.length, argumentsAt)}{arguments}`;
      break;
    }
    case 'python':
      template = '{name}({arguments})';
      break;
    case 'dialect':
      template = '{name}{arguments}';
      break;
    case 'tagged': {
      const syntax = (form as TaggedCallForm).syntax;
      const [key, value] = Object.entries(call.input)[0]!;
      const keyAt = core.indexOf(key, call.name.length);
      const parameterStart = core.lastIndexOf(syntax.parameterOpen, keyAt);
      const valueAt = core.indexOf(String(value), keyAt);
      const closeEnd = core.indexOf(syntax.parameterClose, valueAt) + syntax.parameterClose.length;
      parameter =
        core.slice(parameterStart, keyAt) +
        '{key}' +
        core.slice(keyAt + key.length, valueAt) +
        '{value}' +
        core.slice(valueAt + String(value).length, closeEnd);
      // Parameters sit between the name's header and the call's end; the template keeps the
      // text before the first parameter and after the last.
      template = `{name}${core.slice(call.name.length, parameterStart)}{arguments}`;
      break;
    }
  }
  const section = { open: frame.sectionOpen.trimStart(), close: frame.sectionClose };
  return {
    call: frame.callOpen + template + frame.callClose,
    ...(section.open === '' && section.close === '' ? {} : { section }),
    ...(frame.separator === '' ? {} : { join: frame.separator }),
    ...(parameter === undefined ? {} : { parameter }),
  };
}

// ---------------------------------------------------------------------------------------------
// The result writer: what the template writes around a tool's result inside its turn.

/**
 * A result as the template frames it: the tool message's text minus what a user message with
 * the same text also has (the turn's header and end), so `<tool_response>\n{output}\n</tool_response>`
 * of Hermes-style templates. Plain `{output}` when the frame is not markup (a role of its own,
 * JSON around the text).
 */
function resultSpec(rendered: RenderedTemplate): FormatSpec['results'] {
  const plain = { each: '{output}', join: '\n' };
  const turns = rendered.resultTurns();
  if (turns === undefined) return plain;
  const at = turns.tool.indexOf(RESULT_TEXT);
  const inUser = turns.user.indexOf(RESULT_TEXT);
  if (at < 0 || inUser < 0 || turns.tool.indexOf(RESULT_TEXT, at + 1) >= 0) return plain;
  const headerLength = commonPrefix(turns.tool.slice(0, at), turns.user.slice(0, inUser)).length;
  const toolTail = turns.tool.slice(at + RESULT_TEXT.length);
  const userTail = turns.user.slice(inUser + RESULT_TEXT.length);
  const endLength = commonSuffix(toolTail, userTail).length;
  const before = turns.tool.slice(headerLength, at);
  const after = toolTail.slice(0, toolTail.length - endLength);
  const isMarkup = (text: string) => text.trim() === '' || /^[<[]/.test(text.trim());
  // Only a result written inside a turn like the user's (Hermes: `<|im_start|>user` then
  // `<tool_response>`); a turn of its own (`<|tool|>`, `<|im_start|>tool`) is the chat API's.
  const insideUserTurn = headerLength === inUser && endLength === userTail.length;
  if (!insideUserTurn || !isMarkup(before) || !isMarkup(after) || (before + after).trim() === '')
    return plain;
  return { each: `${before}{output}${after}`, join: '\n' };
}
