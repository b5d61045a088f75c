import { createParser, type EventSourceParser, type ParseError } from 'eventsource-parser';
import { BYTE_ORDER_MARK, CARRIAGE_RETURN, LINE_FEED } from '../scan/char-codes.ts';
import type { DecodedEvent } from './blocks.ts';
import {
  DEFAULT_MAX_BLOCK_CHARS,
  type ReceivingBlock,
  XmlBlockDecoder,
  type XmlBlockDecoderOptions,
} from './xml-decoder.ts';

export interface BlockDecoderOptions extends XmlBlockDecoderOptions {
  /**
   * `sse` (default): the input is a Server-Sent Events body; each message's data is the next
   * piece of XML, and a streamed block gives one delta per message. `xml`: the input is the XML
   * text itself.
   */
  readonly framing?: 'sse' | 'xml';
  /**
   * SSE only: most characters of one message (and of a line) buffered before it completes.
   * Default: `maxBlockChars` plus room for the framing.
   */
  readonly maxMessageChars?: number;
}

/** Decodes a content-block stream: bytes (UTF-8) or strings, chunked anyhow. */
export interface BlockDecoder {
  /** The next chunk; returns the events it completes. Never throws on any input. */
  push(chunk: string | Uint8Array): DecodedEvent[];
  /** The input is over: closes what is open, reporting it. The decoder can then be reused. */
  end(): DecodedEvent[];
  /** Forgets everything, as for a new stream. */
  reset(): void;
  /**
   * The connection dropped: the message it was cut off in is forgotten (its unfinished lines
   * and any held bytes of a character), and nothing is closed, so the next `push` can be the
   * stream read again after `lastEventId`. What is read across reconnects is then what one
   * unbroken read gives. `xml` framing has no messages: only held bytes are dropped.
   */
  dropPartialMessage(): void;
  /**
   * SSE only: the `id:` of the last complete message read since the decoder was made or reset
   * (undefined before one carried an id); what a reconnect sends as `Last-Event-ID`.
   */
  readonly lastEventId: string | undefined;
  /** The top-level block being received, if one is open (a page may show "receiving…"). */
  readonly receiving: ReceivingBlock | undefined;
}

export function createBlockDecoder(options: BlockDecoderOptions = {}): BlockDecoder {
  const xml = new XmlBlockDecoder(options);
  return (options.framing ?? 'sse') === 'sse'
    ? new SseBlockDecoder(xml, options)
    : new TextBlockDecoder(xml);
}

/** Decodes a whole input at once (tests, recordings): `push` of each chunk, then `end`. */
export function decodeBlocks(
  input: string | Uint8Array | Iterable<string | Uint8Array>,
  options: BlockDecoderOptions = {},
): DecodedEvent[] {
  const decoder = createBlockDecoder(options);
  const chunks = typeof input === 'string' || input instanceof Uint8Array ? [input] : input;
  const events: DecodedEvent[] = [];
  for (const chunk of chunks) for (const event of decoder.push(chunk)) events.push(event);
  for (const event of decoder.end()) events.push(event);
  return events;
}

const STREAMING = { stream: true } as const;

interface StreamingTextDecoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

/** True when the bytes may end inside a UTF-8 character (its lead byte wants more). */
function endsMidCharacter(bytes: Uint8Array): boolean {
  let index = bytes.length - 1;
  let continuation = 0;
  while (index >= 0 && continuation < 3 && (bytes[index]! & 0xc0) === 0x80) {
    index--;
    continuation++;
  }
  if (index < 0) return bytes.length > 0;
  const lead = bytes[index]!;
  const wanted = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return continuation < wanted;
}

/**
 * Bytes become text with a UTF-8 decoder kept across chunks, so a character split across chunks
 * is whole. A chunk that ends on a character boundary, with nothing held from before, is
 * decoded without the streaming flag: the same text, and in Node about 40% cheaper per call.
 * A byte order mark is dropped at the very start only (strings too), never inside the stream.
 */
class Utf8Text {
  private decoder: StreamingTextDecoder | undefined;
  /** The decoder may hold the first bytes of a character. */
  private pending = false;
  private started = false;

  text(chunk: string | Uint8Array): string {
    let text: string;
    if (typeof chunk === 'string') {
      text = this.pending ? this.finish() + chunk : chunk;
    } else {
      this.decoder ??= new TextDecoder('utf-8', { ignoreBOM: true });
      if (this.pending || endsMidCharacter(chunk)) {
        text = this.decoder.decode(chunk, STREAMING);
        this.pending = endsMidCharacter(chunk);
      } else {
        text = this.decoder.decode(chunk);
      }
    }
    if (this.started || text.length === 0) return text;
    this.started = true;
    return text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text;
  }

  /** Bytes of an unfinished character at the end read as U+FFFD, as a browser would. */
  finish(): string {
    if (!this.pending) return '';
    this.pending = false;
    return this.decoder!.decode();
  }

  reset(): void {
    this.finish();
    this.started = false;
  }

  /** Held bytes of a character are dropped, not read as U+FFFD; the next input is a new body. */
  drop(): void {
    this.finish();
    this.started = false;
  }
}

class TextBlockDecoder implements BlockDecoder {
  private readonly xml: XmlBlockDecoder;
  private readonly utf8 = new Utf8Text();

  constructor(xml: XmlBlockDecoder) {
    this.xml = xml;
  }

  get receiving(): ReceivingBlock | undefined {
    return this.xml.receiving;
  }

  push(chunk: string | Uint8Array): DecodedEvent[] {
    return this.xml.push(this.utf8.text(chunk));
  }

  end(): DecodedEvent[] {
    const rest = this.xml.push(this.utf8.finish());
    const closing = this.xml.end();
    this.utf8.reset();
    return rest.length === 0 ? closing : rest.concat(closing);
  }

  get lastEventId(): string | undefined {
    return undefined;
  }

  reset(): void {
    this.utf8.reset();
    this.xml.reset();
  }

  dropPartialMessage(): void {
    this.utf8.drop();
  }
}

/**
 * SSE through `eventsource-parser` (incremental: it keeps only the unfinished line and message).
 * Messages with an `event:` name other than `message` are not content (keep-alives, custom
 * events) and are skipped; comments too.
 */
class SseBlockDecoder implements BlockDecoder {
  private readonly xml: XmlBlockDecoder;
  private readonly utf8 = new Utf8Text();
  private readonly sse: EventSourceParser;
  private readonly maxMessageChars: number;
  private events: DecodedEvent[] = [];
  /** Characters of data handed to the XML decoder, for problem offsets. */
  private offset = 0;
  private overflowed = false;
  /** After an oversized message: input is dropped until the blank line that ends it. */
  private skipping = false;
  private lineEmpty = true;
  private afterCr = false;
  private lastId: string | undefined;

  constructor(xml: XmlBlockDecoder, options: BlockDecoderOptions) {
    this.xml = xml;
    this.maxMessageChars =
      options.maxMessageChars ?? (options.maxBlockChars ?? DEFAULT_MAX_BLOCK_CHARS) + 1024 * 1024;
    this.sse = createParser({
      onEvent: (message) => {
        // As in EventSource: an id holds until a later message gives another.
        if (message.id !== undefined) this.lastId = message.id;
        if (message.event !== undefined && message.event !== 'message') return;
        this.offset += message.data.length;
        this.xml.pushInto(message.data, this.events);
      },
      onError: (error) => this.sseProblem(error),
      maxBufferSize: this.maxMessageChars,
    });
  }

  get receiving(): ReceivingBlock | undefined {
    return this.xml.receiving;
  }

  get lastEventId(): string | undefined {
    return this.lastId;
  }

  push(chunk: string | Uint8Array): DecodedEvent[] {
    const text = this.utf8.text(chunk);
    if (text.length > 0) this.feed(text);
    return this.take();
  }

  end(): DecodedEvent[] {
    const rest = this.utf8.finish();
    if (rest.length > 0) this.feed(rest);
    // A last message without its blank line is still content (a server cut off mid-stream).
    this.feed('\n\n');
    this.sse.reset();
    this.utf8.reset();
    const closing = this.xml.end();
    for (const event of closing) this.events.push(event);
    this.offset = 0;
    return this.take();
  }

  reset(): void {
    this.utf8.reset();
    this.sse.reset();
    this.xml.reset();
    this.events = [];
    this.offset = 0;
    this.skipping = false;
    this.lastId = undefined;
  }

  dropPartialMessage(): void {
    this.utf8.drop();
    // Without `consume`, the parser forgets the unfinished line and message.
    this.sse.reset();
    this.overflowed = false;
    this.skipping = false;
    this.lineEmpty = true;
    this.afterCr = false;
  }

  private feed(text: string): void {
    const rest = this.skipping ? this.skip(text) : text;
    if (rest.length === 0) return;
    this.sse.feed(rest);
    if (this.overflowed) {
      // The parser stops at its cap; the rest of that message is dropped, not read as lines.
      this.overflowed = false;
      this.sse.reset();
      this.skipping = true;
      const last = rest.charCodeAt(rest.length - 1);
      this.lineEmpty = last === LINE_FEED || last === CARRIAGE_RETURN;
      this.afterCr = last === CARRIAGE_RETURN;
    }
  }

  /** Drops text up to the end of the message being skipped; returns what follows it. */
  private skip(text: string): string {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code === LINE_FEED && this.afterCr) {
        this.afterCr = false;
        continue;
      }
      this.afterCr = code === CARRIAGE_RETURN;
      if (code !== LINE_FEED && code !== CARRIAGE_RETURN) {
        this.lineEmpty = false;
        continue;
      }
      if (this.lineEmpty) {
        this.skipping = false;
        // A CRLF blank line: its LF belongs to it.
        const next =
          code === CARRIAGE_RETURN && text.charCodeAt(index + 1) === LINE_FEED
            ? index + 2
            : index + 1;
        this.afterCr = false;
        return text.slice(next);
      }
      this.lineEmpty = true;
    }
    return '';
  }

  private take(): DecodedEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private sseProblem(error: ParseError): void {
    if (error.type === 'max-buffer-size-exceeded') this.overflowed = true;
    const tooLarge = error.type === 'max-buffer-size-exceeded';
    const message = tooLarge
      ? `an SSE message grew past ${this.maxMessageChars} characters; it was dropped`
      : error.message;
    this.events.push({
      type: 'decode-error',
      problem: {
        code: tooLarge ? 'too-large' : 'sse',
        message: `${message} (SSE, after ${this.offset} characters of data)`,
        offset: this.offset,
        // The line can be as long as the cap: keep the start, enough to say what it was.
        ...(error.line !== undefined ? { raw: error.line.slice(0, 1024) } : {}),
      },
    });
  }
}
