/**
 * The tokens `@huggingface/jinja`'s `tokenize` gives for a template, found faster: its tokenizer
 * appends one character at a time, tests each with a regular expression and tries ~30 operators
 * by slicing for every token, which took 30–50 ms of a first derivation's CPU time (before the
 * JIT has warmed up) and 10–25 ms after. This one finds text runs, comments, strings and names
 * with `indexOf` and sticky character-class scans, and operators by a switch on the character,
 * and gives the same tokens (the same class, types, values, order and errors: the tests compare
 * it with the library's on every template they have).
 *
 * Only the library's parser reads the tokens; `compileChatTemplate` uses this in place of the
 * library's `tokenize`.
 */
import { tokenize } from '@huggingface/jinja';

type Tokens = ReturnType<typeof tokenize>;
type Token = Tokens[number];
type TokenType = Token['type'];

export interface TokenizeOptions {
  readonly lstrip_blocks?: boolean;
  readonly trim_blocks?: boolean;
}

/** The library's Token class (not exported), taken from a token it made. */
const TokenClass = tokenize('x', {})[0]!.constructor as new (
  value: string,
  type: TokenType,
) => Token;

function token(value: string, type: TokenType): Token {
  return new TokenClass(value, type);
}

const ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  b: '\b',
  f: '\f',
  v: '\v',
  "'": "'",
  '"': '"',
  '\\': '\\',
};

// Sticky scans: each tests at one position and runs forward only (no backtracking).
const SPACES = /\s+/y;
const WORD = /\w+/y;
const DIGITS = /[0-9]+/y;
const WORD_CHAR = /\w/;
const DIGIT = /[0-9]/;
const HEX = /^[0-9a-f]*$/i;
/** A string's characters up to its closing quote or a backslash. */
const SINGLE_QUOTED_RUN = /[^'\\]*/y;
const DOUBLE_QUOTED_RUN = /[^"\\]*/y;

/** As the library prepares the source: trailing newline, `lstrip_blocks`, `trim_blocks`, `{% generation %}`. */
function preprocess(template: string, options: TokenizeOptions): string {
  let text = template.endsWith('\n') ? template.slice(0, -1) : template;
  if (options.lstrip_blocks) text = text.replace(/^[ \t]*({[#%-])/gm, '$1');
  if (options.trim_blocks) text = text.replace(/([#%-]})\n/g, '$1');
  // The library's pattern for `{% generation %}` blocks; it cannot match a text without the word.
  if (!text.includes('generation')) return text;
  return text.replace(
    /(\s*){%(-?)\s*(?:end)?generation\s*(-?)%}(\s*)/gs,
    (_, before: string, lstrip: string, rstrip: string, after: string) =>
      (lstrip ? '' : before) + (rstrip ? '' : after),
  );
}

/** The single- and double-character operators, in the library's order of preference. */
function operatorAt(src: string, at: number, curlyDepth: number): [string, TokenType] | undefined {
  const char = src[at];
  const next = src[at + 1];
  switch (char) {
    case '{':
      if (next === '%') return ['{%', 'OpenStatement'];
      if (next === '{') return ['{{', 'OpenExpression'];
      return ['{', 'OpenCurlyBracket'];
    case '%':
      if (next === '}') return ['%}', 'CloseStatement'];
      return ['%', 'MultiplicativeBinaryOperator'];
    case '}':
      if (next === '}' && curlyDepth <= 0) return ['}}', 'CloseExpression'];
      return ['}', 'CloseCurlyBracket'];
    case '(':
      return ['(', 'OpenParen'];
    case ')':
      return [')', 'CloseParen'];
    case '[':
      return ['[', 'OpenSquareBracket'];
    case ']':
      return [']', 'CloseSquareBracket'];
    case ',':
      return [',', 'Comma'];
    case '.':
      return ['.', 'Dot'];
    case ':':
      return [':', 'Colon'];
    case '|':
      return ['|', 'Pipe'];
    case '<':
      return next === '=' ? ['<=', 'ComparisonBinaryOperator'] : ['<', 'ComparisonBinaryOperator'];
    case '>':
      return next === '=' ? ['>=', 'ComparisonBinaryOperator'] : ['>', 'ComparisonBinaryOperator'];
    case '=':
      return next === '=' ? ['==', 'ComparisonBinaryOperator'] : ['=', 'Equals'];
    case '!':
      return next === '=' ? ['!=', 'ComparisonBinaryOperator'] : undefined;
    case '+':
    case '-':
    case '~':
      return [char, 'AdditiveBinaryOperator'];
    case '*':
      return next === '*'
        ? ['**', 'ExponentiationBinaryOperator']
        : ['*', 'MultiplicativeBinaryOperator'];
    case '/':
      return next === '/'
        ? ['//', 'MultiplicativeBinaryOperator']
        : ['/', 'MultiplicativeBinaryOperator'];
    default:
      return undefined;
  }
}

/** `@huggingface/jinja`'s `tokenize(source, options)`, token for token. */
export function tokenizeTemplate(source: string, options: TokenizeOptions = {}): Tokens {
  const tokens: Token[] = [];
  const src = preprocess(source, options);
  const length = src.length;
  let at = 0;
  let curlyDepth = 0;

  /** Past a run matched by a sticky `pattern`; like the library, a run up to the end is an error. */
  const consumeRun = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    if (!pattern.test(src)) return '';
    const run = src.slice(at, pattern.lastIndex);
    at = pattern.lastIndex;
    if (at >= length) throw new SyntaxError('Unexpected end of input');
    return run;
  };
  const skipSpaces = (): void => {
    SPACES.lastIndex = at;
    if (SPACES.test(src)) at = SPACES.lastIndex;
  };
  const stripTrailingSpaces = (): void => {
    const last = tokens.at(-1);
    if (last?.type !== 'Text') return;
    last.value = last.value.trimEnd();
    if (last.value === '') tokens.pop();
  };
  /** A string's body after its opening quote, escapes read; `at` is left on the closing quote. */
  const stringBody = (quote: string): string => {
    const plain = quote === "'" ? SINGLE_QUOTED_RUN : DOUBLE_QUOTED_RUN;
    let text = '';
    for (;;) {
      plain.lastIndex = at;
      plain.test(src);
      text += src.slice(at, plain.lastIndex);
      at = plain.lastIndex;
      if (at >= length) throw new SyntaxError('Unexpected end of input');
      if (src[at] === quote) return text;
      at++;
      if (at >= length) throw new SyntaxError('Unexpected end of input');
      const escaped = src[at++]!;
      if (escaped === 'x' || escaped === 'u') {
        const size = escaped === 'x' ? 2 : 4;
        const hex = src.slice(at, at + size);
        if (hex.length !== size || !HEX.test(hex))
          throw new SyntaxError(`Invalid hexadecimal escape sequence: \\${escaped}${hex}`);
        text += String.fromCharCode(Number.parseInt(hex, 16));
        at += size;
        continue;
      }
      const unescaped = ESCAPES[escaped];
      if (unescaped === undefined)
        throw new SyntaxError(`Unexpected escaped character: ${escaped}`);
      text += unescaped;
    }
  };
  /** A number's digits and, unless it follows a `.`, its fraction. */
  const number = (): string => {
    let digits = consumeRun(DIGITS);
    if (tokens.at(-1)?.type !== 'Dot' && src[at] === '.' && DIGIT.test(src[at + 1] ?? '')) {
      at++;
      digits = `${digits}.${consumeRun(DIGITS)}`;
    }
    return digits;
  };

  while (at < length) {
    const lastType = tokens.at(-1)?.type;
    if (
      lastType === undefined ||
      lastType === 'CloseStatement' ||
      lastType === 'CloseExpression' ||
      lastType === 'Comment'
    ) {
      const start = at;
      at = textEnd(src, at);
      if (at > start) {
        tokens.push(token(src.slice(start, at), 'Text'));
        continue;
      }
    }
    if (src[at] === '{' && src[at + 1] === '#') {
      at += 2;
      const stripBefore = src[at] === '-';
      if (stripBefore) at++;
      const end = src.indexOf('#}', at);
      if (end < 0) throw new SyntaxError('Missing end of comment tag');
      let comment = src.slice(at, end);
      const stripAfter = comment.endsWith('-');
      if (stripAfter) comment = comment.slice(0, -1);
      if (stripBefore) stripTrailingSpaces();
      tokens.push(token(comment, 'Comment'));
      at = end + 2;
      if (stripAfter) skipSpaces();
      continue;
    }
    if (src.startsWith('{%-', at)) {
      stripTrailingSpaces();
      tokens.push(token('{%', 'OpenStatement'));
      at += 3;
      continue;
    }
    if (src.startsWith('{{-', at)) {
      stripTrailingSpaces();
      tokens.push(token('{{', 'OpenExpression'));
      curlyDepth = 0;
      at += 3;
      continue;
    }
    consumeRun(SPACES);
    if (src.startsWith('-%}', at)) {
      tokens.push(token('%}', 'CloseStatement'));
      at += 3;
      skipSpaces();
      continue;
    }
    if (src.startsWith('-}}', at)) {
      tokens.push(token('}}', 'CloseExpression'));
      at += 3;
      skipSpaces();
      continue;
    }
    const char = src[at]!;
    if (char === '-' || char === '+') {
      const previous = tokens.at(-1)?.type;
      if (previous === 'Text' || previous === undefined)
        throw new SyntaxError(`Unexpected character: ${char}`);
      if (
        previous !== 'Identifier' &&
        previous !== 'NumericLiteral' &&
        previous !== 'StringLiteral' &&
        previous !== 'CloseParen' &&
        previous !== 'CloseSquareBracket'
      ) {
        at++;
        let digits = consumeRun(DIGITS);
        if (digits.length > 0 && src[at] === '.' && DIGIT.test(src[at + 1] ?? '')) {
          at++;
          digits = `${digits}.${consumeRun(DIGITS)}`;
        }
        tokens.push(
          token(`${char}${digits}`, digits.length > 0 ? 'NumericLiteral' : 'UnaryOperator'),
        );
        continue;
      }
    }
    const operator = operatorAt(src, at, curlyDepth);
    if (operator !== undefined) {
      const [value, type] = operator;
      tokens.push(token(value, type));
      if (type === 'OpenExpression') curlyDepth = 0;
      else if (type === 'OpenCurlyBracket') curlyDepth++;
      else if (type === 'CloseCurlyBracket') curlyDepth--;
      at += value.length;
      continue;
    }
    if (char === "'" || char === '"') {
      at++;
      const body = stringBody(char);
      tokens.push(token(body, 'StringLiteral'));
      at++;
      continue;
    }
    if (DIGIT.test(char)) {
      tokens.push(token(number(), 'NumericLiteral'));
      continue;
    }
    if (WORD_CHAR.test(char)) {
      tokens.push(token(consumeRun(WORD), 'Identifier'));
      continue;
    }
    throw new SyntaxError(`Unexpected character: ${char}`);
  }
  return tokens;
}

/** Where the text from `at` ends: at the next `{%`, `{{` or `{#`, or the end. */
function textEnd(src: string, at: number): number {
  let from = at;
  for (;;) {
    const brace = src.indexOf('{', from);
    if (brace < 0) return src.length;
    const next = src[brace + 1];
    if (next === '%' || next === '{' || next === '#') return brace;
    from = brace + 1;
  }
}
