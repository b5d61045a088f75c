/**
 * Python's string formatting over the library's runtime values: `format % args` (printf style,
 * the `format` filter and the `%` operator), `str.format`, and `strftime` with every common
 * directive (the library's `strftime_now` knows eight).
 */
import {
  entriesOf,
  isMapping,
  isNumber,
  isString,
  itemsOf,
  pythonRepr,
  pythonStr,
  splitArguments,
  type Value,
} from './jinja-values.ts';

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
