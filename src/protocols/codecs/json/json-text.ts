import {
  BACKSLASH,
  CARRIAGE_RETURN,
  LEFT_BRACE,
  LINE_FEED,
  LOWER_U,
  QUOTATION_MARK,
  SPACE,
  TAB,
} from '../../../scan/char-codes.ts';

/**
 * JSON text that can sit inside a prompt without ever being read back as markup: `<` and `>` are
 * written as \u003c and \u003e, which JSON readers decode to the same characters. So a tool result
 * that contains `<tool_call>` cannot become a call if the model echoes it.
 */
export function jsonForPrompt(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  return text.replace(/[<>]/g, (character) => (character === '<' ? '\\u003c' : '\\u003e'));
}

/**
 * `jsonForPrompt` with each of `characters` also written as a \u escape wherever it stands inside
 * a string (keys included). Outside strings the JSON's own brackets, braces and colons stay as
 * they are; a JSON reader decodes the escapes to the same value. Throws on `"` or `\`, which
 * delimit and escape the strings themselves.
 */
export function jsonForPromptEscapingInStrings(
  value: unknown,
  characters: string,
  indent?: number,
): string {
  return escapeInStrings(jsonForPrompt(value, indent), codesOf(characters), false);
}

/**
 * The characters that begin some format's call inside text and can stand in a JSON string:
 * `[` (Mistral's `[TOOL_CALLS]`, Python-style lists, `functools[`), `{` (FunctionGemma's bare
 * `call:NAME{…}`, Mistral's stripped `NAME{…}`, harmony's `json{…}`) and their closers.
 */
const CALL_CHARACTERS_IN_STRINGS = codesOf('[]{}');

/**
 * A tool result (or error) as compact JSON text that no format reads as a call, so a result that
 * holds another format's call (a file the agent read, a web page, an API's JSON) stays data
 * whichever parser reads the prompt or the model's echo of it: `<` and `>` are escaped
 * everywhere, `[ ] { }` inside strings, and the first character of each object's first key,
 * since every bare JSON call format opens on `{"name"`, `[{"name"` or a key like it. A JSON
 * reader decodes all of it to the same value. `indent` lays it out as `JSON.stringify` does.
 */
export function resultJsonForPrompt(value: unknown, indent?: number): string {
  return escapeInStrings(jsonForPrompt(value, indent), CALL_CHARACTERS_IN_STRINGS, true);
}

function codesOf(characters: string): ReadonlySet<number> {
  const codes = new Set<number>();
  for (let index = 0; index < characters.length; index++) {
    const code = characters.charCodeAt(index);
    if (code === QUOTATION_MARK || code === BACKSLASH) {
      throw new TypeError(
        'jsonForPromptEscapingInStrings: `"` and `\\` cannot be escaped again: they delimit and escape JSON strings',
      );
    }
    codes.add(code);
  }
  return codes;
}

function unicodeEscape(code: number): string {
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

function isJsonWhiteSpace(code: number): boolean {
  return code === SPACE || code === LINE_FEED || code === CARRIAGE_RETURN || code === TAB;
}

/**
 * Rewrites JSON text (as `JSON.stringify` writes it) with `escaped` characters inside strings
 * as \u escapes, and, when `firstKeyStarts`, the first character of each object's first key.
 * One pass; escape sequences already in the text are copied whole.
 */
function escapeInStrings(
  text: string,
  escaped: ReadonlySet<number>,
  firstKeyStarts: boolean,
): string {
  let out = '';
  let from = 0;
  let inString = false;
  // The last character outside strings that was not white space: `{` means a first key follows.
  let lastStructural = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (!inString) {
      if (code === QUOTATION_MARK) {
        inString = true;
        const first = text.charCodeAt(index + 1);
        if (firstKeyStarts && lastStructural === LEFT_BRACE && first !== QUOTATION_MARK) {
          if (first !== BACKSLASH) {
            out += text.slice(from, index + 1) + unicodeEscape(first);
            from = index + 2;
          }
          // An escape sequence there already is no literal key.
        }
      } else if (!isJsonWhiteSpace(code)) lastStructural = code;
      continue;
    }
    if (code === BACKSLASH) {
      // Skip the escaped character, and the four digits of a \u escape.
      index += text.charCodeAt(index + 1) === LOWER_U ? 5 : 1;
    } else if (code === QUOTATION_MARK) {
      inString = false;
      lastStructural = QUOTATION_MARK;
    } else if (escaped.has(code) && index >= from) {
      out += text.slice(from, index) + unicodeEscape(code);
      from = index + 1;
    }
  }
  return out + text.slice(from);
}
