/**
 * Reads a streamed chunk's text without parsing its JSON, when it is the same chunk as the one
 * before but for the text.
 *
 * A model server writes every token of a reply in the same chunk (`{"id":"…","object":
 * "chat.completion.chunk",…,"choices":[{"index":0,"delta":{"content":"TOKEN"},…}]}`): only the
 * content's string differs. Once a chunk has been parsed in full and found to carry only text,
 * the text before its content's string and the text after it are kept; a later chunk that is
 * exactly that prefix, one JSON string, and that suffix has the same structure with another
 * string in that one place (JSON's grammar has no context a string could change), so its text is
 * that string's value, and nothing else about it differs: no reasoning, no finish, no usage, the
 * same nesting. Anything else is parsed in full, as before.
 */
import { parseJsonText } from '../core/parse-json.ts';

/** Longest chunk learned from: the prefix and suffix are compared in full for every chunk. */
const MAX_TEMPLATE_CHARS = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;

/** The end (exclusive) of the JSON string token starting at `start` (a `"`), or -1. */
function stringTokenEnd(text: string, start: number): number {
  for (let at = start + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === BACKSLASH) at++;
    else if (code === QUOTE) return at + 1;
  }
  return -1;
}

/**
 * The value of `token` when it is one JSON string token, or undefined. The usual token (a few
 * characters, no escape) is read without a parse.
 */
function stringValue(token: string): string | undefined {
  const last = token.length - 1;
  if (last < 1 || token.charCodeAt(0) !== QUOTE || token.charCodeAt(last) !== QUOTE) return;
  for (let at = 1; at < last; at++) {
    const code = token.charCodeAt(at);
    if (code === QUOTE || code === BACKSLASH || code < SPACE) {
      // Escapes (or a quote that would end the string early): the parser decides.
      try {
        const value: unknown = parseJsonText(token);
        return typeof value === 'string' ? value : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return token.slice(1, last);
}

export class ContentChunkTemplate {
  private prefix: string | undefined;
  private suffix = '';

  /**
   * Learns from a chunk parsed in full whose only news is `content` (its delta's text): the
   * text around its one `"content":` string. A chunk with the key more than once, with an escape
   * outside that string, or with the string not the text found, is not learned from (and the
   * template is forgotten).
   */
  learn(data: string, content: string): void {
    this.prefix = undefined;
    if (data.length > MAX_TEMPLATE_CHARS) return;
    const key = data.indexOf('"content":');
    // Outside a string a `"` is never escaped, so each match is a key: there must be one.
    if (key < 0 || data.indexOf('"content":', key + 1) >= 0) return;
    let start = key + 10;
    while (start < data.length && data.charCodeAt(start) <= SPACE) start++;
    if (data.charCodeAt(start) !== QUOTE) return;
    const end = stringTokenEnd(data, start);
    if (end < 0 || stringValue(data.slice(start, end)) !== content) return;
    const prefix = data.slice(0, start);
    const suffix = data.slice(end);
    // Without an escape around it, no key is spelled any other way than as it reads: the one
    // `"content":` is the delta's, where the text was found.
    if (prefix.includes('\\') || suffix.includes('\\')) return;
    this.prefix = prefix;
    this.suffix = suffix;
  }

  /** The chunk's text when it is the learned chunk with another string; else undefined. */
  read(data: string): string | undefined {
    const prefix = this.prefix;
    if (prefix === undefined) return undefined;
    const end = data.length - this.suffix.length;
    if (end - prefix.length < 2 || !data.startsWith(prefix) || !data.endsWith(this.suffix))
      return undefined;
    return stringValue(data.slice(prefix.length, end));
  }
}
