import { DIGIT_NINE, DIGIT_ZERO } from '../scan/char-codes.ts';
import { trySchemaPattern } from './pattern.ts';

/** ajv-formats' `get`: the format it defines under a name (a RegExp, a function, an object). */
export type FormatLookup = (name: string) => unknown;

/**
 * Checks for the formats ajv-formats defines by a regular expression, run in linear time.
 * ajv-formats runs them on model text with V8's backtracking engine, and some backtrack badly:
 * `url` takes 1.7 s on 88 KB of `http://a._.` and 39 s on 350 KB. Each is compiled from
 * ajv-formats' own expression by the linear engine (src/schema/pattern.ts). Three use lookaround,
 * which the engine lacks; each lookaround is replaced by a plain check with the same meaning,
 * except `url`'s, which refuse private and loopback IPv4 hosts (10.x, 127.x, 169.254.x,
 * 192.168.x, 172.16–31.x): that is a policy on where a URL points, not its syntax, and is
 * dropped. A format whose expression no longer compiles is left unchecked, like an unknown one.
 */
export function linearFormats(lookUp: FormatLookup): Map<string, (text: string) => boolean> {
  const checks = new Map<string, (text: string) => boolean>();
  for (const name of REGEX_FORMATS) {
    let format: unknown;
    try {
      format = lookUp(name);
    } catch {
      continue;
    }
    if (!(format instanceof RegExp)) continue;
    const rewrite = LOOKAROUND_REWRITES[name];
    let source = format.source;
    for (const lookaround of rewrite?.removed ?? []) source = source.replace(lookaround, '');
    const pattern = trySchemaPattern(source, format.flags);
    if (pattern === undefined) {
      checks.set(name, () => true);
      continue;
    }
    const extra = rewrite?.check;
    checks.set(
      name,
      extra ? (text) => extra(text) && pattern.test(text) : (text) => pattern.test(text),
    );
  }
  return checks;
}

/** The formats ajv-formats (3.x) writes as one regular expression. */
export const REGEX_FORMATS: readonly string[] = [
  'duration',
  'uri-reference',
  'uri-template',
  'url',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
  'json-pointer',
  'json-pointer-uri-fragment',
  'relative-json-pointer',
];

interface LookaroundRewrite {
  /** Lookaround groups taken out of the expression. */
  readonly removed: readonly string[];
  /** What they checked, as plain code. */
  readonly check?: (text: string) => boolean;
}

const LOOKAROUND_REWRITES: Readonly<Record<string, LookaroundRewrite>> = {
  // `P(?!$)`: something follows the P; `T(?=\d)`: a digit follows the T.
  duration: {
    removed: ['(?!$)', '(?=\\d)'],
    check: (text) => {
      if (text.length < 2) return false;
      const time = text.indexOf('T');
      return time === -1 || isDigit(text.charCodeAt(time + 1));
    },
  },
  // `(?=.{1,253}\.?$)`: 1 to 253 characters, one more for a final dot (the rest of the
  // expression admits no line terminator, which `.` would not match).
  hostname: {
    removed: ['(?=.{1,253}\\.?$)'],
    check: (text) =>
      text.length >= 1 && (text.length <= 253 || (text.length === 254 && text.endsWith('.'))),
  },
  url: {
    removed: [
      '(?!(?:10|127)(?:\\.\\d{1,3}){3})',
      '(?!(?:169\\.254|192\\.168)(?:\\.\\d{1,3}){2})',
      '(?!172\\.(?:1[6-9]|2\\d|3[0-1])(?:\\.\\d{1,3}){2})',
    ],
  },
};

function isDigit(code: number): boolean {
  return code >= DIGIT_ZERO && code <= DIGIT_NINE;
}
