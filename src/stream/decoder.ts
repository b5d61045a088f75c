import { createParser, type EventSourceParser, type ParseError } from 'eventsource-parser';
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

/** Bytes become text with a streaming UTF-8 decoder, so a character split across chunks is whole. */
interface StreamingTextDecoder {
  decode(input?: Uint8Array, options?: { stream?: boolean }): string;
}

class Utf8Text {
  private decoder: StreamingTextDecoder | undefined;

  text(chunk: string | Uint8Array): string {
    if (typeof chunk === 'string') return this.decoder ? this.finish() + chunk : chunk;
    this.decoder ??= new TextDecoder('utf-8');
    return this.decoder.decode(chunk, { stream: true });
  }

  /** Bytes of an unfinished character at the end read as U+FFFD, as a browser would. */
  finish(): string {
    const decoder = this.decoder;
    this.decoder = undefined;
    return decoder ? decoder.decode() : '';
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
    return rest.length === 0 ? closing : rest.concat(closing);
  }

  reset(): void {
    this.utf8.finish();
    this.xml.reset();
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

  constructor(xml: XmlBlockDecoder, options: BlockDecoderOptions) {
    this.xml = xml;
    this.maxMessageChars =
      options.maxMessageChars ?? (options.maxBlockChars ?? DEFAULT_MAX_BLOCK_CHARS) + 1024 * 1024;
    this.sse = createParser({
      onEvent: (message) => {
        if (message.event !== undefined && message.event !== 'message') return;
        this.offset += message.data.length;
        const events = this.xml.push(message.data);
        for (let index = 0; index < events.length; index++) this.events.push(events[index]!);
      },
      onError: (error) => this.sseProblem(error),
      maxBufferSize: this.maxMessageChars,
    });
  }

  get receiving(): ReceivingBlock | undefined {
    return this.xml.receiving;
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
    this.sse.reset({ consume: true });
    this.sse.feed('\n');
    this.sse.reset();
    const closing = this.xml.end();
    for (const event of closing) this.events.push(event);
    this.offset = 0;
    return this.take();
  }

  reset(): void {
    this.utf8.finish();
    this.sse.reset();
    this.xml.reset();
    this.events = [];
    this.offset = 0;
  }

  private feed(text: string): void {
    this.sse.feed(text);
    if (this.overflowed) {
      // The parser stops after its buffer cap; start again after the oversized message.
      this.overflowed = false;
      this.sse.reset();
    }
  }

  private take(): DecodedEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private sseProblem(error: ParseError): void {
    if (error.type === 'max-buffer-size-exceeded') this.overflowed = true;
    const code = error.type === 'max-buffer-size-exceeded' ? 'too-large' : 'sse';
    this.events.push({
      type: 'decode-error',
      problem: {
        code,
        message: `${error.message} (SSE, after ${this.offset} characters of data)`,
        offset: this.offset,
        ...(error.line !== undefined ? { raw: error.line } : {}),
      },
    });
  }
}
