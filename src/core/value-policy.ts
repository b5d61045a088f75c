/** The JSON kinds a value can start as, when it can stream before it is complete. */
export type StreamableKind = 'object' | 'array' | 'string';

/**
 * How the value at one place inside a call's arguments may stream, decided from the tool's schema
 * at that place. A parser asks it before streaming a value: if the raw value's kind passes
 * coercion unchanged, it streams as it arrives (a long string argument shows up character by
 * character); otherwise the parser holds the whole value, coerces it, and emits it at once. This
 * keeps the promise that streamed deltas are a prefix of the final input.
 */
export interface ValuePolicy {
  /** True when a raw value of this kind is left unchanged by coercion at this level. */
  streams(kind: StreamableKind): boolean;
  /** The policy for a property of an object value. */
  property(key: string): ValuePolicy;
  /** The policy for an element of an array value. */
  item(index: number): ValuePolicy;
  /** Coerces a complete value (numbers and booleans written as text, a lone value for an array…). */
  coerce(value: unknown): unknown;
}

/** The policy of an unconstrained value: everything streams, nothing is coerced. */
export const UNCONSTRAINED_POLICY: ValuePolicy = {
  streams: () => true,
  property: () => UNCONSTRAINED_POLICY,
  item: () => UNCONSTRAINED_POLICY,
  coerce: (value) => value,
};
