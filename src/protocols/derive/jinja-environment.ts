/**
 * Renders a Hugging Face chat template with `@huggingface/jinja`, plus what real templates use
 * that it lacks (Python's jinja2 has them): `"%s"|format(…)` and the `%` operator on strings,
 * `"{}".format(…)`, `~` with an undefined side, the `min`/`max`/`sum`/`round`/`select`/`reject`
 * filters, `|string` of a dict, string, list and dict methods (`.find`, `.count`, `.append`, `.update`, …), integer dict keys, the `float`
 * test, a `strftime_now` that knows every directive, `zip` and `dict`, and Python's spelling of
 * `None`/`True`/`False` in output.
 *
 * The library takes no custom filters, so the template's syntax tree is rewritten once after
 * parsing: an unknown filter, a `%` operation, a missing method or an item lookup becomes a call
 * of a global this module supplies. Nothing is evaluated as code: the globals are plain
 * functions over the library's runtime values.
 */
import { Environment, Interpreter, parse, tokenize } from '@huggingface/jinja';
import { ToolwireError } from '../../core/errors.ts';

/** A runtime value of the library (its classes are not exported; their instances are). */
type Value = ReturnType<Environment['lookupVariable']>;
type NativeFunction = (args: Value[], scope: Environment) => Value;
type ValueClass = new (value: unknown) => Value;

/** A template's own `raise_exception(…)`: what it refuses to render, in its words. */
export class ChatTemplateRaisedError extends ToolwireError {
  readonly templateMessage: string;
  constructor(templateMessage: string) {
    super('invalid-format', `the chat template raised an exception: ${templateMessage}`);
    this.templateMessage = templateMessage;
  }
}

/** The template could not be parsed or rendered (a construct neither jinja nor this module reads). */
export class ChatTemplateRenderError extends ToolwireError {
  constructor(message: string, cause?: unknown) {
    super('invalid-format', message, { cause });
  }
}

export interface RenderContext {
  readonly [name: string]: unknown;
}

export interface JinjaRenderOptions {
  /** The clock `strftime_now` reads. Default: now. */
  readonly now?: Date;
}

/** A parsed chat template, rendered as often as needed. */
export interface CompiledChatTemplate {
  render(context: RenderContext, options?: JinjaRenderOptions): string;
}

/** Parses a template once (throws `ChatTemplateRenderError` on a syntax error). */
export function compileChatTemplate(source: string): CompiledChatTemplate {
  let program: ReturnType<typeof parse>;
  try {
    program = parse(tokenize(source, { lstrip_blocks: true, trim_blocks: true }));
  } catch (error) {
    throw new ChatTemplateRenderError(
      `the chat template does not parse: ${messageOf(error)}`,
      error,
    );
  }
  rewriteProgram(program);
  return {
    render(context, options = {}) {
      const environment = new Environment();
      installGlobals(environment, options.now ?? new Date());
      for (const [name, value] of Object.entries(context)) environment.set(name, value);
      try {
        return String(new Interpreter(environment).run(program).value);
      } catch (error) {
        if (ChatTemplateRaisedError.isInstance(error)) throw error;
        throw new ChatTemplateRenderError(
          `the chat template does not render: ${messageOf(error)}`,
          error,
        );
      }
    },
  };
}

/** Renders `source` once with `context`. */
export function renderChatTemplate(
  source: string,
  context: RenderContext,
  options?: JinjaRenderOptions,
): string {
  return compileChatTemplate(source).render(context, options);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// ---------------------------------------------------------------------------------------------
// Runtime values: the library's classes, taken from values it makes.

const sample = new Environment();
const classOf = (name: string, value: unknown) =>
  sample.set(name, value).constructor as unknown as ValueClass;
const StringValue = classOf('s', '');
const IntegerValue = classOf('i', 1);
const FloatValue = classOf('f', 1.5);
const BooleanValue = classOf('b', true);
const ArrayValue = classOf('a', []);
const ObjectValue = classOf('o', {});
const NullValue = classOf('n', null);
const UndefinedValue = classOf('u', undefined);
const FunctionValue = classOf('fn', () => null) as unknown as new (fn: NativeFunction) => Value;

const str = (value: string) => new StringValue(value);
const int = (value: number) => new IntegerValue(value);
const num = (value: number, float: boolean) => (float ? new FloatValue(value) : int(value));
const bool = (value: boolean) => new BooleanValue(value);
const list = (items: Value[]) => new ArrayValue(items);
const NONE = () => new NullValue(undefined);
const UNDEFINED = () => new UndefinedValue(undefined);

const is = (value: Value, ...types: string[]) => types.includes(value.type);
const isString = (value: Value) => value.type === 'StringValue';
const isNumber = (value: Value) => is(value, 'IntegerValue', 'FloatValue');
const isList = (value: Value) => is(value, 'ArrayValue', 'TupleValue');
const isMapping = (value: Value) => is(value, 'ObjectValue', 'KeywordArgumentsValue');
const isKeywords = (value: Value | undefined) => value?.type === 'KeywordArgumentsValue';
const entriesOf = (value: Value) => value.value as Map<string, Value>;
const itemsOf = (value: Value) => value.value as Value[];

/** Splits a call's arguments into positional ones and keyword ones. */
function splitArguments(args: Value[]): [Value[], Map<string, Value>] {
  const last = args.at(-1);
  if (last !== undefined && isKeywords(last)) return [args.slice(0, -1), entriesOf(last)];
  return [args, new Map()];
}

// ---------------------------------------------------------------------------------------------
// Python's str() and repr() of a value, and Python's truth.

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

function pythonRepr(value: Value): string {
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

function truthy(value: Value): boolean {
  return Boolean((value as unknown as { __bool__(): Value }).__bool__().value);
}

// ---------------------------------------------------------------------------------------------
// `%` formatting (printf style) and str.format.

/** Python's `format % args`: `%s %r %d %i %f %e %g %x %o %c %%`, flags, width, precision, `%(key)s`. */
export function percentFormat(format: string, args: Value): string {
  const positional = args.type === 'TupleValue' ? itemsOf(args) : [args];
  const mapping = isMapping(args) ? entriesOf(args) : undefined;
  let next = 0;
  let out = '';
  let index = 0;
  while (index < format.length) {
    const percent = format.indexOf('%', index);
    if (percent < 0) {
      out += format.slice(index);
      break;
    }
    out += format.slice(index, percent);
    let cursor = percent + 1;
    let value: Value | undefined;
    if (format[cursor] === '(') {
      const close = format.indexOf(')', cursor);
      if (close < 0) throw new Error('incomplete format key');
      const key = format.slice(cursor + 1, close);
      value = mapping?.get(key);
      if (value === undefined) throw new Error(`format key not found: ${key}`);
      cursor = close + 1;
    }
    let flags = '';
    while ('-+ #0'.includes(format[cursor] ?? 'x')) flags += format[cursor++];
    let width = '';
    while (/[0-9]/.test(format[cursor] ?? '')) width += format[cursor++];
    let precision: number | undefined;
    if (format[cursor] === '.') {
      cursor++;
      let digits = '';
      while (/[0-9]/.test(format[cursor] ?? '')) digits += format[cursor++];
      precision = Number(digits || '0');
    }
    const conversion = format[cursor];
    if (conversion === undefined) throw new Error('incomplete format');
    index = cursor + 1;
    if (conversion === '%') {
      out += '%';
      continue;
    }
    if (value === undefined) {
      value = positional[next++];
      if (value === undefined) throw new Error('not enough arguments for format string');
    }
    out += pad(convert(conversion, value, flags, precision), flags, Number(width || '0'));
  }
  if (mapping === undefined && next < positional.length && args.type === 'TupleValue') {
    throw new Error('not all arguments converted during string formatting');
  }
  return out;
}

function convert(conversion: string, value: Value, flags: string, precision?: number): string {
  const number = () => {
    if (isNumber(value) || value.type === 'BooleanValue') return Number(value.value);
    throw new Error(`%${conversion} format: a number is required, not ${value.type}`);
  };
  const sign = (n: number, text: string) =>
    n >= 0 && flags.includes('+') ? `+${text}` : n >= 0 && flags.includes(' ') ? ` ${text}` : text;
  switch (conversion) {
    case 's': {
      const text = pythonStr(value);
      return precision === undefined ? text : text.slice(0, precision);
    }
    case 'r':
    case 'a':
      return pythonRepr(value);
    case 'd':
    case 'i':
    case 'u': {
      const n = Math.trunc(number());
      return sign(n, String(n));
    }
    case 'f':
    case 'F': {
      const n = number();
      return sign(n, n.toFixed(precision ?? 6));
    }
    case 'e':
    case 'E': {
      const n = number();
      const text = n.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
      return sign(n, conversion === 'E' ? text.toUpperCase() : text);
    }
    case 'g':
    case 'G': {
      const n = number();
      return sign(n, String(Number(n.toPrecision(precision || 6))));
    }
    case 'x':
    case 'X':
    case 'o': {
      const n = Math.trunc(number());
      const text = Math.abs(n).toString(conversion === 'o' ? 8 : 16);
      const prefix = flags.includes('#') ? (conversion === 'o' ? '0o' : '0x') : '';
      const body = (n < 0 ? '-' : '') + prefix + text;
      return conversion === 'X' ? body.toUpperCase() : body;
    }
    case 'c':
      return isString(value) ? (value.value as string) : String.fromCodePoint(number());
    default:
      throw new Error(`unsupported format character '${conversion}'`);
  }
}

function pad(text: string, flags: string, width: number): string {
  if (text.length >= width) return text;
  if (flags.includes('-')) return text.padEnd(width);
  if (flags.includes('0') && /^[+ -]?\d/.test(text)) {
    const signed = /^[+ -]/.test(text);
    return signed ? text[0] + text.slice(1).padStart(width - 1, '0') : text.padStart(width, '0');
  }
  return text.padStart(width);
}

/** Python's `str.format`: `{}`, `{0}`, `{name}`, `{{`, `}}`; a format spec after `:` is ignored. */
export function braceFormat(format: string, args: Value[]): string {
  const [positional, keywords] = splitArguments(args);
  let auto = 0;
  let out = '';
  let index = 0;
  while (index < format.length) {
    const char = format[index]!;
    if ((char === '{' || char === '}') && format[index + 1] === char) {
      out += char;
      index += 2;
      continue;
    }
    if (char !== '{') {
      out += char;
      index++;
      continue;
    }
    const close = format.indexOf('}', index);
    if (close < 0) throw new Error("Single '{' encountered in format string");
    const field = format.slice(index + 1, close).split(/[:!]/, 1)[0]!;
    let value: Value | undefined;
    if (field === '') value = positional[auto++];
    else if (/^\d+$/.test(field)) value = positional[Number(field)];
    else value = keywords.get(field);
    if (value === undefined) throw new Error(`format: no argument for {${field}}`);
    out += pythonStr(value);
    index = close + 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// strftime with every common directive (English names, as Python's C locale).

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function strftime(date: Date, format: string): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const dayOfYear =
    Math.floor(
      (Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) -
        Date.UTC(date.getFullYear(), 0, 1)) /
        86_400_000,
    ) + 1;
  const hour12 = date.getHours() % 12 === 0 ? 12 : date.getHours() % 12;
  const directive = (code: string): string | undefined => {
    switch (code) {
      case 'a':
        return DAYS[date.getDay()]!.slice(0, 3);
      case 'A':
        return DAYS[date.getDay()];
      case 'w':
        return String(date.getDay());
      case 'd':
        return two(date.getDate());
      case 'e':
        return String(date.getDate()).padStart(2, ' ');
      case 'b':
      case 'h':
        return MONTHS[date.getMonth()]!.slice(0, 3);
      case 'B':
        return MONTHS[date.getMonth()];
      case 'm':
        return two(date.getMonth() + 1);
      case 'y':
        return two(date.getFullYear() % 100);
      case 'Y':
        return String(date.getFullYear());
      case 'H':
        return two(date.getHours());
      case 'I':
        return two(hour12);
      case 'p':
        return date.getHours() < 12 ? 'AM' : 'PM';
      case 'M':
        return two(date.getMinutes());
      case 'S':
        return two(date.getSeconds());
      case 'f':
        return String(date.getMilliseconds() * 1000).padStart(6, '0');
      case 'j':
        return String(dayOfYear).padStart(3, '0');
      case 'z':
      case 'Z':
        return '';
      case 'D':
        return `${two(date.getMonth() + 1)}/${two(date.getDate())}/${two(date.getFullYear() % 100)}`;
      case 'F':
        return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}`;
      case 'T':
        return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
      case 'c':
        return `${DAYS[date.getDay()]!.slice(0, 3)} ${MONTHS[date.getMonth()]!.slice(0, 3)} ${String(date.getDate()).padStart(2, ' ')} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${date.getFullYear()}`;
      case 'x':
        return `${two(date.getMonth() + 1)}/${two(date.getDate())}/${two(date.getFullYear() % 100)}`;
      case 'X':
        return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
      case '%':
        return '%';
      default:
        return undefined;
    }
  };
  let out = '';
  for (let index = 0; index < format.length; index++) {
    const char = format[index]!;
    if (char !== '%' || index + 1 >= format.length) {
      out += char;
      continue;
    }
    // `%-d` (no padding) as glibc writes it.
    const unpadded = format[index + 1] === '-';
    const code = format[index + (unpadded ? 2 : 1)] ?? '';
    const value = directive(code);
    if (value === undefined) {
      out += char;
      continue;
    }
    out += unpadded ? value.replace(/^[0 ]+(?=.)/, '') : value;
    index += unpadded ? 2 : 1;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Filters, methods and item lookup the library lacks.

/** Filters handled here (the library's own are kept for every other name). */
const FILTERS = new Set(['format', 'min', 'max', 'sum', 'round', 'select', 'reject', 'string']);

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
const METHODS = new Set([
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

// ---------------------------------------------------------------------------------------------
// Globals.

const FILTER_GLOBAL = '__toolwire_filter';
const METHOD_GLOBAL = '__toolwire_method';
const PERCENT_GLOBAL = '__toolwire_percent';
const ITEM_GLOBAL = '__toolwire_item';
const OUTPUT_GLOBAL = '__toolwire_output';
const CONCAT_GLOBAL = '__toolwire_concat';

function native(fn: NativeFunction): Value {
  return new FunctionValue(fn);
}

function installGlobals(environment: Environment, now: Date): void {
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
      for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(int(i));
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
  const tests = new Map<string, (...values: Value[]) => boolean>(environment.tests);
  tests.set('float', (value) => value.type === 'FloatValue');
  tests.set('sameas', (a, b) => a === b || (a?.type === b?.type && a?.value === b?.value));
  environment.tests = tests;
}

// ---------------------------------------------------------------------------------------------
// The syntax-tree rewrite.

type Node = { type: string; [field: string]: unknown };

/** The library's node classes, taken from a parsed sample (they are not exported). */
const kit = (() => {
  const program = parse(tokenize('{{ f("s", 1) }}', {})) as unknown as { body: Node[] };
  const call = program.body[0]!;
  const callee = call.callee as Node;
  const [stringLiteral] = call.args as Node[];
  const CallExpression = call.constructor as new (callee: Node, args: Node[]) => Node;
  const Identifier = callee.constructor as new (value: string) => Node;
  const StringLiteral = stringLiteral!.constructor as new (value: string) => Node;
  return {
    call: (name: string, args: Node[]) => new CallExpression(new Identifier(name), args),
    string: (value: string) => new StringLiteral(value),
  };
})();

/** Statement lists whose expression statements are output (`{{ … }}`). */
const BLOCK_FIELDS = ['body', 'alternate', 'defaultBlock'];
const STATEMENT_TYPES = new Set([
  'Program',
  'If',
  'For',
  'Break',
  'Continue',
  'Set',
  'Macro',
  'Comment',
  'CallStatement',
  'FilterStatement',
]);

function rewriteProgram(program: unknown): void {
  rewriteNode(program as Node);
}

function rewriteNode(node: Node): Node {
  for (const [field, child] of Object.entries(node)) {
    if (Array.isArray(child)) {
      const isBlock = BLOCK_FIELDS.includes(field) && node.type !== 'ArrayLiteral';
      (node as Record<string, unknown>)[field] = child.map((item) => {
        if (!isNode(item)) return item;
        const rewritten = rewriteNode(item);
        return isBlock && isOutput(rewritten) ? kit.call(OUTPUT_GLOBAL, [rewritten]) : rewritten;
      });
    } else if (child instanceof Map) {
      const entries = [...child].map(([key, value]) => {
        let newKey = isNode(key) ? rewriteNode(key) : key;
        // `{1: "a"}`: the library only takes string keys; Python's jinja looks them up by value.
        if (
          isNode(newKey) &&
          (newKey.type === 'IntegerLiteral' || newKey.type === 'FloatLiteral')
        ) {
          newKey = kit.string(String(newKey.value));
        }
        return [newKey, isNode(value) ? rewriteNode(value) : value] as const;
      });
      child.clear();
      for (const [key, value] of entries) child.set(key, value);
    } else if (isNode(child) && field !== 'operator') {
      (node as Record<string, unknown>)[field] = rewriteNode(child);
    }
  }
  return rewriteExpression(node);
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

function isOutput(node: Node): boolean {
  // Raw template text is a string literal: printed as it is.
  return !STATEMENT_TYPES.has(node.type) && node.type !== 'StringLiteral';
}

function rewriteExpression(node: Node): Node {
  switch (node.type) {
    case 'FilterExpression': {
      const filter = node.filter as Node;
      const name =
        filter.type === 'Identifier'
          ? (filter.value as string)
          : ((filter.callee as Node).value as string | undefined);
      if (name === undefined || !FILTERS.has(name)) return node;
      const args = filter.type === 'CallExpression' ? (filter.args as Node[]) : [];
      return kit.call(FILTER_GLOBAL, [kit.string(name), node.operand as Node, ...args]);
    }
    case 'BinaryExpression': {
      const operator = (node.operator as { value: string }).value;
      if (operator === '%')
        return kit.call(PERCENT_GLOBAL, [node.left as Node, node.right as Node]);
      if (operator === '~') return kit.call(CONCAT_GLOBAL, [node.left as Node, node.right as Node]);
      return node;
    }
    case 'CallExpression': {
      const callee = node.callee as Node;
      if (callee.type !== 'MemberExpression' || callee.computed) return node;
      const property = callee.property as Node;
      if (property.type !== 'Identifier' || !METHODS.has(property.value as string)) return node;
      return kit.call(METHOD_GLOBAL, [
        callee.object as Node,
        kit.string(property.value as string),
        ...(node.args as Node[]),
      ]);
    }
    case 'MemberExpression': {
      const property = node.property as Node;
      if (!node.computed || property.type === 'SliceExpression') return node;
      return kit.call(ITEM_GLOBAL, [node.object as Node, property]);
    }
    default:
      return node;
  }
}
