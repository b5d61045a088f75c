import { setOwnProperty } from '../core/safe-object.ts';
import type { StreamableKind, ValuePolicy } from '../core/value-policy.ts';
import type { JsonTokenHandler } from './json-tokenizer.ts';
import { createCanonicalJsonWriter } from './json-writer.ts';

export interface JsonValueStreamer extends JsonTokenHandler {
  /** The assembled value, coerced where the policy held it; `undefined` until complete. */
  readonly value: unknown;
  readonly isComplete: boolean;
}

export interface JsonValueStreamerOptions {
  /**
   * Assemble the strings that stream into `value` too. Default `true`. A caller that keeps the
   * deltas anyway can pass `false` and read the value back with `JSON.parse` of the deltas: a
   * large streamed argument is then not kept twice. `value` has `''` for every streamed string.
   */
  readonly keepStreamedStrings?: boolean;
}

// How a value is being read.
/** Written through as it arrives. */
const STREAMED = 0;
/** Built silently, to be coerced and written whole when the held value completes. */
const HELD = 1;
/** A repeated key's value: read and dropped. */
const DROPPED = 2;

const OBJECT = 0;
const ARRAY = 1;
const STRING = 2;

/** An open object, array or string. */
interface Frame {
  readonly kind: number;
  readonly mode: number;
  /** Streamed frames: this value's policy (its children ask it). Held roots: the one to coerce with. */
  readonly policy: ValuePolicy;
  /** The outermost held value: coerced and written when it completes. */
  readonly holdsRoot: boolean;
  readonly object: Record<string, unknown>;
  readonly array: unknown[];
  readonly stringParts: string[];
  /** Objects: the key whose value comes next, and whether it repeats an earlier key. */
  key: string;
  repeatsKey: boolean;
}

const NO_OBJECT: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const NO_ARRAY: unknown[] = Object.freeze([]) as unknown as unknown[];
const NO_PARTS: string[] = Object.freeze([]) as unknown as string[];

/**
 * Builds a call's arguments from tokens while writing them as canonical JSON deltas. Where the
 * policy says a value's kind passes coercion unchanged (a string where a string is wanted) it
 * streams as it arrives; anything else, and every number, boolean and null, is held until
 * complete, coerced, and written whole. So the deltas are always a prefix of
 * `JSON.stringify(value)` and at the end all of it. A repeated key keeps its first value; the
 * repeat is read and dropped unseen, so nothing streamed is ever contradicted.
 *
 * Tolerates calls out of order (a protocol may drive it from its own syntax): they are ignored.
 */
export function createJsonValueStreamer(
  policy: ValuePolicy,
  onDelta: (text: string) => void,
  options: JsonValueStreamerOptions = {},
): JsonValueStreamer {
  const writer = createCanonicalJsonWriter(onDelta);
  const keepStreamedStrings = options.keepStreamedStrings ?? true;
  const frames: Frame[] = [];
  let started = false;
  let complete = false;
  let result: unknown;

  // Where the value starting now goes, set by placeValue().
  let placedMode = STREAMED;
  let placedPolicy = policy;
  let placedHoldsRoot = false;

  /**
   * Decides how the value starting now is read: `kind` for values that could stream, undefined
   * for primitives. Returns false when no value may start here.
   */
  function placeValue(kind: StreamableKind | undefined): boolean {
    if (complete) return false;
    const parent = frames[frames.length - 1];
    let childPolicy: ValuePolicy;
    if (parent === undefined) {
      if (started) return false;
      started = true;
      childPolicy = policy;
    } else if (parent.kind === STRING) {
      return false;
    } else if (parent.kind === OBJECT && parent.repeatsKey) {
      placedMode = DROPPED;
      placedHoldsRoot = false;
      return true;
    } else if (parent.mode !== STREAMED) {
      // Inside a held or dropped value: no policy applies until the held value completes.
      placedMode = parent.mode;
      placedHoldsRoot = false;
      return true;
    } else if (parent.kind === OBJECT) {
      childPolicy = parent.policy.property(parent.key);
    } else {
      childPolicy = parent.policy.item(parent.array.length);
    }
    placedPolicy = childPolicy;
    if (kind !== undefined && childPolicy.streams(kind)) {
      placedMode = STREAMED;
      placedHoldsRoot = false;
      // A held child's key goes out with its value; a streamed one's goes out now.
      if (parent !== undefined && parent.kind === OBJECT) writer.key(parent.key);
    } else {
      placedMode = HELD;
      placedHoldsRoot = true;
    }
    return true;
  }

  function pushFrame(kind: number): void {
    const building = placedMode !== DROPPED;
    frames.push({
      kind,
      mode: placedMode,
      policy: placedPolicy,
      holdsRoot: placedHoldsRoot,
      object: building && kind === OBJECT ? {} : NO_OBJECT,
      array: building && kind === ARRAY ? [] : NO_ARRAY,
      stringParts:
        building && kind === STRING && (keepStreamedStrings || placedMode !== STREAMED)
          ? []
          : NO_PARTS,
      key: '',
      repeatsKey: false,
    });
  }

  /** A value finished: coerce and write it if it was held, then attach it to its parent. */
  function settle(value: unknown, mode: number, holdsRoot: boolean, valuePolicy: ValuePolicy) {
    if (mode === DROPPED) return;
    let settled = value;
    const parent = frames[frames.length - 1];
    if (holdsRoot) {
      settled = valuePolicy.coerce(value);
      if (settled === undefined) {
        // JSON has no undefined: a property disappears, anything else becomes null.
        if (parent !== undefined && parent.kind === OBJECT) return;
        settled = null;
      }
      if (parent !== undefined && parent.kind === OBJECT) writer.key(parent.key);
      writer.value(settled);
    }
    if (parent === undefined) {
      result = settled;
      complete = true;
    } else if (parent.kind === OBJECT) {
      setOwnProperty(parent.object, parent.key, settled);
      // A second value without a new key would contradict this one: drop it.
      parent.repeatsKey = true;
    } else {
      parent.array.push(settled);
    }
  }

  function startContainer(kind: number): void {
    if (!placeValue(kind === OBJECT ? 'object' : 'array')) return;
    if (placedMode === STREAMED) {
      if (kind === OBJECT) writer.startObject();
      else writer.startArray();
    }
    pushFrame(kind);
  }

  function endContainer(kind: number): void {
    const frame = frames[frames.length - 1];
    if (frame === undefined || frame.kind !== kind) return;
    frames.pop();
    if (frame.mode === STREAMED) {
      if (kind === OBJECT) writer.endObject();
      else writer.endArray();
    }
    settle(kind === OBJECT ? frame.object : frame.array, frame.mode, frame.holdsRoot, frame.policy);
  }

  return {
    startObject: () => startContainer(OBJECT),
    endObject: () => endContainer(OBJECT),
    startArray: () => startContainer(ARRAY),
    endArray: () => endContainer(ARRAY),
    key(name) {
      const frame = frames[frames.length - 1];
      if (frame === undefined || frame.kind !== OBJECT) return;
      frame.key = name;
      frame.repeatsKey = frame.mode !== DROPPED && Object.hasOwn(frame.object, name);
    },
    startString() {
      if (!placeValue('string')) return;
      if (placedMode === STREAMED) writer.startString();
      pushFrame(STRING);
    },
    stringChunk(decoded) {
      const frame = frames[frames.length - 1];
      if (frame === undefined || frame.kind !== STRING || frame.mode === DROPPED) return;
      if (decoded === '') return;
      if (frame.stringParts !== NO_PARTS) frame.stringParts.push(decoded);
      if (frame.mode === STREAMED) writer.stringChunk(decoded);
    },
    endString() {
      const frame = frames[frames.length - 1];
      if (frame === undefined || frame.kind !== STRING) return;
      frames.pop();
      if (frame.mode === STREAMED) writer.endString();
      settle(frame.stringParts.join(''), frame.mode, frame.holdsRoot, frame.policy);
    },
    primitive(value) {
      if (!placeValue(undefined)) return;
      settle(value, placedMode, placedHoldsRoot, placedPolicy);
    },
    get value() {
      return result;
    },
    get isComplete() {
      return complete;
    },
  };
}
