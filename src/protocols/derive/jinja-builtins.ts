/**
 * What real chat templates call that `@huggingface/jinja` lacks, as globals over its runtime
 * values: the filters `format`, `min`, `max`, `sum`, `round`, `select`, `reject` and `string`
 * (Python's `str()`), string, list and dict methods (`.find`, `.count`, `.append`, `.update`…),
 * item lookup with integer dict keys, `%` and `~` as Python's jinja2 has them, Python's printing
 * of `None`/`True`/`False`, and the globals a render starts with (`raise_exception`, `range`, a
 * full `strftime_now`, `zip`, `dict`). jinja-environment.ts rewrites a template's syntax tree to
 * call them.
 */
import type { Environment } from '@huggingface/jinja';
import { ChatTemplateRaisedError } from './jinja-errors.ts';
import {
  bool,
  entriesOf,
  FloatValue,
  FunctionValue,
  int,
  is,
  isList,
  isMapping,
  isNumber,
  isString,
  itemsOf,
  list,
  type NativeFunction,
  NONE,
  num,
  ObjectValue,
  pythonRepr,
  pythonStr,
  splitArguments,
  str,
  truthy,
  UNDEFINED,
  type Value,
} from './jinja-values.ts';
import { braceFormat, percentFormat, strftime } from './python-format.ts';

/** Filters handled here (the library's own are kept for every other name). */
export const FILTERS = new Set([
  'format',
  'min',
  'max',
  'sum',
  'round',
  'select',
  'reject',
  'string',
]);

function applyFilter(name: string, operand: Value, args: Value[], environment: Environment): Value {
  const [positional, keywords] = splitArguments(args);
  const option = (index: number, key: string) => positional[index] ?? keywords.get(key);
  switch (name) {
    case 'format': {
      if (!isString(operand)) throw new Error('format filter expects a string');
      if (keywords.size > 0)
        return str(percentFormat(operand.value as string, new ObjectValue(keywords)));
      return str(percentFormat(operand.value as string, tuple(positional)));
    }
    case 'min':
    case 'max': {
      const attribute = keywords.get('attribute');
      const items = sequenceOf(operand);
      if (items.length === 0) return UNDEFINED();
      const key = (item: Value) =>
        attribute === undefined
          ? item
          : (entriesOf(item).get(String(attribute.value)) ?? UNDEFINED());
      let best = items[0]!;
      for (const item of items.slice(1)) {
        const order = compare(key(item), key(best));
        if (name === 'min' ? order < 0 : order > 0) best = item;
      }
      return best;
    }
    case 'sum': {
      const attribute = option(0, 'attribute');
      const start = option(1, 'start');
      let total = start === undefined ? 0 : Number(start.value);
      let float = start?.type === 'FloatValue';
      for (const item of sequenceOf(operand)) {
        const value = attribute === undefined ? item : entriesOf(item).get(String(attribute.value));
        if (value === undefined || !isNumber(value)) throw new Error('sum: not a number');
        total += Number(value.value);
        float ||= value.type === 'FloatValue';
      }
      return num(total, float);
    }
    case 'round': {
      if (!isNumber(operand)) throw new Error('round filter expects a number');
      const precision = Number(option(0, 'precision')?.value ?? 0);
      const method = String(option(1, 'method')?.value ?? 'common');
      const scale = 10 ** precision;
      const scaled = Number(operand.value) * scale;
      const rounded =
        method === 'floor'
          ? Math.floor(scaled)
          : method === 'ceil'
            ? Math.ceil(scaled)
            : roundHalfAwayFromZero(scaled);
      return new FloatValue(rounded / scale);
    }
    case 'select':
    case 'reject': {
      const testName = positional[0];
      const test =
        testName === undefined ? undefined : environment.tests.get(String(testName.value));
      if (testName !== undefined && test === undefined) {
        throw new Error(`Unknown test: ${String(testName.value)}`);
      }
      const kept = sequenceOf(operand).filter((item) => {
        const passes = test === undefined ? truthy(item) : test(item, ...positional.slice(1));
        return name === 'select' ? passes : !passes;
      });
      return list(kept);
    }
    case 'string':
      return str(pythonStr(operand));
    default:
      throw new Error(`unknown filter ${name}`);
  }
}

function roundHalfAwayFromZero(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

function tuple(items: Value[]): Value {
  const value = list(items);
  (value as { type: string }).type = 'TupleValue';
  return value;
}

function sequenceOf(value: Value): Value[] {
  if (isList(value)) return itemsOf(value);
  if (isString(value)) return [...(value.value as string)].map(str);
  if (isMapping(value)) return [...entriesOf(value).keys()].map(str);
  throw new Error(`'${value.type}' object is not iterable`);
}

function compare(a: Value, b: Value): number {
  if (isNumber(a) && isNumber(b)) return Number(a.value) - Number(b.value);
  const left = pythonStr(a);
  const right = pythonStr(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Methods handled here; any other stays the library's. */
export const METHODS = new Set([
  'find',
  'rfind',
  'count',
  'index',
  'rindex',
  'isdigit',
  'isnumeric',
  'isalpha',
  'isalnum',
  'isspace',
  'islower',
  'isupper',
  'join',
  'format',
  'strip',
  'lstrip',
  'rstrip',
  'removeprefix',
  'removesuffix',
  'splitlines',
  'zfill',
  'append',
  'extend',
  'insert',
  'pop',
  'remove',
  'update',
  'setdefault',
  'copy',
]);

function callMethod(object: Value, name: string, args: Value[], scope: Environment): Value {
  if (isString(object)) {
    const handled = stringMethod(object.value as string, name, args);
    if (handled !== undefined) return handled;
  } else if (isList(object)) {
    const handled = listMethod(itemsOf(object), name, args);
    if (handled !== undefined) return handled;
  } else if (isMapping(object) || object.type === 'NamespaceValue') {
    const own = entriesOf(object).get(name);
    if (own?.type === 'FunctionValue') return (own.value as NativeFunction)(args, scope);
    const handled = mappingMethod(entriesOf(object), name, args);
    if (handled !== undefined) return handled;
  }
  const builtins = (object as unknown as { builtins: Map<string, Value> }).builtins;
  const builtin = builtins?.get(name);
  if (builtin?.type === 'FunctionValue') return (builtin.value as NativeFunction)(args, scope);
  throw new Error(`'${object.type}' has no method ${name}()`);
}

function stringMethod(text: string, name: string, args: Value[]): Value | undefined {
  const [positional] = splitArguments(args);
  const arg = (index: number) => positional[index];
  const textArg = (index: number) => String(arg(index)?.value ?? '');
  switch (name) {
    case 'find':
      return int(text.indexOf(textArg(0), Number(arg(1)?.value ?? 0)));
    case 'rfind':
      return int(text.lastIndexOf(textArg(0)));
    case 'index':
    case 'rindex': {
      const at = name === 'index' ? text.indexOf(textArg(0)) : text.lastIndexOf(textArg(0));
      if (at < 0) throw new Error('substring not found');
      return int(at);
    }
    case 'count': {
      const needle = textArg(0);
      if (needle === '') return int(text.length + 1);
      return int(text.split(needle).length - 1);
    }
    case 'isdigit':
    case 'isnumeric':
      return bool(/^[0-9]+$/.test(text));
    case 'isalpha':
      return bool(/^\p{L}+$/u.test(text));
    case 'isalnum':
      return bool(/^[\p{L}\p{N}]+$/u.test(text));
    case 'isspace':
      return bool(/^\s+$/.test(text));
    case 'islower':
      return bool(text !== text.toUpperCase() && text === text.toLowerCase());
    case 'isupper':
      return bool(text !== text.toLowerCase() && text === text.toUpperCase());
    case 'join':
      return str(
        sequenceOf(arg(0) ?? list([]))
          .map(pythonStr)
          .join(text),
      );
    case 'format':
      return str(braceFormat(text, args));
    case 'strip':
    case 'lstrip':
    case 'rstrip': {
      const chars = arg(0);
      if (chars === undefined || chars.type === 'NullValue') return undefined;
      return str(stripChars(text, String(chars.value), name));
    }
    case 'removeprefix':
      return str(text.startsWith(textArg(0)) ? text.slice(textArg(0).length) : text);
    case 'removesuffix': {
      const suffix = textArg(0);
      return str(suffix !== '' && text.endsWith(suffix) ? text.slice(0, -suffix.length) : text);
    }
    case 'splitlines':
      return list(
        text
          .split(/\r\n|\r|\n/)
          .filter((line, index, all) => index < all.length - 1 || line !== '')
          .map(str),
      );
    case 'zfill':
      return str(text.padStart(Number(arg(0)?.value ?? 0), '0'));
    default:
      return undefined;
  }
}

function stripChars(text: string, chars: string, side: string): string {
  let start = 0;
  let end = text.length;
  if (side !== 'rstrip') while (start < end && chars.includes(text[start]!)) start++;
  if (side !== 'lstrip') while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

function listMethod(items: Value[], name: string, args: Value[]): Value | undefined {
  const [positional] = splitArguments(args);
  const same = (a: Value, b: Value) => a.type === b.type && pythonRepr(a) === pythonRepr(b);
  switch (name) {
    case 'append':
      items.push(positional[0] ?? NONE());
      return NONE();
    case 'extend':
      items.push(...sequenceOf(positional[0] ?? list([])));
      return NONE();
    case 'insert': {
      const at = Number(positional[0]?.value ?? 0);
      items.splice(at < 0 ? Math.max(items.length + at, 0) : at, 0, positional[1] ?? NONE());
      return NONE();
    }
    case 'pop': {
      if (items.length === 0) throw new Error('pop from empty list');
      const at = Number(positional[0]?.value ?? -1);
      const [removed] = items.splice(at < 0 ? items.length + at : at, 1);
      return removed ?? NONE();
    }
    case 'remove': {
      const at = items.findIndex((item) => same(item, positional[0] ?? NONE()));
      if (at < 0) throw new Error('list.remove(x): x not in list');
      items.splice(at, 1);
      return NONE();
    }
    case 'index': {
      const at = items.findIndex((item) => same(item, positional[0] ?? NONE()));
      if (at < 0) throw new Error('value is not in list');
      return int(at);
    }
    case 'count':
      return int(items.filter((item) => same(item, positional[0] ?? NONE())).length);
    case 'copy':
      return list(items.slice());
    default:
      return undefined;
  }
}

function mappingMethod(
  entries: Map<string, Value>,
  name: string,
  args: Value[],
): Value | undefined {
  const [positional, keywords] = splitArguments(args);
  switch (name) {
    case 'update': {
      const source = positional[0];
      if (source !== undefined && isMapping(source)) {
        for (const [key, value] of entriesOf(source)) entries.set(key, value);
      } else if (source !== undefined && isList(source)) {
        for (const pair of itemsOf(source)) {
          const [key, value] = itemsOf(pair);
          entries.set(pythonStr(key ?? NONE()), value ?? NONE());
        }
      }
      for (const [key, value] of keywords) entries.set(key, value);
      return NONE();
    }
    case 'setdefault': {
      const key = pythonStr(positional[0] ?? NONE());
      if (!entries.has(key)) entries.set(key, positional[1] ?? NONE());
      return entries.get(key)!;
    }
    case 'pop': {
      const key = pythonStr(positional[0] ?? NONE());
      const value = entries.get(key);
      if (value === undefined) {
        if (positional[1] !== undefined) return positional[1];
        throw new Error(`KeyError: ${key}`);
      }
      entries.delete(key);
      return value;
    }
    case 'copy':
      return new ObjectValue(new Map(entries));
    default:
      return undefined;
  }
}

/**
 * `item in container` as Python: an element of a list, a substring, a key of a dict. The
 * library refuses `none in [...]` (a schema's missing `format` is `none`); Python says false.
 */
function contains(container: Value, item: Value): boolean {
  if (isList(container)) {
    return itemsOf(container).some(
      (each) => each.type === item.type && pythonRepr(each) === pythonRepr(item),
    );
  }
  if (isString(container))
    return isString(item) && (container.value as string).includes(item.value as string);
  if (isMapping(container) || container.type === 'NamespaceValue') {
    return isString(item) && entriesOf(container).has(item.value as string);
  }
  return false;
}

/**
 * `a < b` (and `<=`, `>`, `>=`) as Python: numbers by value, strings by code point. A number and
 * a string of digits compare as numbers: a dict written with integer keys holds them as strings
 * here (Seed-OSS compares its budget with such keys); Python would never see the string.
 */
function ordered(left: Value, right: Value, operator: string): boolean {
  const numeric = (value: Value) =>
    isNumber(value) || value.type === 'BooleanValue'
      ? Number(value.value)
      : isString(value) && /^-?[0-9]+(\.[0-9]+)?$/.test(value.value as string)
        ? Number(value.value)
        : undefined;
  let order: number;
  if (isString(left) && isString(right)) {
    const a = left.value as string;
    const b = right.value as string;
    order = a < b ? -1 : a > b ? 1 : 0;
  } else {
    const a = numeric(left);
    const b = numeric(right);
    if (a === undefined || b === undefined) {
      throw new Error(`Unknown operator "${operator}" between ${left.type} and ${right.type}`);
    }
    order = a - b;
  }
  switch (operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    default:
      return order >= 0;
  }
}

/** `a * b` as Python: numbers multiplied, a string or list repeated (`' ' * indent`). */
function times(left: Value, right: Value): Value {
  if (isNumber(left) && isNumber(right)) {
    return num(
      Number(left.value) * Number(right.value),
      is(left, 'FloatValue') || is(right, 'FloatValue'),
    );
  }
  const [sequence, count] = isNumber(left) ? [right, left] : [left, right];
  if (count.type === 'IntegerValue') {
    const repeat = Math.max(0, count.value as number);
    const length = isString(sequence)
      ? (sequence.value as string).length
      : isList(sequence)
        ? itemsOf(sequence).length
        : 0;
    if (length * repeat > MAX_REPEAT) throw new Error(`"*" makes more than ${MAX_REPEAT} items`);
    if (isString(sequence)) return str((sequence.value as string).repeat(repeat));
    if (isList(sequence)) {
      return list(Array.from({ length: repeat }, () => itemsOf(sequence)).flat());
    }
  }
  throw new Error(`Unknown operator "*" between ${left.type} and ${right.type}`);
}

/** `object[key]`, as the library reads it, plus integer keys of a dict (`{1: "a"}[1]`). */
function itemOf(object: Value, key: Value): Value {
  if (isMapping(object) || object.type === 'NamespaceValue') {
    const name = isString(key) ? (key.value as string) : pythonStr(key);
    const found = entriesOf(object).get(name);
    if (found !== undefined) return found;
    const builtins = (object as unknown as { builtins?: Map<string, Value> }).builtins;
    return (isString(key) ? builtins?.get(name) : undefined) ?? UNDEFINED();
  }
  if (isList(object) || isString(object)) {
    if (key.type === 'IntegerValue') {
      const index = key.value as number;
      if (isString(object)) {
        const char = (object.value as string).at(index);
        return char === undefined ? UNDEFINED() : str(char);
      }
      return itemsOf(object).at(index) ?? UNDEFINED();
    }
    if (isString(key)) {
      const builtins = (object as unknown as { builtins?: Map<string, Value> }).builtins;
      return builtins?.get(key.value as string) ?? UNDEFINED();
    }
    throw new Error(`Cannot access property with non-string/non-number: got ${key.type}`);
  }
  if (object.type === 'UndefinedValue') return UNDEFINED();
  if (isString(key)) {
    const builtins = (object as unknown as { builtins?: Map<string, Value> }).builtins;
    return builtins?.get(key.value as string) ?? UNDEFINED();
  }
  throw new Error(`Cannot access property with non-string: got ${key.type}`);
}

export const FILTER_GLOBAL = '__toolwire_filter';
export const METHOD_GLOBAL = '__toolwire_method';
export const PERCENT_GLOBAL = '__toolwire_percent';
export const ITEM_GLOBAL = '__toolwire_item';
export const OUTPUT_GLOBAL = '__toolwire_output';
export const CONCAT_GLOBAL = '__toolwire_concat';
export const TEST_GLOBAL = '__toolwire_test';

/**
 * Tests handled here (the library's own are kept for every other name; the library gives each
 * nested scope its own copy of its tests, so tests are supplied by rewriting, not by its map).
 */
export const TESTS = new Map<string, (value: Value) => boolean>([
  ['float', (value) => value.type === 'FloatValue'],
  // Python's jinja: a dict is iterable too (its keys). The library says no, which sends
  // templates down their fallback branch (Gemma 3's writes `f({json})` instead of `f(k=v)`).
  ['iterable', (value) => isString(value) || isList(value) || isMapping(value)],
]);

/** The most numbers `range()` makes (templates count messages and tools, not millions). */
const MAX_RANGE = 100_000;
/** The longest string or list `*` makes (indentation, not megabytes). */
const MAX_REPEAT = 1_000_000;
export const TIMES_GLOBAL = '__toolwire_times';
export const IN_GLOBAL = '__toolwire_in';
export const COMPARE_GLOBAL = '__toolwire_compare';
export const ITERABLE_GLOBAL = '__toolwire_iterable';

function native(fn: NativeFunction): Value {
  return new FunctionValue(fn);
}

export function installGlobals(environment: Environment, now: Date): void {
  const define = (name: string, value: Value) => environment.setVariable(name, value);
  define('true', bool(true));
  define('false', bool(false));
  define('none', NONE());
  define('True', bool(true));
  define('False', bool(false));
  define('None', NONE());
  define(
    'raise_exception',
    native(([message]) => {
      throw new ChatTemplateRaisedError(message === undefined ? '' : pythonStr(message));
    }),
  );
  define(
    'range',
    native((args) => {
      const [positional] = splitArguments(args);
      const numbers = positional.map((value) => Number(value.value));
      const [start, stop, step] =
        numbers.length === 1 ? [0, numbers[0]!, 1] : [numbers[0]!, numbers[1]!, numbers[2] ?? 1];
      if (step === 0) throw new Error('range() step must not be zero');
      const out: Value[] = [];
      for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
        // A template is a file someone handed over (or a model server's answer): bounded.
        if (out.length === MAX_RANGE) throw new Error(`range() of more than ${MAX_RANGE} numbers`);
        out.push(int(i));
      }
      return list(out);
    }),
  );
  define(
    'strftime_now',
    native(([format]) => str(strftime(now, format === undefined ? '' : pythonStr(format)))),
  );
  define(
    'zip',
    native((args) => {
      const sequences = splitArguments(args)[0].map(sequenceOf);
      const length = Math.min(...sequences.map((items) => items.length));
      return list(
        Array.from({ length: Number.isFinite(length) ? length : 0 }, (_, index) =>
          // Lists, not tuples: the library unpacks only lists in `for a, b in …`.
          list(sequences.map((items) => items[index]!)),
        ),
      );
    }),
  );
  define(
    'dict',
    native((args) => {
      const [positional, keywords] = splitArguments(args);
      const entries = new Map<string, Value>();
      const source = positional[0];
      if (source !== undefined) mappingMethod(entries, 'update', [source]);
      for (const [key, value] of keywords) entries.set(key, value);
      return new ObjectValue(entries);
    }),
  );
  define(
    FILTER_GLOBAL,
    native(([name, operand, ...args], scope) =>
      applyFilter(String(name!.value), operand!, args, scope),
    ),
  );
  define(
    METHOD_GLOBAL,
    native(([object, name, ...args], scope) =>
      callMethod(object!, String(name!.value), args, scope),
    ),
  );
  define(
    PERCENT_GLOBAL,
    native(([left, right]) => {
      if (isString(left!)) return str(percentFormat(left!.value as string, right!));
      if (isNumber(left!) && isNumber(right!)) {
        const a = Number(left!.value);
        const b = Number(right!.value);
        if (b === 0) throw new Error('modulo by zero');
        // Python's % takes the sign of the divisor.
        return num(((a % b) + b) % b, is(left!, 'FloatValue') || is(right!, 'FloatValue'));
      }
      throw new Error(`Unknown operator "%" between ${left!.type} and ${right!.type}`);
    }),
  );
  // `a ~ b` as Python's jinja: an undefined side is "" (the library refuses it).
  define(
    CONCAT_GLOBAL,
    native(([left, right]) => str(pythonStr(left!) + pythonStr(right!))),
  );
  define(
    IN_GLOBAL,
    native(([item, container, negate]) => bool(contains(container!, item!) !== negate!.value)),
  );
  define(
    COMPARE_GLOBAL,
    native(([left, right, operator]) => bool(ordered(left!, right!, String(operator!.value)))),
  );
  define(
    ITERABLE_GLOBAL,
    native(([value]) => (value!.type === 'UndefinedValue' ? list([]) : value!)),
  );
  define(
    TIMES_GLOBAL,
    native(([left, right]) => times(left!, right!)),
  );
  define(
    ITEM_GLOBAL,
    native(([object, key]) => itemOf(object!, key!)),
  );
  define(
    OUTPUT_GLOBAL,
    native(([value]) => {
      // Python prints None, True and False by name; the library prints "", "true", "false".
      if (value === undefined) return str('');
      if (is(value, 'NullValue', 'BooleanValue')) return str(pythonRepr(value));
      return value;
    }),
  );
  define(
    TEST_GLOBAL,
    native(([value, name, negate]) => {
      const test = TESTS.get(String(name!.value))!;
      return bool(test(value!) !== negate!.value);
    }),
  );
}
