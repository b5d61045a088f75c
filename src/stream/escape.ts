/**
 * The escaping rule of the encoder (docs/content-blocks.md states it for readers):
 *
 * - Attribute values are double-quoted; `&` `<` `>` `"` become `&amp;` `&lt;` `&gt;` `&quot;`,
 *   and every control character (U+0000–U+001F, U+007F) becomes a decimal character reference
 *   (`&#10;`), so no newline or carriage return is ever raw inside a tag.
 * - Bodies are CDATA. A `]]>` in the content is split across two sections
 *   (`]]]]><![CDATA[>`), and a carriage return leaves the section as `&#13;`
 *   (`]]>&#13;<![CDATA[`), because SSE would read a raw `\r` as a line end.
 * - Lone UTF-16 surrogates, which UTF-8 cannot carry, become U+FFFD before anything else, so a
 *   string and a byte transport agree.
 */

import {
  AMPERSAND,
  DELETE,
  GREATER_THAN,
  HIGH_SURROGATE_FIRST,
  HIGH_SURROGATE_LAST,
  LESS_THAN,
  QUOTATION_MARK,
  SPACE,
} from '../scan/char-codes.ts';

/** Escapes an attribute value for a double-quoted attribute. */
export function escapeAttribute(value: string): string {
  let out = '';
  let from = 0;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    let replacement: string;
    if (code === AMPERSAND) replacement = '&amp;';
    else if (code === LESS_THAN) replacement = '&lt;';
    else if (code === GREATER_THAN) replacement = '&gt;';
    else if (code === QUOTATION_MARK) replacement = '&quot;';
    else if (code < SPACE || code === DELETE) replacement = `&#${code};`;
    else continue;
    out += value.slice(from, index) + replacement;
    from = index + 1;
  }
  return from === 0 ? value : out + value.slice(from);
}

const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';

/** Wraps text as CDATA (nothing for empty text), splitting where CDATA or SSE cannot carry it. */
export function cdata(text: string): string {
  if (text.length === 0) return '';
  if (!text.includes(CDATA_CLOSE) && !text.includes('\r')) return CDATA_OPEN + text + CDATA_CLOSE;
  const body = text
    .replaceAll(CDATA_CLOSE, `]]${CDATA_CLOSE}${CDATA_OPEN}>`)
    .replaceAll('\r', `${CDATA_CLOSE}&#13;${CDATA_OPEN}`);
  return CDATA_OPEN + body + CDATA_CLOSE;
}

type WellFormedString = { toWellFormed?: () => string };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The string with each lone surrogate replaced by U+FFFD (what UTF-8 encoding would do). */
export function wellFormed(text: string): string {
  const native = (text as WellFormedString).toWellFormed;
  if (native) return native.call(text);
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** True when `text` ends with a high surrogate whose pair may come in the next piece. */
export function endsWithHighSurrogate(text: string): boolean {
  const code = text.charCodeAt(text.length - 1);
  return code >= HIGH_SURROGATE_FIRST && code <= HIGH_SURROGATE_LAST;
}
