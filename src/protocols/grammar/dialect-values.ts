/**
 * A Gemma dialect's values as grammar, as the dialect codec's writer writes them
 * (`writeDialectArguments`): strings between the form's delimiters with nothing escaped, so their
 * text keeps the closing delimiter out (or, where the form reads them, double-quoted JSON
 * strings); numbers as JSON writes them; `true`/`false`/`null`; keys bare where they are names;
 * no white space.
 */
import type { DialectCallForm } from '../spec/types.ts';
import { literal } from './gbnf-text.ts';
import type { GrammarRules } from './grammar-rules.ts';
import { textExcluding } from './text-excluding.ts';
import { JSON_SYNTAX, type ValueSyntax } from './value-syntax.ts';

/** A key the writer writes bare (ASCII names; the reader reads the same). */
const BARE_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

export function dialectSyntax(form: DialectCallForm): ValueSyntax {
  const [open, close] = form.stringDelimiters;
  const quoted = form.quotedStrings === true;
  /** A string as the writer writes it: between the delimiters when it reads back so, else quoted. */
  const stringText = (value: string): string | undefined => {
    if ((value + close).indexOf(close) === value.length) return literal(open + value + close);
    return quoted ? JSON_SYNTAX.literal(value) : undefined;
  };
  const written = (value: unknown): string | undefined => {
    if (value === null) return '"null"';
    if (typeof value === 'string') return stringText(value);
    if (typeof value === 'number') return literal(JSON.stringify(value));
    if (typeof value === 'boolean') return literal(String(value));
    const parts = Array.isArray(value)
      ? value.map(written)
      : Object.entries(value as Record<string, unknown>).map(([key, item]) => {
          const keyText =
            BARE_KEY.test(key) && !key.startsWith(open[0] as string)
              ? literal(key)
              : stringText(key);
          const itemText = written(item);
          return keyText && itemText ? `${keyText} ":" ${itemText}` : undefined;
        });
    if (parts.some((part) => part === undefined)) return undefined;
    const [begin, end] = Array.isArray(value) ? ['"["', '"]"'] : ['"{"', '"}"'];
    return [begin, parts.join(' "," '), end].filter((part) => part !== '').join(' ');
  };
  const string = (rules: GrammarRules): string => {
    const text = textExcluding(rules, 'dialect-text', [close], close);
    const delimited = rules.define('dialect-string', `${literal(open)} ${text} ${literal(close)}`);
    return quoted ? `( ${delimited} | ${JSON_SYNTAX.string(rules)} )` : delimited;
  };
  return {
    id: 'dialect',
    literal: written,
    key: (name) =>
      BARE_KEY.test(name) && !name.startsWith(open[0] as string) ? literal(name) : stringText(name),
    anyKey: (rules) =>
      `( ${rules.define('dialect-bare-key', '[A-Za-z_] [A-Za-z0-9_.-]*')} | ${string(rules)} )`,
    string,
    // Text between delimiters cannot be counted by these rules.
    boundedString: () => undefined,
    words: { true: '"true"', false: '"false"', null: '"null"' },
    padding: () => '',
    comma: () => '","',
    colon: () => '":"',
  };
}
