/**
 * The runtime values of `@huggingface/jinja`, as this module's additions make and read them: the
 * library exports no value classes, so they are taken from values it makes; and Python's
 * `str()`, `repr()` and truth of a value, as Python's jinja2 prints them.
 */
import { Environment } from '@huggingface/jinja';

/** A runtime value of the library (its classes are not exported; their instances are). */
export type Value = ReturnType<Environment['lookupVariable']>;
export type NativeFunction = (args: Value[], scope: Environment) => Value;
type ValueClass = new (value: unknown) => Value;

const sample = new Environment();
const classOf = (name: string, value: unknown) =>
  sample.set(name, value).constructor as unknown as ValueClass;
export const StringValue = classOf('s', '');
export const IntegerValue = classOf('i', 1);
export const FloatValue = classOf('f', 1.5);
export const BooleanValue = classOf('b', true);
export const ArrayValue = classOf('a', []);
export const ObjectValue = classOf('o', {});
export const NullValue = classOf('n', null);
export const UndefinedValue = classOf('u', undefined);
export const FunctionValue = classOf('fn', () => null) as unknown as new (
  fn: NativeFunction,
) => Value;

export const str = (value: string) => new StringValue(value);
export const int = (value: number) => new IntegerValue(value);
export const num = (value: number, float: boolean) => (float ? new FloatValue(value) : int(value));
export const bool = (value: boolean) => new BooleanValue(value);
export const list = (items: Value[]) => new ArrayValue(items);
export const NONE = () => new NullValue(undefined);
export const UNDEFINED = () => new UndefinedValue(undefined);

export const is = (value: Value, ...types: string[]) => types.includes(value.type);
export const isString = (value: Value) => value.type === 'StringValue';
export const isNumber = (value: Value) => is(value, 'IntegerValue', 'FloatValue');
export const isList = (value: Value) => is(value, 'ArrayValue', 'TupleValue');
export const isMapping = (value: Value) => is(value, 'ObjectValue', 'KeywordArgumentsValue');
export const isKeywords = (value: Value | undefined) => value?.type === 'KeywordArgumentsValue';
export const entriesOf = (value: Value) => value.value as Map<string, Value>;
export const itemsOf = (value: Value) => value.value as Value[];

/** Splits a call's arguments into positional ones and keyword ones. */
export function splitArguments(args: Value[]): [Value[], Map<string, Value>] {
  const last = args.at(-1);
  if (last !== undefined && isKeywords(last)) return [args.slice(0, -1), entriesOf(last)];
  return [args, new Map()];
}

export function pythonStr(value: Value): string {
  switch (value.type) {
    case 'StringValue':
      return value.value as string;
    case 'UndefinedValue':
      return '';
    default:
      return pythonRepr(value);
  }
}

export function pythonRepr(value: Value): string {
  switch (value.type) {
    case 'StringValue':
      return quotePython(value.value as string);
    case 'IntegerValue':
      return String(value.value);
    case 'FloatValue':
      return floatRepr(value.value as number);
    case 'BooleanValue':
      return value.value ? 'True' : 'False';
    case 'NullValue':
    case 'UndefinedValue':
      return 'None';
    case 'ArrayValue':
      return `[${itemsOf(value).map(pythonRepr).join(', ')}]`;
    case 'TupleValue': {
      const items = itemsOf(value).map(pythonRepr);
      return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
    }
    case 'ObjectValue':
    case 'KeywordArgumentsValue':
    case 'NamespaceValue':
      return `{${[...entriesOf(value)].map(([key, item]) => `${quotePython(key)}: ${pythonRepr(item)}`).join(', ')}}`;
    default:
      return String(value.value);
  }
}

function floatRepr(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

function quotePython(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    if (char === '\\') out += '\\\\';
    else if (char === quote) out += `\\${quote}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else out += char;
  }
  return out + quote;
}

export function truthy(value: Value): boolean {
  return Boolean((value as unknown as { __bool__(): Value }).__bool__().value);
}
