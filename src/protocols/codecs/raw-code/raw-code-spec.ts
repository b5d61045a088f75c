/**
 * Raw code as a call: what a format says of the code its code interpreter receives
 * (`<|python_tag|>print(1)<|eom_id|>`, Functionary's `>>>python\nprint(1)`), as plain data, and
 * its check. The code is one argument (`{"code": …}`) of the first declared of the named tools.
 */

/** How raw code becomes a call. */
export interface RawCodeSpec {
  /**
   * The code interpreter's names, in order: the first one declared receives the code. None
   * declared: the code is text.
   */
  readonly tools: readonly string[];
  /** The argument that holds the code. Default `code`. */
  readonly argument?: string;
  /** Literals that end the code beside the form's `close` (`<|eot_id|>` beside `<|eom_id|>`). */
  readonly closeAlternatives?: readonly string[];
  /** White space at the code's end is not code (Functionary's line break before `>>>`). */
  readonly trimEnd?: boolean;
}

/**
 * A call form whose body is raw code, from its opener to `close` (or one of the alternatives, or
 * the end of the output): `{ codec: 'raw-code', open: '<|python_tag|>', close: '<|eom_id|>',
 * tools: ['python'] }`.
 */
export interface RawCodeCallForm extends RawCodeSpec {
  readonly codec: 'raw-code';
  readonly open: string;
  readonly close?: string;
  readonly certainty?: 'explicit' | 'speculative';
  readonly inReasoning?: boolean;
  readonly perTool?: boolean;
}

/** The default argument name. */
export const RAW_CODE_ARGUMENT = 'code';

/** The fields a `RawCodeSpec` adds to a call form (for the spec's unknown-field check). */
export const RAW_CODE_FIELDS = ['tools', 'argument', 'closeAlternatives', 'trimEnd'] as const;

/** Longest tool or argument name. */
const MAX_NAME = 256;
/** Most tools or alternatives. */
const MAX_ENTRIES = 128;

/** A field of a raw-code spec that is wrong, and why. */
export interface RawCodeProblem {
  readonly field: string;
  readonly problem: string;
}

function isNameList(value: unknown): value is readonly string[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= MAX_ENTRIES &&
    value.every((item) => typeof item === 'string' && item.length > 0 && item.length <= MAX_NAME)
  );
}

/**
 * The first problem of the raw-code fields of a form read from JSON (`field` reads one field),
 * or undefined when they are right. Unknown fields are the caller's check (`RAW_CODE_FIELDS`).
 */
export function rawCodeProblem(field: (key: string) => unknown): RawCodeProblem | undefined {
  if (!isNameList(field('tools'))) {
    return {
      field: 'tools',
      problem: `must be a list of 1 to ${MAX_ENTRIES} tool names (non-empty strings)`,
    };
  }
  const argument = field('argument');
  if (
    argument !== undefined &&
    (typeof argument !== 'string' || argument.length === 0 || argument.length > MAX_NAME)
  ) {
    return { field: 'argument', problem: 'must be a non-empty string (the argument name)' };
  }
  const alternatives = field('closeAlternatives');
  if (alternatives !== undefined && !isNameList(alternatives)) {
    return { field: 'closeAlternatives', problem: 'must be a list of non-empty strings' };
  }
  const trimEnd = field('trimEnd');
  if (trimEnd !== undefined && typeof trimEnd !== 'boolean') {
    return { field: 'trimEnd', problem: 'must be true or false' };
  }
  return undefined;
}
