import { setOwnProperty } from '../core/safe-object.ts';
import {
  AMPERSAND,
  APOSTROPHE,
  EQUALS_SIGN,
  EXCLAMATION_MARK,
  GREATER_THAN,
  LESS_THAN,
  QUOTATION_MARK,
  RIGHT_BRACKET,
  SEMICOLON,
  SLASH,
} from '../scan/char-codes.ts';
import { isMarkupSpace } from '../scan/characters.ts';
import { decodeEntity, isEntityChar, MAX_ENTITY_CHARS } from './entities.ts';
import { isNameChar, isNameStart } from './tags.ts';

/**
 * How the handler reads a start tag, decided once its name is read (`XmlTokenHandler.tagUse`).
 * - `text`: not read. Its attributes are not collected; when it ends it comes back as `text`
 *   exactly as written (or as `tagTooLong` past the cap).
 * - `tag`: read. Its attributes are collected and its raw text is kept whole, so a malformed one
 *   can still go back as text.
 * - `block`: read, and possibly huge (a block carries a call's arguments in an attribute). Only
 *   the first `TAG_PREVIEW_CHARS` of its raw text are kept, for reports, so a malformed one is
 *   always reported, never given back as text.
 */
export type TagUse = 'text' | 'tag' | 'block';

/**
 * What the tokenizer finds, as calls (htmlparser2's Tokenizer/Parser split): the handler builds
 * whatever it wants from them. Every call happens during `write` or `end`; offsets count UTF-16
 * units of everything written since the start (or the last `reset`).
 */
export interface XmlTokenHandler {
  /** A start tag's name was read: how to read the tag (see `TagUse`). */
  tagUse(name: string): TagUse;
  /**
   * Character data as written: plain text, markup that is not a tag (`a < b`, `<!DOCTYPE`, an
   * unread tag), or `&` that starts no reference. Never empty; one run may come in pieces.
   */
  text(text: string): void;
  /** The content of a CDATA section (possibly in pieces, never empty). */
  cdata(text: string): void;
  /** What a character or entity reference (`&amp;`, `&#10;`) stands for. */
  reference(text: string): void;
  /** A read start tag, complete and within the cap. */
  openTag(
    name: string,
    attributes: Record<string, string>,
    selfClosing: boolean,
    offset: number,
  ): void;
  /** An end tag. `raw`: its text as written, for a handler that has no such element open. */
  closeTag(name: string, offset: number, raw: string): void;
  /**
   * A start tag whose attributes grew past `maxTagChars`: dropped, attributes and all.
   * `opensContent`: it ended with `>` (not `/>`), so its content and end tag follow.
   */
  tagTooLong(name: string, offset: number, opensContent: boolean): void;
  /**
   * A read start tag that breaks the grammar (an attribute without a quoted value, …).
   * `preview`: its raw text up to the break, cut to `TAG_PREVIEW_CHARS` (with `…` when cut).
   * Return `true` when it is reported; `false` reads it as text after all (`text`, or
   * `tagTooLong` past the cap), which a `block` tag cannot be.
   */
  malformedTag(name: string, offset: number, preview: string): boolean;
  /** The input ended inside a read start tag: what was read of it. */
  unfinishedTag(
    name: string,
    offset: number,
    preview: string,
    attributes: Record<string, string>,
  ): void;
  /** The input ended inside the CDATA section that began at `offset`. */
  unclosedCdata(offset: number): void;
}

export interface XmlTokenizerOptions {
  /**
   * Most characters of attribute names and values (references included) one start tag may hold;
   * past it the tag's attributes are no longer kept and the tag is dropped (`tagTooLong`).
   */
  readonly maxTagChars: number;
}

/** Longest raw text of a read tag kept for a report. */
export const TAG_PREVIEW_CHARS = 1024;
/** A longer name is not a tag: `<` and the name so far are text. */
const MAX_NAME_CHARS = 256;

const CDATA_MARK = '[CDATA[';
const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';

// One state per place a chunk can end, so a chunk boundary anywhere only parks the tokenizer;
// nothing already read is looked at again.
const TEXT = 0;
const AMP = 1; // after `&` in text
const LT = 2; // after `<`
const MARKUP = 3; // inside `<![CDATA[`, matching it
const CDATA = 4;
const NAME = 5; // start tag name
const END_NAME = 6;
const END_SPACE = 7; // after an end tag's name, before `>`
const ATTR_SPACE = 8; // between attributes
const ATTR_NAME = 9;
const ATTR_EQ = 10; // after an attribute name, before `=`
const ATTR_QUOTE = 11; // after `=`, before the quote
const ATTR_VALUE = 12;
const ATTR_AMP = 13; // after `&` in an attribute value
const SELF_CLOSE = 14; // after `/` in a start tag

/**
 * Characters to XML tokens, incrementally: `write` each chunk, then `end`. A synchronous state
 * machine: each character is looked at once, a chunk boundary anywhere (in a tag, an attribute,
 * a reference, a CDATA marker) only parks it, so the calls it makes do not depend on the
 * chunking (except that a run of text or CDATA may come in more pieces). The only text kept
 * between chunks is that of the tag being read. Never throws on any input.
 */
export class XmlTokenizer {
  private readonly handler: XmlTokenHandler;
  private readonly maxTagChars: number;
  /** Characters written before the current chunk. */
  private base = 0;
  private state = TEXT;

  // The tag being read.
  private tagFrom = 0; // where its raw text starts in the current chunk
  private tagRaw: string[] = []; // its raw text from earlier chunks
  private tagRawChars = 0;
  private keepRaw = true;
  private tagOffset = 0;
  private tagName = '';
  private use: TagUse = 'text';
  private tagChars = 0;
  private tagOverflow = false;
  private attrNames: string[] = [];
  private attrValues: string[] = [];
  private attrName = '';
  private attrValue = '';
  private quote = 0;

  private entity = '';
  private markupIndex = 0;
  /** `]` characters at the end of what CDATA read so far, held until we know they are content. */
  private brackets = 0;
  private cdataOffset = 0;

  constructor(handler: XmlTokenHandler, options: XmlTokenizerOptions) {
    this.handler = handler;
    this.maxTagChars = options.maxTagChars;
  }

  write(chunk: string): void {
    const n = chunk.length;
    let i = 0;
    this.tagFrom = 0;
    while (i < n) {
      switch (this.state) {
        case TEXT: {
          let j = i;
          let code = 0;
          for (; j < n; j++) {
            code = chunk.charCodeAt(j);
            if (code === LESS_THAN || code === AMPERSAND) break;
          }
          if (j > i) this.handler.text(chunk.slice(i, j));
          if (j === n) {
            i = n;
            break;
          }
          if (code === LESS_THAN) {
            // Most markup on the wire is a CDATA section (every delta is one): skip the tag setup.
            if (chunk.charCodeAt(j + 1) === EXCLAMATION_MARK && chunk.startsWith(CDATA_OPEN, j)) {
              this.state = CDATA;
              this.brackets = 0;
              this.cdataOffset = this.base + j;
              i = j + CDATA_OPEN.length;
              break;
            }
            this.beginTag(j);
          } else {
            this.state = AMP;
            this.entity = '';
          }
          i = j + 1;
          break;
        }
        case AMP:
        case ATTR_AMP:
          i = this.readReference(chunk, i);
          break;
        case LT: {
          const code = chunk.charCodeAt(i);
          if (code === SLASH) {
            this.state = END_NAME;
            i++;
          } else if (code === EXCLAMATION_MARK) {
            this.state = MARKUP;
            this.markupIndex = 0;
            i++;
          } else if (isNameStart(code)) {
            this.state = NAME;
          } else {
            this.notATag(chunk, i);
          }
          break;
        }
        case MARKUP:
          if (chunk.charCodeAt(i) !== CDATA_MARK.charCodeAt(this.markupIndex)) {
            this.notATag(chunk, i);
            break;
          }
          i++;
          if (++this.markupIndex === CDATA_MARK.length) {
            this.state = CDATA;
            this.brackets = 0;
            this.cdataOffset = this.tagOffset;
          }
          break;
        case CDATA:
          i = this.readCdata(chunk, i);
          break;
        case NAME:
        case END_NAME: {
          let j = i;
          while (j < n && isNameChar(chunk.charCodeAt(j))) j++;
          this.tagName += chunk.slice(i, j);
          if (this.tagName.length > MAX_NAME_CHARS) {
            this.notATag(chunk, j);
            i = j;
            break;
          }
          if (j === n) {
            i = n;
            break;
          }
          i = this.afterName(chunk, j);
          break;
        }
        case END_SPACE: {
          const code = chunk.charCodeAt(i);
          if (isMarkupSpace(code)) i++;
          else if (code === GREATER_THAN) {
            this.completeEndTag(chunk, i);
            i++;
          } else this.malformed(chunk, i);
          break;
        }
        case ATTR_SPACE: {
          const code = chunk.charCodeAt(i);
          if (isMarkupSpace(code)) i++;
          else if (code === GREATER_THAN) {
            this.completeStartTag(chunk, i, false);
            i++;
          } else if (code === SLASH) {
            this.state = SELF_CLOSE;
            i++;
          } else if (isNameStart(code)) {
            this.state = ATTR_NAME;
            this.attrName = '';
          } else this.malformed(chunk, i);
          break;
        }
        case ATTR_NAME: {
          let j = i;
          while (j < n && isNameChar(chunk.charCodeAt(j))) j++;
          if (this.use !== 'text') this.attrName += chunk.slice(i, j);
          this.countTag(j - i);
          if (j === n) {
            i = n;
            break;
          }
          const code = chunk.charCodeAt(j);
          if (code === EQUALS_SIGN) {
            this.state = ATTR_QUOTE;
            i = j + 1;
          } else if (isMarkupSpace(code)) {
            this.state = ATTR_EQ;
            i = j + 1;
          } else {
            this.malformed(chunk, j);
            i = j;
          }
          break;
        }
        case ATTR_EQ: {
          const code = chunk.charCodeAt(i);
          if (isMarkupSpace(code)) i++;
          else if (code === EQUALS_SIGN) {
            this.state = ATTR_QUOTE;
            i++;
          } else this.malformed(chunk, i);
          break;
        }
        case ATTR_QUOTE: {
          const code = chunk.charCodeAt(i);
          if (isMarkupSpace(code)) i++;
          else if (code === QUOTATION_MARK || code === APOSTROPHE) {
            this.state = ATTR_VALUE;
            this.quote = code;
            this.attrValue = '';
            i++;
          } else this.malformed(chunk, i);
          break;
        }
        case ATTR_VALUE: {
          const quote = this.quote;
          let j = i;
          let code = 0;
          for (; j < n; j++) {
            code = chunk.charCodeAt(j);
            if (code === quote || code === AMPERSAND) break;
          }
          if (this.use !== 'text' && !this.tagOverflow) this.attrValue += chunk.slice(i, j);
          this.countTag(j - i);
          if (j === n) {
            i = n;
            break;
          }
          if (code === AMPERSAND) {
            this.state = ATTR_AMP;
            this.entity = '';
          } else {
            if (this.use !== 'text') {
              this.attrNames.push(this.attrName);
              this.attrValues.push(this.attrValue);
            }
            this.attrValue = '';
            this.state = ATTR_SPACE;
          }
          i = j + 1;
          break;
        }
        case SELF_CLOSE:
          if (chunk.charCodeAt(i) === GREATER_THAN) {
            this.completeStartTag(chunk, i, true);
            i++;
          } else this.malformed(chunk, i);
          break;
      }
    }
    if (this.state >= LT && this.state !== CDATA && this.keepRaw) {
      const piece = chunk.slice(this.tagFrom);
      this.tagRaw.push(piece);
      this.tagRawChars += piece.length;
      // A block tag can carry megabytes of arguments: keep only what a report shows.
      if (this.use === 'block' && this.tagRawChars > TAG_PREVIEW_CHARS) this.keepRaw = false;
    }
    this.base += n;
  }

  /** The input is over: whatever was being read is text, or reported. */
  end(): void {
    const state = this.state;
    this.state = TEXT;
    if (state === TEXT) return;
    if (state === AMP) {
      this.handler.text(`&${this.entity}`);
      return;
    }
    if (state === CDATA) {
      if (this.brackets > 0) this.handler.cdata(']]'.slice(0, this.brackets));
      this.brackets = 0;
      this.handler.unclosedCdata(this.cdataOffset);
      return;
    }
    if (this.use !== 'text' && state !== END_NAME && state !== END_SPACE) {
      const raw = preview(this.tagRaw.join(''));
      this.handler.unfinishedTag(this.tagName, this.tagOffset, raw, this.attributes());
    } else if (this.tagOverflow) {
      this.handler.tagTooLong(this.tagName, this.tagOffset, false);
    } else {
      this.handler.text(this.tagRaw.join(''));
    }
  }

  /** Forgets everything, as for a new input. */
  reset(): void {
    this.base = 0;
    this.state = TEXT;
    this.tagRaw = [];
    this.brackets = 0;
  }

  private beginTag(at: number): void {
    this.state = LT;
    this.tagFrom = at;
    if (this.tagRaw.length > 0) this.tagRaw = [];
    this.tagRawChars = 0;
    this.keepRaw = true;
    this.tagOffset = this.base + at;
    this.tagName = '';
    this.use = 'text';
    this.tagChars = 0;
    this.tagOverflow = false;
    if (this.attrNames.length > 0) {
      this.attrNames = [];
      this.attrValues = [];
    }
  }

  /** The tag's raw text up to `end` (exclusive) of the current chunk. */
  private rawTag(chunk: string, end: number): string {
    const tail = chunk.slice(this.tagFrom, end);
    return this.tagRaw.length === 0 ? tail : this.tagRaw.join('') + tail;
  }

  private countTag(chars: number): void {
    this.tagChars += chars;
    if (this.tagChars > this.maxTagChars && !this.tagOverflow) {
      this.tagOverflow = true;
      this.attrValue = '';
      // An unread tag past the cap is dropped, never given back: its text is not needed.
      if (this.use === 'text') this.keepRaw = false;
    }
  }

  /** What looked like a tag is text after all (`a < b`, `<!DOCTYPE`): the raw text so far. */
  private notATag(chunk: string, at: number): void {
    this.state = TEXT;
    this.handler.text(this.rawTag(chunk, at));
  }

  private afterName(chunk: string, at: number): number {
    const code = chunk.charCodeAt(at);
    if (this.state === END_NAME) {
      if (!isNameStart(this.tagName.charCodeAt(0))) {
        this.notATag(chunk, at);
        return at;
      }
      if (code === GREATER_THAN) {
        this.completeEndTag(chunk, at);
        return at + 1;
      }
      if (isMarkupSpace(code)) {
        this.state = END_SPACE;
        return at + 1;
      }
      this.malformed(chunk, at);
      return at;
    }
    this.use = this.handler.tagUse(this.tagName);
    if (isMarkupSpace(code)) {
      this.state = ATTR_SPACE;
      return at + 1;
    }
    if (code === GREATER_THAN) {
      this.completeStartTag(chunk, at, false);
      return at + 1;
    }
    if (code === SLASH) {
      this.state = SELF_CLOSE;
      return at + 1;
    }
    this.malformed(chunk, at);
    return at;
  }

  /** Broken markup: a read start tag goes to the handler; anything else is text, as written. */
  private malformed(chunk: string, at: number): void {
    const startTag = this.state !== END_NAME && this.state !== END_SPACE;
    this.state = TEXT;
    if (startTag && this.use !== 'text') {
      const raw = this.keepRaw ? this.rawTag(chunk, at) : this.tagRaw.join('');
      const reported = this.handler.malformedTag(this.tagName, this.tagOffset, preview(raw));
      if (reported || this.use === 'block') return;
    }
    if (this.tagOverflow) this.handler.tagTooLong(this.tagName, this.tagOffset, false);
    else this.handler.text(this.rawTag(chunk, at));
  }

  private readReference(chunk: string, from: number): number {
    const inAttribute = this.state === ATTR_AMP;
    let j = from;
    const n = chunk.length;
    while (
      j < n &&
      isEntityChar(chunk.charCodeAt(j)) &&
      this.entity.length + (j - from) < MAX_ENTITY_CHARS
    )
      j++;
    this.entity += chunk.slice(from, j);
    if (inAttribute) this.countTag(j - from);
    if (j === n) return n;
    const decoded = chunk.charCodeAt(j) === SEMICOLON ? decodeEntity(this.entity) : undefined;
    // Not a reference: the `&` and what followed are text, and the stopping character is read again.
    const next = decoded === undefined ? j : j + 1;
    const body = this.entity;
    this.entity = '';
    if (inAttribute) {
      this.state = ATTR_VALUE;
      if (this.use !== 'text' && !this.tagOverflow) this.attrValue += decoded ?? `&${body}`;
    } else {
      this.state = TEXT;
      if (decoded === undefined) this.handler.text(`&${body}`);
      else this.handler.reference(decoded);
    }
    return next;
  }

  private readCdata(chunk: string, from: number): number {
    let i = from;
    const n = chunk.length;
    // Brackets held from the last chunk: decide them one character at a time.
    while (this.brackets > 0 && i < n) {
      const code = chunk.charCodeAt(i);
      if (code === RIGHT_BRACKET) {
        if (this.brackets === 2) this.handler.cdata(']');
        else this.brackets++;
        i++;
      } else if (code === GREATER_THAN && this.brackets === 2) {
        this.brackets = 0;
        this.state = TEXT;
        return i + 1;
      } else {
        this.handler.cdata(this.brackets === 2 ? ']]' : ']');
        this.brackets = 0;
      }
    }
    if (i >= n) return n;
    const close = chunk.indexOf(CDATA_CLOSE, i);
    if (close >= 0) {
      if (close > i) this.handler.cdata(chunk.slice(i, close));
      this.state = TEXT;
      return close + CDATA_CLOSE.length;
    }
    // Hold back up to two trailing `]`: they may begin `]]>` in the next chunk.
    let end = n;
    while (end > i && n - end < 2 && chunk.charCodeAt(end - 1) === RIGHT_BRACKET) end--;
    this.brackets = n - end;
    if (end > i) this.handler.cdata(chunk.slice(i, end));
    return n;
  }

  private attributes(): Record<string, string> {
    const attributes: Record<string, string> = {};
    for (let index = 0; index < this.attrNames.length; index++)
      setOwnProperty(attributes, this.attrNames[index]!, this.attrValues[index]!);
    return attributes;
  }

  private completeStartTag(chunk: string, at: number, selfClosing: boolean): void {
    this.state = TEXT;
    if (this.tagOverflow) {
      this.handler.tagTooLong(this.tagName, this.tagOffset, !selfClosing);
      return;
    }
    if (this.use === 'text') {
      this.handler.text(this.rawTag(chunk, at + 1));
      return;
    }
    this.handler.openTag(this.tagName, this.attributes(), selfClosing, this.tagOffset);
  }

  private completeEndTag(chunk: string, at: number): void {
    this.state = TEXT;
    this.handler.closeTag(this.tagName, this.tagOffset, this.rawTag(chunk, at + 1));
  }
}

/** A read tag's raw text for a report: its first TAG_PREVIEW_CHARS characters. */
function preview(raw: string): string {
  return raw.length > TAG_PREVIEW_CHARS ? `${raw.slice(0, TAG_PREVIEW_CHARS)}…` : raw;
}
