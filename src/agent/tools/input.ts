import { InvalidToolInputError } from './errors.ts';

/** A tool's input once known to be a plain object. */
export type ToolInput = { readonly [parameter: string]: unknown };

/**
 * Checks that `input` is an object with no parameter outside `allowed`. The loop validates
 * against the schema too; this keeps the tools safe when called directly.
 */
export function readInput(tool: string, input: unknown, allowed: readonly string[]): ToolInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidToolInputError('', `${tool} expects an object of parameters.`);
  }
  for (const key of Object.keys(input)) {
    if (!allowed.includes(key)) {
      throw new InvalidToolInputError(
        key,
        `${tool} has no parameter ${JSON.stringify(key)}; its parameters are ${allowed.join(', ')}.`,
      );
    }
  }
  return input as ToolInput;
}

function own(input: ToolInput, name: string): unknown {
  return Object.hasOwn(input, name) ? input[name] : undefined;
}

export function requiredString(tool: string, input: ToolInput, name: string): string {
  const value = own(input, name);
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InvalidToolInputError(
      name,
      `${tool} needs the parameter ${name} as a non-empty string` +
        (value === undefined ? '; it is missing.' : `; got ${JSON.stringify(value)}.`),
    );
  }
  return value;
}

/** An optional string; absent, null and blank all mean "not given". */
export function optionalString(tool: string, input: ToolInput, name: string): string | undefined {
  const value = own(input, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw new InvalidToolInputError(
      name,
      `${tool}: ${name} must be a string; got ${JSON.stringify(value)}.`,
    );
  }
  return value.trim() === '' ? undefined : value;
}

/** An optional boolean; the text "true"/"false" is accepted because XML parameters are text. */
export function optionalBoolean(tool: string, input: ToolInput, name: string): boolean | undefined {
  const value = own(input, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (word === 'true') return true;
    if (word === 'false') return false;
  }
  throw new InvalidToolInputError(
    name,
    `${tool}: ${name} must be true or false; got ${JSON.stringify(value)}.`,
  );
}

/** An optional line number (1-based); digits as text are accepted for the same reason. */
export function optionalLineNumber(
  tool: string,
  input: ToolInput,
  name: string,
): number | undefined {
  const value = own(input, name);
  if (value === undefined || value === null) return undefined;
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : Number.NaN;
  if (!Number.isSafeInteger(number) || number < 1) {
    throw new InvalidToolInputError(
      name,
      `${tool}: ${name} must be a line number (an integer from 1); got ${JSON.stringify(value)}.`,
    );
  }
  return number;
}
