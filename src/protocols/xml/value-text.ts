import { SEMICOLON } from '../../scan/char-codes.ts';
import { isMarkupSpace } from '../../scan/characters.ts';
import { isSurrogate, readReference } from '../../scan/xml-references.ts';

/**
 * The text of an XML parameter value, decoded and trimmed as it streams.
 *
 * Trimming rule (the same for streamed and held values): white space written around a value is
 * layout, not content. Trailing white space is dropped. Leading white space is dropped entirely
 * when the value is a single line (`<path>  ./src  </path>` is `./src`, and pretty-printed
 * `<q>\n    text\n  </q>` is `text`); when the value spans several lines, only the line break
 * after the tag is dropped and the first line's indentation is kept, because it is code
 * (`<content>\n    indented\n    more\n</content>` keeps its four spaces). White space inside CDATA
 * or written as a character reference is content and never trimmed.
 */
export interface ValueTextSink {
  /** Literal text outside CDATA (entities already decoded by the caller or not present). */
  literal(text: string): void;
  /** Text that is content whatever it contains (CDATA, decoded character references). */
  content(text: string): void;
  /** The value is complete. */
  end(): void;
}

const Phase = {
  Leading: 0,
  FirstLine: 1,
  Body: 2,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

function lastNonSpace(text: string): number {
  for (let index = text.length - 1; index >= 0; index--) {
    if (!isMarkupSpace(text.charCodeAt(index))) return index;
  }
  return -1;
}

/**
 * A ValueTextSink that applies the trimming rule and passes the result on in pieces. A class with
 * `reset` so one call body reuses it for every value (a value is often a word or two).
 */
export class TrimmingSink implements ValueTextSink {
  private readonly emit: (text: string) => void;
  private phase: Phase = Phase.Leading;
  private leading = '';
  /** First-line content held until we know whether the value has more lines. */
  private firstLine = '';
  /** White space after the last content character, held until more content follows. */
  private tail = '';

  constructor(emit: (text: string) => void) {
    this.emit = emit;
  }

  /** Ready for a new value. */
  reset(): void {
    this.phase = Phase.Leading;
    this.leading = '';
    this.firstLine = '';
    this.tail = '';
  }

  private indentation(): string {
    return this.leading.slice(this.leading.lastIndexOf('\n') + 1);
  }

  /** Adds content (ending in a non-space character, or forced content) after the held tail. */
  private addContent(segment: string): void {
    if (this.phase === Phase.Body) {
      this.emit(segment);
      return;
    }
    if (this.phase === Phase.Leading) {
      // Only indentation before the first character is in doubt; without any, stream at once.
      if (this.indentation() === '') {
        this.phase = Phase.Body;
        this.emit(segment);
        return;
      }
      this.phase = Phase.FirstLine;
    }
    if (segment.includes('\n')) {
      // A line break with content after it: the value is multi-line, so the indentation counts.
      this.phase = Phase.Body;
      this.emit(this.indentation() + this.firstLine + segment);
      this.firstLine = '';
      return;
    }
    this.firstLine += segment;
  }

  literal(text: string): void {
    if (text.length === 0) return;
    if (this.phase === Phase.Leading) {
      let first = 0;
      while (first < text.length && isMarkupSpace(text.charCodeAt(first))) first++;
      if (first === text.length) {
        this.leading += text;
        return;
      }
      this.leading += text.slice(0, first);
      text = text.slice(first);
    }
    const last = lastNonSpace(text);
    if (last === -1) {
      this.tail += text;
      return;
    }
    const segment = this.tail + text.slice(0, last + 1);
    this.tail = text.slice(last + 1);
    this.addContent(segment);
  }

  content(text: string): void {
    if (text.length === 0) return;
    const segment = this.tail + text;
    this.tail = '';
    this.addContent(segment);
  }

  end(): void {
    if (this.phase === Phase.FirstLine) this.emit(this.firstLine);
    this.firstLine = '';
    this.tail = '';
  }
}

/** Longest entity we try to read: `&#x10FFFF;` is 10 characters. */
const MAX_ENTITY_LENGTH = 10;

/** A reference's text in a value; a surrogate or NUL cannot stand there, so it stays as written. */
function decodeReference(body: string): string | undefined {
  const read = readReference(body);
  if (typeof read !== 'number') return read;
  return read === 0 || isSurrogate(read) ? undefined : String.fromCodePoint(read);
}

/**
 * The `;` that ends the reference begun by the `&` at `amp`, or -1 when none is within reach (so
 * text full of bare `&` stays linear).
 */
function semicolonAfter(text: string, amp: number): number {
  const last = Math.min(amp + MAX_ENTITY_LENGTH, text.length - 1);
  for (let index = amp + 1; index <= last; index++) {
    if (text.charCodeAt(index) === SEMICOLON) return index;
  }
  return -1;
}

/**
 * Decodes the five predefined XML entities and numeric character references in one pass, so
 * `&amp;lt;` is `&lt;` (never `<`). Nothing else is expanded: there is no DTD. An entity cut by a
 * chunk boundary is held until it completes. Decoded characters are passed on as content.
 */
export class EntityDecoder {
  private readonly sink: ValueTextSink;
  private held = '';

  constructor(sink: ValueTextSink) {
    this.sink = sink;
  }

  write(input: string): void {
    const sink = this.sink;
    const text = this.held.length > 0 ? this.held + input : input;
    this.held = '';
    let start = 0;
    while (start < text.length) {
      const amp = text.indexOf('&', start);
      if (amp === -1) {
        sink.literal(start === 0 ? text : text.slice(start));
        return;
      }
      const semicolon = semicolonAfter(text, amp);
      if (semicolon === -1) {
        if (text.length <= amp + MAX_ENTITY_LENGTH) {
          // The reference may still complete in the next chunk.
          sink.literal(text.slice(start, amp));
          this.held = text.slice(amp);
          return;
        }
        sink.literal(text.slice(start, amp + 1));
        start = amp + 1;
        continue;
      }
      const decoded = decodeReference(text.slice(amp + 1, semicolon));
      if (decoded === undefined) {
        sink.literal(text.slice(start, amp + 1));
        start = amp + 1;
        continue;
      }
      sink.literal(text.slice(start, amp));
      sink.content(decoded);
      start = semicolon + 1;
    }
  }

  /** Passes on a reference still held (it never completed). Ready for a new value after. */
  end(): void {
    if (this.held.length > 0) this.sink.literal(this.held);
    this.held = '';
  }
}

/**
 * The references in text held whole, decoded by EntityDecoder's rules in one pass (a reference's
 * `;` must come within reach of its `&`; what does not decode stays as written).
 */
export function decodeReferences(text: string): string {
  let decoded = '';
  let from = 0;
  let amp = text.indexOf('&');
  while (amp !== -1) {
    const semicolon = semicolonAfter(text, amp);
    const reference =
      semicolon === -1 ? undefined : decodeReference(text.slice(amp + 1, semicolon));
    if (reference === undefined) {
      amp = text.indexOf('&', amp + 1);
      continue;
    }
    decoded += text.slice(from, amp) + reference;
    from = semicolon + 1;
    amp = text.indexOf('&', from);
  }
  return from === 0 ? text : decoded + text.slice(from);
}
