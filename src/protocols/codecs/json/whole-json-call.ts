import type { ValuePolicy } from '../../../core/index.ts';
import { BACKSLASH, DIGIT_NINE, DIGIT_ZERO, LEFT_BRACE } from '../../../scan/char-codes.ts';
import { isWhiteSpace } from '../../../scan/characters.ts';
import { asJsonReadsIt } from '../../../scan/json-value-streamer.ts';
import { parseJson } from '../../../scan/lenient-json.ts';
import { createValuePolicy } from '../../../schema/index.ts';
import { CallAssembler } from '../../engine/call-assembler.ts';
import type { CallContext } from '../../engine/call-body.ts';
import { workMeter } from '../../engine/work-meter.ts';
import type { JsonCallShape } from './json-call-config.ts';

/*
 * Why this exists: a model's output usually reaches the parser in large pushes (the AI SDK
 * middleware joins what was already delivered), so a `<tool_call>{…}</tool_call>` is most often
 * whole in the text its body first sees. Streaming that JSON through the character-level
 * tokenizer costs several times what the native `JSON.parse` does. So, on a call body's first
 * write, when the call's closer is already there, the call is read in one piece here: it must be
 * exactly the plain shape (`{"name": "<declared tool>", "arguments": {…}}`, nothing else), and its
 * input is made exactly as the streaming path makes it (the same coercion, held/streamed value by
 * value, and the same canonical JSON text), so the events are the same as a one-push streaming
 * parse: `tool-input-start`, one `tool-input-delta`, `tool-input-end`, `tool-call`. Anything else
 * gives up having emitted nothing, and the streaming path reads the call as before. Giving up
 * costs one look at the call's text (the closer search is remembered per text, so calls that end
 * without a closer do not search the same text again and again).
 */

/** Nesting deeper than this is left to the streaming path (its tokenizer has a depth limit). */
const MAX_DEPTH = 64;

/** The last closer search in one parser's text: the first `closer` at or after `from` is at `found`. */
interface CloserSearch {
  text: string;
  closer: string;
  from: number;
  found: number;
}

/**
 * Per parser, by its resolved options (one object per parser, shared by every context a body
 * wraps around the engine's): keyed by the context a body was given, a body that wraps its own
 * per call (JsonCallsBody does) searched the rest of the text again at every opener with no
 * closer after it, quadratic in a text of such openers.
 */
const closerSearches = new WeakMap<object, CloserSearch>();

/** Index of the first `closer` at or after `from` in `text` (-1: none), searching each text once. */
function findCloser(context: CallContext, text: string, closer: string, from: number): number {
  const key = context.options;
  const last = closerSearches.get(key);
  if (
    last !== undefined &&
    last.text === text &&
    last.closer === closer &&
    from >= last.from &&
    (last.found === -1 || from <= last.found)
  ) {
    return last.found;
  }
  const found = text.indexOf(closer, from);
  workMeter.characters += (found === -1 ? text.length : found) - from;
  if (last === undefined) closerSearches.set(key, { text, closer, from, found });
  else {
    last.text = text;
    last.closer = closer;
    last.from = from;
    last.found = found;
  }
  return found;
}

/** Thrown (and caught below) when the arguments hold something the fast path does not decide. */
const GIVE_UP: unique symbol = Symbol('give up');
/** A property whose coerced value is undefined: JSON has no undefined, so it is left out. */
const OMIT: unique symbol = Symbol('omit');

/**
 * The first unescaped quote in `text[from, end)`, or -1: in JSON text, where a string (a key or
 * a value) begins or ends.
 */
function quoteAt(text: string, from: number, end: number): number {
  let index = text.indexOf('"', from);
  while (index !== -1 && index < end) {
    let before = index - 1;
    while (before >= from && text.charCodeAt(before) === BACKSLASH) before--;
    if ((index - 1 - before) % 2 === 0) return index;
    index = text.indexOf('"', index + 1);
  }
  return -1;
}

/**
 * Reads the parsed arguments as the streaming path reads them (json-value-streamer): strings,
 * objects and arrays whose kind the policy lets stream are kept (their children read in turn);
 * every other value is held, coerced whole, and replaced by what `JSON.parse` reads back from
 * its JSON text. The source's string literals are walked in document order beside the value, so
 * a repeated key (which leaves the source with literals over) is seen. The streaming path's text
 * is `JSON.stringify` of the value it settles (see json-writer), so the input's text is that of
 * the settled value, written at once: a flat string, not a tree of pieces of the source, which
 * a text of many calls kept alive (the parts of 100k calls held twice the floor reader's bytes).
 */
class ArgumentsReader {
  /** Where the next string literal is looked for in the source. */
  cursor: number;
  private readonly text: string;
  private readonly end: number;

  constructor(text: string, start: number, end: number) {
    this.text = text;
    this.cursor = start;
    this.end = end;
  }

  /**
   * Finds the next string literal of the source. Strings are read in document order, so the
   * literal is the string being read, unless a key repeats (then the source runs out of
   * literals, or has some left over at the end: see readWholeJsonCall).
   */
  skipString(): void {
    const open = quoteAt(this.text, this.cursor, this.end);
    const close = open === -1 ? -1 : quoteAt(this.text, open + 1, this.end);
    if (close === -1) throw GIVE_UP;
    this.cursor = close + 1;
  }

  /**
   * The settled value of `raw`, read under `policy`; OMIT for a held property whose coerced
   * value is undefined (JSON.stringify leaves it out, as the streaming writer does).
   */
  settle(raw: unknown, policy: ValuePolicy, inObject: boolean, depth: number): unknown {
    if (typeof raw === 'string') {
      this.skipString();
      if (policy.streams('string')) return raw;
    } else if (typeof raw === 'object' && raw !== null) {
      if (depth > MAX_DEPTH) throw GIVE_UP;
      if (Array.isArray(raw)) {
        if (policy.streams('array')) {
          for (let index = 0; index < raw.length; index++) {
            const item = raw[index];
            const settled = this.settle(item, policy.item(index), false, depth + 1);
            if (!Object.is(settled, item)) raw[index] = settled;
          }
          return raw;
        }
      } else if (policy.streams('object')) {
        const object = raw as Record<string, unknown>;
        for (const key of Object.keys(object)) {
          checkKey(key);
          this.skipString();
          const value = object[key];
          const member = this.settle(value, policy.property(key), true, depth + 1);
          if (member === OMIT) delete object[key];
          else if (!Object.is(member, value)) object[key] = member;
        }
        return object;
      }
      for (let count = countStrings(raw, depth); count > 0; count--) this.skipString();
    }
    // Held: coerced whole, then as JSON reads it back, as the streamer settles it.
    const coerced = policy.coerce(raw);
    // JSON has no undefined: a property disappears, anything else becomes null.
    if (coerced === undefined && inObject) return OMIT;
    return asJsonReadsIt(coerced === undefined ? null : coerced);
  }
}

/**
 * A key the streaming path might read differently: integer-like keys, which objects list first
 * whatever their place in the source, and `__proto__`.
 */
function checkKey(key: string): void {
  const first = key.charCodeAt(0);
  if ((first >= DIGIT_ZERO && first <= DIGIT_NINE) || key === '__proto__') throw GIVE_UP;
}

/** The strings (keys and string values) of a held value, checking its keys. */
function countStrings(raw: object, depth: number): number {
  if (depth > MAX_DEPTH) throw GIVE_UP;
  let count = 0;
  if (Array.isArray(raw)) {
    for (const item of raw) {
      if (typeof item === 'string') count++;
      else if (typeof item === 'object' && item !== null) count += countStrings(item, depth + 1);
    }
    return count;
  }
  const object = raw as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    checkKey(key);
    count++;
    const member = object[key];
    if (typeof member === 'string') count++;
    else if (typeof member === 'object' && member !== null)
      count += countStrings(member, depth + 1);
  }
  return count;
}

/**
 * Reads a whole call from `text[start, end)`, the first text its body is given (just after the
 * opener), when the call ends in it with `closer` and is exactly one plain call object naming a
 * declared tool. Emits the call and returns the index just after the closer; returns -1, having
 * emitted nothing, for anything else.
 */
export function readWholeJsonCall(
  context: CallContext,
  shape: JsonCallShape,
  closer: string,
  text: string,
  start: number,
  end: number,
): number {
  let jsonStart = start;
  while (jsonStart < end && isWhiteSpace(text.charCodeAt(jsonStart))) jsonStart++;
  if (jsonStart >= end || text.charCodeAt(jsonStart) !== LEFT_BRACE) return -1;
  const closerAt = findCloser(context, text, closer, jsonStart);
  if (closerAt === -1 || closerAt + closer.length > end) return -1;
  // White space before the closer is JSON's own (space, tab, line breaks): JSON.parse takes it.
  // Deep JSON is not read here (undefined): the streaming body reports it.
  const envelope = parseJson(text.slice(jsonStart, closerAt), {
    maxDepth: context.options.maxDepth,
  });
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) return -1;

  const keys = Object.keys(envelope);
  if (keys.length !== 2) return -1;
  const record = envelope as Record<string, unknown>;
  const [first, second] = keys as [string, string];
  let nameKey: string;
  let argumentsKey: string;
  if (shape.nameKeys.includes(first) && shape.argumentKeys.includes(second)) {
    nameKey = first;
    argumentsKey = second;
  } else if (shape.nameKeys.includes(second) && shape.argumentKeys.includes(first)) {
    nameKey = second;
    argumentsKey = first;
  } else return -1;
  const name = record[nameKey];
  const rawArguments = record[argumentsKey];
  if (typeof name !== 'string') return -1;
  if (typeof rawArguments !== 'object' || rawArguments === null || Array.isArray(rawArguments)) {
    return -1;
  }
  const tool = context.options.toolsByName.get(name);
  if (tool === undefined) return -1;

  // The source's strings are read in order: the envelope's, then the arguments' own.
  const reader = new ArgumentsReader(text, jsonStart, closerAt);
  const argumentsFirst = keys[0] === argumentsKey;
  let input: unknown;
  try {
    // The arguments' key first, or the name's key and value and the arguments' key.
    for (let count = argumentsFirst ? 1 : 3; count > 0; count--) reader.skipString();
    input = reader.settle(rawArguments, createValuePolicy(tool.inputSchema), false, 1);
    // What is left holds just the name's key and value, if they come last: no key was repeated
    // (JSON.parse keeps a repeated key's last value, the streaming path its first), so every
    // string read matched its literal.
    if (argumentsFirst) {
      reader.skipString();
      reader.skipString();
    }
  } catch (error) {
    if (error === GIVE_UP) return -1;
    throw error;
  }
  // Only punctuation and white space may follow (a quote there begins a string left over).
  if (text.slice(reader.cursor, closerAt).includes('"')) return -1;

  new CallAssembler(context, tool).completeWhole(JSON.stringify(input), input);
  return closerAt + closer.length;
}
