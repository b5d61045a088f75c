/**
 * How a codec writes the values of JSON (strings, numbers, words, objects, arrays) as text, for
 * `JsonValueRules`: JSON itself, JSON whose strings must keep a literal out (the arrow form's
 * `[/TOOL_CALL]`), Python literals, or a Gemma dialect. The value rules follow a tool's schema
 * the same way for each; only the tokens differ.
 */
import { literal } from './gbnf-text.ts';
import type { GrammarRules } from './grammar-rules.ts';
import { textExcluding } from './text-excluding.ts';

export interface ValueSyntax {
  /** Begins the names of the syntax's shared rules (`json`, `py`, `dialect`). */
  readonly id: string;
  /**
   * A value fixed by the schema (`const`, an `enum` member), as the writer writes it; undefined
   * where the syntax cannot write it so that it reads back.
   */
  literal(value: unknown): string | undefined;
  /** A declared property's name as an object's key (undefined: as for `literal`). */
  key(name: string): string | undefined;
  /** Any key of a map (`additionalProperties`). */
  anyKey(rules: GrammarRules): string;
  /** Any string. */
  string(rules: GrammarRules): string;
  /** A string of `min` to `max` characters, or undefined where the syntax cannot count them. */
  boundedString(rules: GrammarRules, min: number, max: number | undefined): string | undefined;
  readonly words: { readonly true: string; readonly false: string; readonly null: string };
  /** What may stand inside a bracket, next to it ('' for nothing). */
  padding(rules: GrammarRules): string;
  /** Between two members or items. */
  comma(rules: GrammarRules): string;
  /** Between a key and its value. */
  colon(rules: GrammarRules): string;
}

/** JSON white space between tokens: none, a space, or a line break and an indent. */
const WHITE_SPACE = '( " " | "\\n" [ \\t]{0,16} )?';

/**
 * JSON text of `value` as a grammar expression: the text `JSON.stringify` writes, with each `<`
 * and `>` also allowed as the `\u003c`/`\u003e` escape toolwire's writers use in prompts
 * (`markup`: a `<` only as `\u003c`).
 */
export function jsonLiteral(value: unknown, markup = false): string {
  const text = JSON.stringify(value);
  const parts: string[] = [];
  let from = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character !== '<' && character !== '>') continue;
    if (index > from) parts.push(literal(text.slice(from, index)));
    parts.push(
      character === '>'
        ? `( ">" | ${literal('\\u003e')} )`
        : markup
          ? literal('\\u003c')
          : `( "<" | ${literal('\\u003c')} )`,
    );
    from = index + 1;
  }
  if (from < text.length || parts.length === 0) parts.push(literal(text.slice(from)));
  return parts.join(' ');
}

/** `\u` and four hex digits, never a surrogate (a lone one is no character; a pair counts two). */
export function hex4(rules: GrammarRules): string {
  return rules.define(
    'json-hex4',
    '( [0-9a-cA-Ce-fE-F] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2} )',
  );
}

/** JSON's escapes, after the backslash. */
function jsonEscape(rules: GrammarRules): string {
  return `"\\\\" ( ["\\\\/bfnrt] | "u" ${hex4(rules)} )`;
}

export interface JsonSyntaxOptions {
  /**
   * No string holds any of these literals as written: a reader ends the call at its closer
   * wherever it stands (the arrow form's `[/TOOL_CALL]`). Such a string cannot be counted, so
   * length bounds are refused.
   */
  readonly excluding?: readonly string[];
  /**
   * The JSON stands inside markup (a parameter tag's value): a `<` only as `\u003c`, so no string
   * can hold a tag, as toolwire's writers write it.
   */
  readonly markup?: boolean;
}

/** JSON, as the options say. */
export function jsonSyntax(options: JsonSyntaxOptions = {}): ValueSyntax {
  const markup = options.markup === true;
  // Under `markup` no string holds a `<`, so a literal with one is kept out already.
  const excluding = (options.excluding ?? []).filter((text) => !(markup && text.includes('<')));
  const id = markup ? 'json-markup' : 'json';
  const raw = markup ? '"\\\\<\\x00-\\x1f\\x7f' : '"\\\\\\x00-\\x1f\\x7f';
  const character = (rules: GrammarRules): string =>
    rules.define(`${id}-char`, `[^${raw}] | ${jsonEscape(rules)}`);
  const string = (rules: GrammarRules): string => {
    if (excluding.length === 0)
      return rules.define(`${id}-string`, `"\\"" ${character(rules)}* "\\""`);
    const inside = textExcluding(rules, `${id}-text`, excluding, '"', {
      others: raw,
      escape: jsonEscape(rules),
      escapeCharacters: '"\\/bfnrtu0123456789abcdefABCDEF',
    });
    return rules.define(`${id}-string`, `"\\"" ${inside} "\\""`);
  };
  const ws = (rules: GrammarRules) => rules.define('ws', WHITE_SPACE);
  const written = (value: unknown): string | undefined => {
    const text = JSON.stringify(value);
    return excluding.some((closer) => text.includes(closer))
      ? undefined
      : jsonLiteral(value, markup);
  };
  return {
    id,
    literal: written,
    key: written,
    anyKey: string,
    string,
    boundedString: (rules, min, max) => {
      if (excluding.length > 0) return undefined;
      const count = max === undefined ? `{${min},}` : `{${min},${max}}`;
      return rules.define(
        `${id}-string-${min}-${max ?? 'n'}`,
        `"\\"" ( ${character(rules)} )${count} "\\""`,
      );
    },
    words: { true: '"true"', false: '"false"', null: '"null"' },
    padding: ws,
    comma: (rules) => `${ws(rules)} "," ${ws(rules)}`,
    colon: (rules) => `${ws(rules)} ":" ${ws(rules)}`,
  };
}

/** Plain JSON. */
export const JSON_SYNTAX: ValueSyntax = jsonSyntax();
