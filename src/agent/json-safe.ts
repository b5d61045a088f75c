/**
 * Any value a tool returns or throws, as JSON data that every protocol can write and every
 * consumer can `JSON.stringify` or `structuredClone`. A tool is code the run does not control: its
 * value may be circular, hold a BigInt, be a Proxy whose traps throw, or have a getter or `toJSON`
 * that throws. Reading it never throws here; what JSON cannot write becomes text that says what
 * it was.
 *
 * The rules are JSON.stringify's (`toJSON` is called, non-finite numbers are null, `undefined` is
 * left out of objects and null in arrays), extended where JSON.stringify would throw or drop a
 * value without a trace:
 * - a BigInt is the string of its digits;
 * - a function is `"[function name]"`, a symbol `"[Symbol(description)]"`;
 * - an Error is `"Name: message"`;
 * - a reference to an enclosing object is `"[circular]"`;
 * - nesting deeper than `maxDepth` is `"[nested too deep]"`;
 * - a value whose reading throws is `"[unreadable: why]"`.
 */

export interface JsonSafeCopy {
  /** The copy: a string, number, boolean, null, or plain arrays and objects of those. */
  readonly value: unknown;
  /**
   * False when the copy stopped early because its JSON text passed `maxChars`: the value is
   * larger than that, and the copy holds only its beginning.
   */
  readonly complete: boolean;
}

export interface JsonSafeOptions {
  /**
   * Roughly how many characters of compact JSON to copy before stopping. The walk is bounded by
   * it, so a value that builds itself as it is read (a getter returning a new object each time)
   * cannot keep it going.
   */
  readonly maxChars: number;
  /** Deepest nesting copied. Default 100. */
  readonly maxDepth?: number;
}

const DEFAULT_MAX_DEPTH = 100;

/** Left out of an object, null in an array: what JSON.stringify does with `undefined`. */
const OMIT: unique symbol = Symbol('omit');

export function toJsonSafe(value: unknown, options: JsonSafeOptions): JsonSafeCopy {
  const walk = new SafeWalk(options.maxChars, options.maxDepth ?? DEFAULT_MAX_DEPTH);
  const copy = walk.copy(value, '', 0);
  return { value: copy === OMIT ? null : copy, complete: walk.complete };
}

class SafeWalk {
  /** Characters of compact JSON copied so far (escapes not counted: a lower bound). */
  private chars = 0;
  complete = true;
  /** The objects being copied, outermost first: a value among them is a cycle. */
  private readonly ancestors = new Set<object>();

  private readonly maxChars: number;
  private readonly maxDepth: number;

  constructor(maxChars: number, maxDepth: number) {
    this.maxChars = maxChars;
    this.maxDepth = maxDepth;
  }

  private full(): boolean {
    if (this.chars <= this.maxChars) return false;
    this.complete = false;
    return true;
  }

  copy(input: unknown, key: string, depth: number): unknown {
    let value = input;
    if ((typeof value === 'object' && value !== null) || typeof value === 'function') {
      try {
        const toJSON = (value as { toJSON?: unknown }).toJSON;
        if (typeof toJSON === 'function') value = toJSON.call(value, key);
      } catch (error) {
        return this.text(unreadable(error));
      }
    }
    switch (typeof value) {
      case 'string':
        return this.text(value);
      case 'number':
        this.chars += 4;
        return Number.isFinite(value) ? value : null;
      case 'boolean':
        this.chars += 5;
        return value;
      case 'bigint':
        return this.text(value.toString());
      case 'undefined':
        this.chars += 4;
        return OMIT;
      case 'symbol':
        return this.text(`[${safeString(value)}]`);
      case 'function':
        return this.text(`[function ${functionName(value)}]`);
      default:
        if (value === null) {
          this.chars += 4;
          return null;
        }
        return this.object(value as object, depth);
    }
  }

  private text(value: string): string {
    this.chars += value.length + 2;
    return value;
  }

  private object(value: object, depth: number): unknown {
    if (this.ancestors.has(value)) return this.text('[circular]');
    if (depth >= this.maxDepth) return this.text('[nested too deep]');
    try {
      const unboxed = unbox(value);
      if (unboxed !== undefined) return this.copy(unboxed.value, '', depth);
      if (value instanceof Error) return this.text(describeErrorObject(value));
      this.ancestors.add(value);
      this.chars += 2;
      return Array.isArray(value) ? this.array(value, depth) : this.record(value, depth);
    } catch (error) {
      return this.text(unreadable(error));
    } finally {
      this.ancestors.delete(value);
    }
  }

  private array(value: readonly unknown[], depth: number): unknown[] {
    const out: unknown[] = [];
    const length = Number(value.length);
    for (let index = 0; index < length; index++) {
      if (this.full()) break;
      this.chars += 1;
      const item = this.property(value, String(index), depth);
      out.push(item === OMIT ? null : item);
    }
    return out;
  }

  private record(value: object, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    // Own enumerable string keys, as JSON.stringify reads them. Listing them costs what the tool
    // spent building them; reading their values stops at the budget.
    for (const key of Object.keys(value)) {
      if (this.full()) break;
      const item = this.property(value, key, depth);
      if (item === OMIT) continue;
      this.chars += key.length + 4;
      this.define(out, key, item);
    }
    return out;
  }

  /** Defined, not assigned: a key named `__proto__` is data, not the copy's prototype. */
  private define(out: Record<string, unknown>, key: string, item: unknown): void {
    Object.defineProperty(out, key, {
      value: item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }

  private property(container: object, key: string, depth: number): unknown {
    let item: unknown;
    try {
      item = (container as Record<string, unknown>)[key];
    } catch (error) {
      return this.text(unreadable(error));
    }
    return this.copy(item, key, depth + 1);
  }
}

/** The primitive inside `new Number(1)`, `new String('a')`…, as JSON.stringify unwraps them. */
function unbox(value: object): { value: unknown } | undefined {
  if (value instanceof Number) return { value: Number(value) };
  if (value instanceof String) return { value: String(value) };
  if (value instanceof Boolean) return { value: value.valueOf() };
  if (value instanceof BigInt) return { value: value.valueOf() };
  return undefined;
}

function unreadable(error: unknown): string {
  return `[unreadable: ${describeThrown(error)}]`;
}

/**
 * A thrown value in words, without reading more of it than is safe: an Error's message, a
 * string as it is, anything else by its type. Never throws.
 */
export function describeThrown(error: unknown): string {
  try {
    if (typeof error === 'string') return error;
    if (error instanceof Error) return describeErrorObject(error);
    return safeString(error);
  } catch {
    return `an unreadable ${typeof error}`;
  }
}

function describeErrorObject(error: Error): string {
  const name = readString(error, 'name') ?? 'Error';
  const message = readString(error, 'message');
  return message ? `${name}: ${message}` : name;
}

function readString(value: object, key: string): string | undefined {
  try {
    const read = (value as Record<string, unknown>)[key];
    return typeof read === 'string' ? read : undefined;
  } catch {
    return undefined;
  }
}

function functionName(value: unknown): string {
  const name = readString(value as object, 'name');
  return name || 'anonymous';
}

/** `String(value)`, or the value's type when even that throws (no `toString`, or one that throws). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return `an unreadable ${typeof value}`;
  }
}
