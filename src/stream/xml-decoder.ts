import { parseJsonText } from '../core/parse-json.ts';
import { setOwnProperty } from '../core/safe-object.ts';
import { isMarkupSpace } from '../scan/characters.ts';
import type {
  Citation,
  DecodedEvent,
  DecodeProblem,
  DecodeProblemCode,
  FileRecord,
  JsonValue,
  MetaFinalData,
  MetaInitData,
  PendingFrontendTool,
  ToolKind,
  ToolResultPart,
} from './blocks.ts';
import { EMBED_TAGS, TAG, TOOL_RESULT_SUFFIX } from './tags.ts';
import { type TagUse, type XmlTokenHandler, XmlTokenizer } from './xml-tokenizer.ts';

export interface XmlBlockDecoderOptions {
  /**
   * Most characters buffered for one block before its end arrives (a tool result, a payload,
   * one tag with its attributes, an unknown tag kept as text). Past it the block is dropped with
   * a `too-large` problem and decoding goes on. Streamed text, thinking and call arguments are
   * never buffered. Default 16 MiB.
   */
  readonly maxBlockChars?: number;
}

export const DEFAULT_MAX_BLOCK_CHARS = 16 * 1024 * 1024;

/** A block received so far but not complete (what a page may show as "receiving…"). */
export interface ReceivingBlock {
  readonly tag: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly offset: number;
}

// What a frame (an open element) does with its content.
const F_TOP = 0; // outside any block: content is stray text
const F_STREAM = 1; // text, thinking, or a call's streamed arguments: content is a delta
const F_EMPTY = 2; // a block whose content is all in attributes: only white space may follow
const F_SKIP = 3; // a block dropped for size: its content is dropped too
const F_RESULT = 4;
const F_RESULT_TEXT = 5; // <text> in a multimodal result
const F_IMAGE = 6; // <image …> written with a closing tag
const F_CITATIONS = 7;
const F_CITATION = 8;
const F_EMBED = 9; // <chart>/<table> in a text block
const F_PAYLOAD = 10; // meta_files, error: a JSON body

type StreamKind = 'text' | 'thinking' | 'call';

/** Between pushes nothing is emitted; this frozen array makes a stray write fail loudly. */
const NO_SINK: DecodedEvent[] = Object.freeze([]) as unknown as DecodedEvent[];

class Frame {
  readonly kind: number;
  readonly tag: string;
  readonly attributes: Record<string, string>;
  readonly offset: number;
  /** F_STREAM: what the deltas are. */
  stream: StreamKind = 'text';
  /** Buffered content (for F_RESULT: the text since the last child). */
  body = '';
  /** F_EMPTY, F_IMAGE, F_CITATIONS: content, which should be layout white space only. */
  unexpected = '';
  /** F_RESULT: `body` holds more than layout white space; others: `unexpected` does. */
  significant = false;
  /** F_RESULT: a <text> or <image> child was seen. */
  multimodal = false;
  parts: ToolResultPart[] | undefined;
  citations: Citation[] | undefined;

  constructor(kind: number, tag: string, attributes: Record<string, string>, offset: number) {
    this.kind = kind;
    this.tag = tag;
    this.attributes = attributes;
    this.offset = offset;
  }
}

/**
 * Reads the XML content-block stream incrementally. `push` takes the next piece of XML text and
 * returns the events it completes; `end` closes the stream. Two parts, as htmlparser2 splits
 * its Tokenizer and Parser: an `XmlTokenizer` turns characters into tokens (text, CDATA,
 * references, tags with their attributes), and a `BlockReader` turns tokens into block events,
 * keeping the open elements. Each character is looked at once and a chunk boundary anywhere only
 * parks the tokenizer; the only text kept between chunks is what an unfinished block needs.
 * Streamed blocks give one delta per push, so over SSE a delta is one message. Never throws on
 * any input.
 */
export class XmlBlockDecoder {
  private readonly reader: BlockReader;
  private readonly tokenizer: XmlTokenizer;

  constructor(options: XmlBlockDecoderOptions = {}) {
    const maxBlockChars = options.maxBlockChars ?? DEFAULT_MAX_BLOCK_CHARS;
    this.reader = new BlockReader(maxBlockChars);
    this.tokenizer = new XmlTokenizer(this.reader, { maxTagChars: maxBlockChars });
  }

  /** The top-level block being received, if one is open. */
  get receiving(): ReceivingBlock | undefined {
    return this.reader.receiving;
  }

  push(chunk: string): DecodedEvent[] {
    const events: DecodedEvent[] = [];
    this.pushInto(chunk, events);
    return events;
  }

  /** `push`, appending the events to `sink` (saves an array per message on the SSE path). */
  pushInto(chunk: string, sink: DecodedEvent[]): void {
    this.reader.out = sink;
    this.tokenizer.write(chunk);
    this.reader.flush();
    this.reader.out = NO_SINK;
  }

  end(): DecodedEvent[] {
    const events: DecodedEvent[] = [];
    this.reader.out = events;
    this.tokenizer.end();
    this.reader.closeAll('the stream ended');
    this.reader.flush();
    this.reset();
    return events;
  }

  reset(): void {
    this.tokenizer.reset();
    this.reader.reset();
  }
}

/** Tokens to block events: the open elements as frames, each reading its content its way. */
class BlockReader implements XmlTokenHandler {
  private readonly maxBlockChars: number;
  /** Where events go during a push (a caller's array). */
  out: DecodedEvent[] = NO_SINK;
  private frames: Frame[] = [new Frame(F_TOP, '', {}, 0)];
  private current: Frame = this.frames[0]!;

  // Text not yet emitted: a delta of the innermost F_STREAM frame, or stray text at top level.
  private pending = '';
  private pendingFrame: Frame | undefined;
  private stray = '';

  // Buffered characters of the open top-level block, for the size cap.
  private buffered = 0;
  private dropped = 0;

  constructor(maxBlockChars: number) {
    this.maxBlockChars = maxBlockChars;
  }

  get receiving(): ReceivingBlock | undefined {
    const frame = this.frames[1];
    if (!frame) return undefined;
    return { tag: frame.tag, attributes: frame.attributes, offset: frame.offset };
  }

  reset(): void {
    this.out = NO_SINK;
    this.frames = [new Frame(F_TOP, '', {}, 0)];
    this.current = this.frames[0]!;
    this.pending = '';
    this.pendingFrame = undefined;
    this.stray = '';
    this.buffered = 0;
    this.dropped = 0;
  }

  // ── tokens ─────────────────────────────────────────────────────────────────────────────

  text(text: string): void {
    this.content(text, false);
  }

  cdata(text: string): void {
    this.content(text, true);
  }

  reference(text: string): void {
    this.content(text, true);
  }

  /** A tag is read when it opens a block, or is a child the current frame has. */
  tagUse(name: string): TagUse {
    if (isBlockTag(name)) return 'block';
    const frame = this.current;
    switch (frame.kind) {
      case F_STREAM:
        return frame.stream === 'text' && EMBED_TAGS.has(name) ? 'tag' : 'text';
      case F_RESULT:
        return name === TAG.resultText || name === TAG.resultImage ? 'tag' : 'text';
      case F_CITATIONS:
        return name === TAG.citation ? 'tag' : 'text';
      default:
        return 'text';
    }
  }

  openTag(
    name: string,
    attributes: Record<string, string>,
    selfClosing: boolean,
    offset: number,
  ): void {
    this.openElement(name, attributes, selfClosing, offset);
  }

  tagTooLong(name: string, offset: number, opensContent: boolean): void {
    this.problem(
      'too-large',
      `the <${name}> tag is longer than ${this.maxBlockChars} characters; it was dropped`,
      offset,
      { tag: name },
    );
    // A block's content and end tag go with it.
    if (opensContent && isBlockTag(name)) {
      this.closeForBlock(name);
      this.pushFrame(new Frame(F_SKIP, name, {}, offset));
    }
  }

  malformedTag(name: string, offset: number, preview: string): boolean {
    // A broken <chart>/<table> in text is more likely prose about tags than a broken embed.
    if (this.current.kind === F_STREAM && EMBED_TAGS.has(name)) return false;
    this.problem('malformed-tag', `<${name}> is not well formed`, offset, {
      raw: preview,
      tag: name,
    });
    return true;
  }

  unfinishedTag(
    name: string,
    offset: number,
    preview: string,
    attributes: Record<string, string>,
  ): void {
    this.problem('unclosed-block', `the stream ended inside the <${name}> tag`, offset, {
      raw: preview,
      tag: name,
      attributes,
    });
  }

  unclosedCdata(offset: number): void {
    this.problem('unclosed-cdata', 'the stream ended inside a CDATA section', offset);
  }

  closeTag(name: string, offset: number, raw: string): void {
    for (let depth = this.frames.length - 1; depth > 0; depth--) {
      if (this.frames[depth]!.tag !== name) continue;
      while (this.frames.length - 1 > depth) {
        const inner = this.frames[this.frames.length - 1]!;
        this.problem(
          'unclosed-block',
          `<${inner.tag}> was not closed before </${name}>`,
          inner.offset,
          {
            tag: inner.tag,
            attributes: inner.attributes,
          },
        );
        this.popFrame(true);
      }
      this.popFrame(true);
      return;
    }
    if (isBlockTag(name))
      this.problem('unexpected-end-tag', `</${name}> closes a block that is not open`, offset, {
        raw,
        tag: name,
      });
    else this.content(raw, true);
  }

  // ── elements ───────────────────────────────────────────────────────────────────────────

  private openElement(
    name: string,
    attributes: Record<string, string>,
    selfClosing: boolean,
    offset: number,
  ): void {
    const frame = this.current;
    if (frame.kind === F_RESULT && (name === TAG.resultText || name === TAG.resultImage)) {
      this.beginResultPart(frame);
      if (name === TAG.resultImage) {
        frame.parts!.push({
          type: 'image',
          src: attributes.src ?? '',
          mediaType: attributes.media_type ?? '',
        });
        if (!selfClosing) this.pushFrame(new Frame(F_IMAGE, name, attributes, offset));
      } else {
        const part = new Frame(F_RESULT_TEXT, name, attributes, offset);
        this.pushFrame(part);
        if (selfClosing) this.popFrame(true);
      }
      return;
    }
    if (frame.kind === F_CITATIONS && name === TAG.citation) {
      this.pushFrame(new Frame(F_CITATION, name, attributes, offset));
      if (selfClosing) this.popFrame(true);
      return;
    }
    if (frame.kind === F_STREAM && EMBED_TAGS.has(name)) {
      this.pushFrame(new Frame(F_EMBED, name, attributes, offset));
      if (selfClosing) this.popFrame(true);
      return;
    }
    this.closeForBlock(name);
    this.openBlock(name, attributes, selfClosing, offset);
  }

  /** A block tag inside another block: the open blocks were never closed. */
  private closeForBlock(name: string): void {
    if (this.frames.length > 1) this.closeAll(`<${name}> began`);
  }

  private openBlock(
    name: string,
    attributes: Record<string, string>,
    selfClosing: boolean,
    offset: number,
  ): void {
    switch (name) {
      case TAG.metaInit:
      case TAG.metaFinal:
      case TAG.awaitingFrontendTools:
        this.emitDataBlock(name, attributes, offset);
        this.openEmpty(name, attributes, selfClosing, offset);
        return;
      case TAG.thinking:
      case TAG.text: {
        const kind = name === TAG.text ? 'text' : 'thinking';
        this.emit({ type: kind === 'text' ? 'text-start' : 'thinking-start' });
        const frame = new Frame(F_STREAM, name, attributes, offset);
        frame.stream = kind;
        this.pushFrame(frame);
        if (selfClosing) this.popFrame(true);
        return;
      }
      case TAG.toolCall:
      case TAG.serverToolCall: {
        const kind: ToolKind = name === TAG.toolCall ? 'client' : 'server';
        const id = attributes.id ?? '';
        const toolName = attributes.name ?? '';
        const args = Object.hasOwn(attributes, 'arguments') ? attributes.arguments : undefined;
        if (args !== undefined) {
          this.emit({ type: 'tool-call', kind, id, name: toolName, arguments: args });
          this.openEmpty(name, attributes, selfClosing, offset);
          return;
        }
        this.emit({ type: 'tool-call-start', kind, id, name: toolName });
        const frame = new Frame(F_STREAM, name, attributes, offset);
        frame.stream = 'call';
        this.pushFrame(frame);
        if (selfClosing) this.popFrame(true);
        return;
      }
      case TAG.citations: {
        const frame = new Frame(F_CITATIONS, name, attributes, offset);
        frame.citations = [];
        this.pushFrame(frame);
        if (selfClosing) this.popFrame(true);
        return;
      }
      case TAG.metaFiles:
      case TAG.error:
        this.pushFrame(new Frame(F_PAYLOAD, name, attributes, offset));
        if (selfClosing) this.popFrame(true);
        return;
      default: {
        // Any *_tool_result (isBlockTag let nothing else through).
        const frame = new Frame(F_RESULT, name, attributes, offset);
        frame.parts = [];
        this.pushFrame(frame);
        if (selfClosing) this.popFrame(true);
      }
    }
  }

  private openEmpty(
    name: string,
    attributes: Record<string, string>,
    selfClosing: boolean,
    offset: number,
  ): void {
    if (!selfClosing) this.pushFrame(new Frame(F_EMPTY, name, attributes, offset));
  }

  private emitDataBlock(name: string, attributes: Record<string, string>, offset: number): void {
    const text = attributes.data;
    const expectArray = name === TAG.awaitingFrontendTools;
    const data = text === undefined ? undefined : parseJson(text);
    const fits =
      data !== undefined &&
      (expectArray
        ? Array.isArray(data)
        : typeof data === 'object' && data !== null && !Array.isArray(data));
    if (!fits) {
      const what = expectArray ? 'a JSON array' : 'a JSON object';
      this.problem(
        'invalid-json',
        text === undefined
          ? `<${name}> has no data attribute`
          : `the data attribute of <${name}> is not ${what}`,
        offset,
        { raw: text, tag: name, attributes },
      );
      return;
    }
    if (name === TAG.metaInit) this.emit({ type: 'meta-init', data: data as MetaInitData });
    else if (name === TAG.metaFinal) this.emit({ type: 'meta-final', data: data as MetaFinalData });
    else
      this.emit({
        type: 'awaiting-frontend-tools',
        tools: data as unknown as readonly PendingFrontendTool[],
      });
  }

  // ── frames ─────────────────────────────────────────────────────────────────────────────

  private pushFrame(frame: Frame): void {
    if (this.frames.length === 1) {
      this.buffered = 0;
      this.dropped = 0;
    }
    this.frames.push(frame);
    this.current = frame;
  }

  /** Closes the innermost frame. `complete`: its end tag (or its parent's) arrived. */
  private popFrame(complete: boolean): void {
    const frame = this.frames.pop()!;
    this.current = this.frames[this.frames.length - 1]!;
    switch (frame.kind) {
      case F_STREAM:
        if (frame.stream === 'text') this.emit({ type: 'text-end' });
        else if (frame.stream === 'thinking') this.emit({ type: 'thinking-end' });
        else this.emit({ type: 'tool-call-end', id: frame.attributes.id ?? '' });
        return;
      case F_EMPTY:
      case F_IMAGE:
      case F_CITATIONS:
        if (frame.significant)
          this.problem(
            'unexpected-content',
            `<${frame.tag}> has content it should not have`,
            frame.offset,
            {
              raw: frame.unexpected,
              tag: frame.tag,
              attributes: frame.attributes,
            },
          );
        if (frame.kind === F_CITATIONS) this.closeCitations(frame, complete);
        return;
      case F_RESULT_TEXT:
        this.current.parts?.push({ type: 'text', text: frame.body });
        return;
      case F_CITATION:
        this.current.citations?.push(citationFrom(frame.attributes, frame.body));
        return;
      case F_EMBED:
        this.emit({
          type: 'text-embed',
          name: frame.tag as 'chart' | 'table',
          attributes: frame.attributes,
          content: frame.body,
        });
        return;
      case F_RESULT:
        this.closeResult(frame, complete);
        return;
      case F_PAYLOAD:
        this.closePayload(frame, complete);
        return;
      default:
        return;
    }
  }

  /** Closes every open block (a new block began, or the stream ended), reporting each. */
  closeAll(reason: string): void {
    while (this.frames.length > 1) {
      const depth = this.frames.length - 1;
      if (depth > 1) {
        this.popFrame(true);
        continue;
      }
      const frame = this.frames[1]!;
      const streamed = frame.kind === F_STREAM || frame.kind === F_EMPTY || frame.kind === F_SKIP;
      this.popFrame(false);
      if (streamed)
        this.problem('unclosed-block', `<${frame.tag}> was not closed: ${reason}`, frame.offset, {
          tag: frame.tag,
          attributes: frame.attributes,
        });
    }
  }

  private closeResult(frame: Frame, complete: boolean): void {
    const content = this.resultContent(frame);
    if (this.dropped > 0 || !complete) {
      this.reportBuffered(
        frame,
        complete,
        typeof content === 'string' ? content : partsText(content),
      );
      return;
    }
    const tag = frame.tag;
    const attributes = frame.attributes;
    const kind: ToolKind = tag === TAG.toolResult ? 'client' : 'server';
    this.emit({
      type: 'tool-result',
      kind,
      id: attributes.id ?? '',
      name: attributes.name ?? '',
      content,
      ...(attributes.is_error === 'true' ? { isError: true as const } : {}),
      ...(kind === 'server' && tag !== TAG.serverToolResult ? { tag } : {}),
    });
  }

  private resultContent(frame: Frame): string | ToolResultPart[] {
    if (!frame.multimodal) return frame.body;
    this.beginResultPart(frame);
    return frame.parts!;
  }

  /** Before a child of a result: text since the last child becomes a part, if it is more than layout. */
  private beginResultPart(frame: Frame): void {
    if (frame.significant) frame.parts!.push({ type: 'text', text: frame.body });
    frame.body = '';
    frame.significant = false;
    frame.multimodal = true;
  }

  private closeCitations(frame: Frame, complete: boolean): void {
    if (this.dropped > 0 || !complete) {
      this.reportBuffered(frame, complete, frame.citations!.map((c) => c.citedText).join(''));
      return;
    }
    this.emit({ type: 'citations', citations: frame.citations! });
  }

  private closePayload(frame: Frame, complete: boolean): void {
    if (this.dropped > 0 || !complete) {
      this.reportBuffered(frame, complete, frame.body);
      return;
    }
    const body = frame.body;
    if (frame.tag === TAG.error) {
      const error = parseJson(body);
      this.emit({ type: 'error', error: error === undefined ? body : error });
      return;
    }
    const data = parseJson(body) as { files?: unknown } | undefined;
    if (typeof data !== 'object' || data === null || !Array.isArray(data.files)) {
      this.problem(
        'invalid-json',
        `<${frame.tag}> is not a JSON object with a files array`,
        frame.offset,
        {
          raw: body,
          tag: frame.tag,
          attributes: frame.attributes,
        },
      );
      return;
    }
    this.emit({ type: 'meta-files', files: data.files as FileRecord[] });
  }

  /** A buffered block that cannot be given: too large, or never closed. */
  private reportBuffered(frame: Frame, complete: boolean, received: string): void {
    if (this.dropped > 0) {
      this.problem(
        'too-large',
        `<${frame.tag}> grew past ${this.maxBlockChars} characters; ${this.dropped} were dropped`,
        frame.offset,
        { raw: received, tag: frame.tag, attributes: frame.attributes },
      );
      return;
    }
    if (!complete)
      this.problem(
        'unclosed-block',
        `<${frame.tag}> was not closed; what arrived is in raw`,
        frame.offset,
        {
          raw: received,
          tag: frame.tag,
          attributes: frame.attributes,
        },
      );
  }

  // ── content and events ─────────────────────────────────────────────────────────────────

  /** Text read in the current frame. `significant`: CDATA, an entity, or markup kept as text. */
  private content(text: string, significant: boolean): void {
    const frame = this.current;
    switch (frame.kind) {
      case F_TOP:
        this.stray += text;
        return;
      case F_STREAM:
        this.pending += text;
        this.pendingFrame = frame;
        return;
      case F_RESULT:
        if (!frame.significant && (significant || !isBlank(text))) frame.significant = true;
        this.buffer(frame, text);
        return;
      case F_RESULT_TEXT:
      case F_CITATION:
      case F_EMBED:
      case F_PAYLOAD:
        this.buffer(frame, text);
        return;
      case F_SKIP:
        return;
      default:
        // F_EMPTY, F_IMAGE, F_CITATIONS: white space is layout, anything else is reported
        // (with the white space around it, so the report does not depend on the chunking).
        if (!frame.significant && (significant || !isBlank(text))) frame.significant = true;
        if (frame.unexpected.length < this.maxBlockChars)
          frame.unexpected = (frame.unexpected + text).slice(0, this.maxBlockChars);
    }
  }

  /** Keeps exactly the first maxBlockChars characters of a block, whatever the chunking. */
  private buffer(frame: Frame, text: string): void {
    const room = this.maxBlockChars - this.buffered;
    if (text.length <= room) {
      this.buffered += text.length;
      frame.body += text;
      return;
    }
    if (room > 0) frame.body += text.slice(0, room);
    this.buffered = this.maxBlockChars;
    this.dropped += text.length - Math.max(room, 0);
  }

  flush(): void {
    if (this.pending.length > 0) {
      const frame = this.pendingFrame!;
      const delta = this.pending;
      this.pending = '';
      if (frame.stream === 'text') this.out.push({ type: 'text-delta', delta });
      else if (frame.stream === 'thinking') this.out.push({ type: 'thinking-delta', delta });
      else this.out.push({ type: 'tool-call-delta', id: frame.attributes.id ?? '', delta });
    }
    if (this.stray.length > 0) {
      this.out.push({ type: 'stray-text', text: this.stray });
      this.stray = '';
    }
  }

  private emit(event: DecodedEvent): void {
    this.flush();
    this.out.push(event);
  }

  private problem(
    code: DecodeProblemCode,
    message: string,
    offset: number,
    extra: Partial<Pick<DecodeProblem, 'raw' | 'tag' | 'attributes'>> = {},
  ): void {
    const problem: DecodeProblem = { code, message: `${message} (at ${offset})`, offset };
    for (const key of ['raw', 'tag', 'attributes'] as const) {
      if (extra[key] !== undefined) Object.assign(problem, { [key]: extra[key] });
    }
    this.emit({ type: 'decode-error', problem });
  }
}

function isBlank(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    if (!isMarkupSpace(text.charCodeAt(index))) return false;
  }
  return true;
}

/** Tags that open a block at top level (they also end any block left open). */
export function isBlockTag(name: string): boolean {
  switch (name) {
    case TAG.metaInit:
    case TAG.metaFinal:
    case TAG.thinking:
    case TAG.text:
    case TAG.toolCall:
    case TAG.serverToolCall:
    case TAG.toolResult:
    case TAG.citations:
    case TAG.awaitingFrontendTools:
    case TAG.metaFiles:
    case TAG.error:
      return true;
    default:
      return name.endsWith(TOOL_RESULT_SUFFIX) && name.length > TOOL_RESULT_SUFFIX.length;
  }
}

function parseJson(text: string): JsonValue | undefined {
  try {
    return parseJsonText(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function partsText(parts: readonly ToolResultPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

const INTEGER = /^-?[0-9]{1,16}$/;

function integer(value: string | undefined): number | undefined {
  if (value === undefined || !INTEGER.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) && !Object.is(number, -0) ? number : undefined;
}

/** A citation from its attributes: typed when they are exactly its type's, `other` otherwise. */
export function citationFrom(
  attributes: Readonly<Record<string, string>>,
  citedText: string,
): Citation {
  const type = attributes.type;
  const count = Object.keys(attributes).length;
  if (type === 'char_location' || type === 'page_location') {
    const documentIndex = integer(attributes.document_index);
    const documentTitle = attributes.document_title;
    const char = type === 'char_location';
    const start = integer(char ? attributes.start_char_index : attributes.start_page_number);
    const end = integer(char ? attributes.end_char_index : attributes.end_page_number);
    if (
      count === 5 &&
      documentIndex !== undefined &&
      documentTitle !== undefined &&
      start !== undefined &&
      end !== undefined
    )
      return char
        ? {
            type,
            documentIndex,
            documentTitle,
            startCharIndex: start,
            endCharIndex: end,
            citedText,
          }
        : {
            type,
            documentIndex,
            documentTitle,
            startPageNumber: start,
            endPageNumber: end,
            citedText,
          };
  } else if (type === 'web_search_result_location') {
    const { url, title } = attributes;
    if (count === 3 && url !== undefined && title !== undefined)
      return { type, url, title, citedText };
  }
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes))
    if (name !== 'type') setOwnProperty(rest, name, value);
  return { type: 'other', citationType: type ?? '', attributes: rest, citedText };
}
