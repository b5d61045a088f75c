import { parseJsonText } from '../core/parse-json.ts';
import { setOwnProperty } from '../core/safe-object.ts';
import type { StreamableKind, ValuePolicy } from '../core/value-policy.ts';
import { decodeCanonicalString, type JsonTokenHandler } from './json-tokenizer.ts';
import { type CanonicalJsonWriter, createCanonicalJsonWriter } from './json-writer.ts';

export interface JsonValueStreamer extends JsonTokenHandler {
  stringSource(escaped: string): void;
  /**
   * The assembled value, coerced where the policy held it; `undefined` until complete. Once
   * complete it equals `JSON.parse` of the deltas (a held `1e400` is `null` here as it is there),
   * provided `keptStreamedStrings`.
   */
  readonly value: unknown;
  readonly isComplete: boolean;
  /**
   * Whether `value` has every string that streamed. False when they were not kept (see
   * `keepStreamedStrings`): `value` then has `''` or less for them, and only the deltas have them.
   */
  readonly keptStreamedStrings: boolean;
}

export interface JsonValueStreamerOptions {
  /**
   * Assemble the strings that stream into `value` too. Default `true`. A caller that keeps the
   * deltas anyway can pass `false` and read the value back with `JSON.parse` of the deltas: a
   * large streamed argument is then not kept twice. `value` has `''` for every streamed string.
   */
  readonly keepStreamedStrings?: boolean;
  /**
   * With `keepStreamedStrings`, stop keeping streamed strings once they add up to more than this
   * many characters (`keptStreamedStrings` turns false). Default: no limit. Lets a caller that
   * keeps the deltas take `value` as it is for small values, and read a large one back from the
   * deltas rather than keep it twice. Setting it also lets `stringSource` pieces stop the keeping
   * (see `stringSource`).
   */
  readonly maxKeptStringChars?: number;
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
  /** Strings: whether the text is kept for `value`, and the text so far. */
  keepsText: boolean;
  text: string;
  /** Objects: the key whose value comes next, and whether it repeats an earlier key. */
  key: string;
  repeatsKey: boolean;
}

const NO_OBJECT: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;
const NO_ARRAY: unknown[] = Object.freeze([]) as unknown as unknown[];

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
  return new StreamingJsonValue(
    policy,
    onDelta,
    options.keepStreamedStrings ?? true,
    options.maxKeptStringChars ?? Number.POSITIVE_INFINITY,
  );
}

/**
 * A held value as `JSON.parse` reads it back from what the writer wrote: numbers JSON cannot
 * write become `null`, `-0` becomes `0`. Only objects (held and coerced whole, rare) need the
 * round trip.
 */
export function asJsonReadsIt(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : null;
  if (typeof value !== 'object' || value === null) return value;
  const json = JSON.stringify(value);
  return json === undefined ? null : parseJsonText(json);
}

/** A class rather than closures: a streamer is made per tool call, and a class is one object. */
class StreamingJsonValue implements JsonValueStreamer {
  private readonly policy: ValuePolicy;
  private readonly writer: CanonicalJsonWriter;
  private keepStreamedStrings: boolean;
  private readonly maxKeptStringChars: number;
  /** The caller reads the value back from the deltas when strings are not kept. */
  private readonly readsBack: boolean;
  private keptStringChars = 0;
  private readonly frames: Frame[] = [];
  private started = false;
  private complete = false;
  private result: unknown = undefined;

  // Where the value starting now goes, set by placeValue().
  private placedMode = STREAMED;
  private placedPolicy: ValuePolicy;
  private placedHoldsRoot = false;

  constructor(
    policy: ValuePolicy,
    onDelta: (text: string) => void,
    keepStreamedStrings: boolean,
    maxKeptStringChars: number,
  ) {
    this.policy = policy;
    this.placedPolicy = policy;
    this.writer = createCanonicalJsonWriter(onDelta);
    this.keepStreamedStrings = keepStreamedStrings;
    this.maxKeptStringChars = maxKeptStringChars;
    this.readsBack = maxKeptStringChars !== Number.POSITIVE_INFINITY;
  }

  get keptStreamedStrings(): boolean {
    return this.keepStreamedStrings;
  }

  get value(): unknown {
    return this.result;
  }

  get isComplete(): boolean {
    return this.complete;
  }

  startObject(): void {
    this.startContainer(OBJECT);
  }

  endObject(): void {
    this.endContainer(OBJECT);
  }

  startArray(): void {
    this.startContainer(ARRAY);
  }

  endArray(): void {
    this.endContainer(ARRAY);
  }

  key(name: string): void {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined || frame.kind !== OBJECT) return;
    frame.key = name;
    frame.repeatsKey = frame.mode !== DROPPED && Object.hasOwn(frame.object, name);
  }

  startString(): void {
    if (!this.placeValue('string')) return;
    if (this.placedMode === STREAMED) this.writer.startString();
    this.pushFrame(STRING);
  }

  stringChunk(decoded: string): void {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined || frame.kind !== STRING || frame.mode === DROPPED) return;
    if (decoded === '') return;
    if (frame.keepsText) this.stringChunkKept(frame, decoded);
    if (frame.mode === STREAMED) this.writer.stringChunk(decoded);
  }

  /** Keeps a decoded piece of the string `frame`, unless streamed strings just passed the limit. */
  private stringChunkKept(frame: Frame, decoded: string): void {
    // A rope: most strings come in one piece, and a long one is flattened once, when it ends.
    if (frame.mode === STREAMED && !this.keepStreamed(decoded.length)) {
      frame.keepsText = false;
      frame.text = '';
    } else {
      frame.text += decoded;
    }
  }

  /**
   * A piece given as its canonical JSON text: written as it is. A streamed string's text is then
   * no longer kept when the caller can read the value back from the deltas (it set
   * `maxKeptStringChars`): decoding the piece to keep it would cost what passing it saved.
   */
  stringSource(escaped: string): void {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined || frame.kind !== STRING || frame.mode === DROPPED) return;
    if (escaped === '') return;
    if (frame.mode === STREAMED) {
      if (frame.keepsText && this.readsBack) {
        this.keepStreamedStrings = false;
        frame.keepsText = false;
        frame.text = '';
      }
      this.writer.stringSource(escaped);
    }
    if (frame.keepsText) this.stringChunkKept(frame, decodeCanonicalString(escaped));
  }

  endString(): void {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined || frame.kind !== STRING) return;
    this.frames.pop();
    if (frame.mode === STREAMED) this.writer.endString();
    this.settle(frame.text, frame.mode, frame.holdsRoot, frame.policy);
  }

  primitive(value: number | boolean | null): void {
    if (!this.placeValue(undefined)) return;
    this.settle(value, this.placedMode, this.placedHoldsRoot, this.placedPolicy);
  }

  /** Counts streamed characters about to be kept; false once past the limit (none are kept then). */
  private keepStreamed(length: number): boolean {
    this.keptStringChars += length;
    if (this.keptStringChars <= this.maxKeptStringChars) return true;
    this.keepStreamedStrings = false;
    return false;
  }

  /**
   * Decides how the value starting now is read: `kind` for values that could stream, undefined
   * for primitives. Returns false when no value may start here.
   */
  private placeValue(kind: StreamableKind | undefined): boolean {
    if (this.complete) return false;
    const parent = this.frames[this.frames.length - 1];
    let childPolicy: ValuePolicy;
    if (parent === undefined) {
      if (this.started) return false;
      this.started = true;
      childPolicy = this.policy;
    } else if (parent.kind === STRING) {
      return false;
    } else if (parent.kind === OBJECT && parent.repeatsKey) {
      this.placedMode = DROPPED;
      this.placedHoldsRoot = false;
      return true;
    } else if (parent.mode !== STREAMED) {
      // Inside a held or dropped value: no policy applies until the held value completes.
      this.placedMode = parent.mode;
      this.placedHoldsRoot = false;
      return true;
    } else if (parent.kind === OBJECT) {
      childPolicy = parent.policy.property(parent.key);
    } else {
      childPolicy = parent.policy.item(parent.array.length);
    }
    this.placedPolicy = childPolicy;
    if (kind !== undefined && childPolicy.streams(kind)) {
      this.placedMode = STREAMED;
      this.placedHoldsRoot = false;
      // A held child's key goes out with its value; a streamed one's goes out now.
      if (parent !== undefined && parent.kind === OBJECT) this.writer.key(parent.key);
    } else {
      this.placedMode = HELD;
      this.placedHoldsRoot = true;
    }
    return true;
  }

  private pushFrame(kind: number): void {
    const mode = this.placedMode;
    const building = mode !== DROPPED;
    this.frames.push({
      kind,
      mode,
      policy: this.placedPolicy,
      holdsRoot: this.placedHoldsRoot,
      object: building && kind === OBJECT ? {} : NO_OBJECT,
      array: building && kind === ARRAY ? [] : NO_ARRAY,
      keepsText: building && kind === STRING && (this.keepStreamedStrings || mode !== STREAMED),
      text: '',
      key: '',
      repeatsKey: false,
    });
  }

  /** A value finished: coerce and write it if it was held, then attach it to its parent. */
  private settle(value: unknown, mode: number, holdsRoot: boolean, valuePolicy: ValuePolicy): void {
    if (mode === DROPPED) return;
    let settled = value;
    const parent = this.frames[this.frames.length - 1];
    if (holdsRoot) {
      settled = valuePolicy.coerce(value);
      if (settled === undefined) {
        // JSON has no undefined: a property disappears, anything else becomes null.
        if (parent !== undefined && parent.kind === OBJECT) return;
        settled = null;
      }
      if (parent !== undefined && parent.kind === OBJECT) this.writer.key(parent.key);
      this.writer.value(settled);
      settled = asJsonReadsIt(settled);
    }
    if (parent === undefined) {
      this.result = settled;
      this.complete = true;
    } else if (parent.kind === OBJECT) {
      setOwnProperty(parent.object, parent.key, settled);
      // A second value without a new key would contradict this one: drop it.
      parent.repeatsKey = true;
    } else {
      parent.array.push(settled);
    }
  }

  private startContainer(kind: number): void {
    if (!this.placeValue(kind === OBJECT ? 'object' : 'array')) return;
    if (this.placedMode === STREAMED) {
      if (kind === OBJECT) this.writer.startObject();
      else this.writer.startArray();
    }
    this.pushFrame(kind);
  }

  private endContainer(kind: number): void {
    const frame = this.frames[this.frames.length - 1];
    if (frame === undefined || frame.kind !== kind) return;
    this.frames.pop();
    if (frame.mode === STREAMED) {
      if (kind === OBJECT) this.writer.endObject();
      else this.writer.endArray();
    }
    this.settle(
      kind === OBJECT ? frame.object : frame.array,
      frame.mode,
      frame.holdsRoot,
      frame.policy,
    );
  }
}
