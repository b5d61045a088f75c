import { ToolwireError } from '../core/errors.ts';
import type {
  BlockEvent,
  BlockToolResultEvent,
  Citation,
  ToolKind,
  ToolResultPart,
} from './blocks.ts';
import { cdata, endsWithHighSurrogate, escapeAttribute, wellFormed } from './escape.ts';
import { frameSse } from './sse.ts';
import { EMBED_TAGS, isXmlName, TAG, TOOL_RESULT_SUFFIX } from './tags.ts';

export interface BlockEncoderOptions {
  /**
   * `sse` (default): each piece is one Server-Sent Events message (`data:` lines, blank line).
   * `xml`: the bare XML text, for transports that frame it themselves.
   */
  readonly framing?: 'sse' | 'xml';
}

/**
 * The events were not a valid sequence (a delta with no open block, a block inside another…) or
 * an event cannot be written (a bad attribute name). Kind `block-stream-invalid`; the message
 * says which event and why.
 */
export class BlockEncodeError extends ToolwireError {
  constructor(message: string) {
    super('block-stream-invalid', message);
  }
}

type OpenBlock =
  | { readonly kind: 'text' | 'thinking' }
  | { readonly kind: 'call'; readonly id: string; readonly tag: string };

/**
 * Turns block events into the text of the content-block stream. A streamed block (text, thinking, or a
 * call whose arguments stream) is open from its start to its end event; a delta is written the
 * moment it is encoded, each as its own message. Nothing else may be written while a block is
 * open: that would nest blocks, which the format does not have.
 */
export class BlockEncoder {
  private readonly sse: boolean;
  private open: OpenBlock | undefined;
  /** A high surrogate that ended the last delta: its pair may start the next one. */
  private heldSurrogate = '';

  constructor(options: BlockEncoderOptions = {}) {
    this.sse = (options.framing ?? 'sse') === 'sse';
  }

  /** What is open now: `text`, `thinking`, a call (`call`), or `undefined`. */
  get openBlock(): 'text' | 'thinking' | 'call' | undefined {
    return this.open?.kind;
  }

  /** The id of the call whose arguments are streaming, if one is. */
  get openCallId(): string | undefined {
    return this.open?.kind === 'call' ? this.open.id : undefined;
  }

  /** The text for one event ('' when there is nothing to send, as for an empty delta). */
  encode(event: BlockEvent): string {
    const xml = this.xmlFor(event);
    if (xml.length === 0) return '';
    return this.sse ? frameSse(xml) : xml;
  }

  /** Closes a block left open (an aborted run), so the stream a reader gets is well formed. */
  end(): string {
    const open = this.open;
    if (!open) return '';
    if (open.kind === 'call') return this.encode({ type: 'tool-call-end', id: open.id });
    return this.encode({ type: open.kind === 'text' ? 'text-end' : 'thinking-end' });
  }

  private xmlFor(event: BlockEvent): string {
    switch (event.type) {
      case 'thinking-start':
        return this.start({ kind: 'thinking' }, `<${TAG.thinking}>`);
      case 'thinking-delta':
        this.expect('thinking', event.type);
        return this.delta(event.delta);
      case 'thinking-end':
        this.expect('thinking', event.type);
        return this.finish(`</${TAG.thinking}>`);
      case 'text-start':
        return this.start({ kind: 'text' }, `<${TAG.text}>`);
      case 'text-delta':
        this.expect('text', event.type);
        return this.delta(event.delta);
      case 'text-embed': {
        this.expect('text', event.type);
        if (!EMBED_TAGS.has(event.name))
          throw new BlockEncodeError(`text-embed: name must be chart or table, got ${event.name}`);
        // The embed ends the run of text before it, so a held surrogate goes out first.
        const before = this.releaseSurrogate();
        return `${before}<${event.name}${attributeList(event.attributes, event.type)}>${cdata(
          wellFormed(event.content),
        )}</${event.name}>`;
      }
      case 'text-end':
        this.expect('text', event.type);
        return this.finish(`</${TAG.text}>`);
      case 'tool-call-start': {
        const tag = callTag(event.kind);
        return this.start(
          { kind: 'call', id: event.id, tag },
          `<${tag} id="${attr(event.id)}" name="${attr(event.name)}">`,
        );
      }
      case 'tool-call-delta':
        this.expectCall(event.id, event.type);
        return this.delta(event.delta);
      case 'tool-call-end': {
        const open = this.expectCall(event.id, event.type);
        return this.finish(`</${open.tag}>`);
      }
      case 'tool-call': {
        this.expectClosed(event.type);
        const tag = callTag(event.kind);
        return `<${tag} id="${attr(event.id)}" name="${attr(event.name)}" arguments="${attr(
          event.arguments,
        )}"></${tag}>`;
      }
      case 'tool-result':
        this.expectClosed(event.type);
        return toolResultXml(event);
      case 'citations':
        this.expectClosed(event.type);
        return `<${TAG.citations}>${event.citations.map(citationXml).join('')}</${TAG.citations}>`;
      case 'meta-init':
        this.expectClosed(event.type);
        return dataBlock(TAG.metaInit, event.data);
      case 'awaiting-frontend-tools':
        this.expectClosed(event.type);
        return dataBlock(TAG.awaitingFrontendTools, event.tools);
      case 'meta-final':
        this.expectClosed(event.type);
        return dataBlock(TAG.metaFinal, event.data);
      case 'meta-files':
        this.expectClosed(event.type);
        return bodyBlock(TAG.metaFiles, JSON.stringify({ files: event.files }));
      case 'error':
        this.expectClosed(event.type);
        return bodyBlock(TAG.error, JSON.stringify(event.error));
      default:
        throw new BlockEncodeError(
          `unknown block event type ${JSON.stringify((event as { type: unknown }).type)}`,
        );
    }
  }

  private start(block: OpenBlock, xml: string): string {
    this.expectClosed(block.kind === 'call' ? 'tool-call-start' : `${block.kind}-start`);
    this.open = block;
    return xml;
  }

  private finish(closeTag: string): string {
    const rest = this.releaseSurrogate();
    this.open = undefined;
    return rest + closeTag;
  }

  private delta(delta: string): string {
    let text = this.heldSurrogate + delta;
    this.heldSurrogate = '';
    if (endsWithHighSurrogate(text)) {
      this.heldSurrogate = text.slice(-1);
      text = text.slice(0, -1);
    }
    return cdata(wellFormed(text));
  }

  /** A held high surrogate whose pair never came is a lone surrogate: U+FFFD, like the rest. */
  private releaseSurrogate(): string {
    if (this.heldSurrogate.length === 0) return '';
    this.heldSurrogate = '';
    return cdata('\uFFFD');
  }

  private expect(kind: 'text' | 'thinking', type: string): void {
    if (this.open?.kind !== kind)
      throw new BlockEncodeError(`${type} needs an open ${kind} block (${this.describeOpen()})`);
  }

  private expectCall(id: string, type: string): OpenBlock & { kind: 'call' } {
    const open = this.open;
    if (open?.kind !== 'call' || open.id !== id)
      throw new BlockEncodeError(
        `${type} for call ${JSON.stringify(id)} needs that call open (${this.describeOpen()})`,
      );
    return open;
  }

  private expectClosed(type: string): void {
    if (this.open)
      throw new BlockEncodeError(`${type} while ${this.describeOpen()}: end that block first`);
  }

  private describeOpen(): string {
    const open = this.open;
    if (!open) return 'no block is open';
    if (open.kind === 'call') return `call ${JSON.stringify(open.id)} is open`;
    return `a ${open.kind} block is open`;
  }
}

/** Encodes a whole sequence of events (tests, recordings, replay files). */
export function encodeBlocks(
  events: Iterable<BlockEvent>,
  options: BlockEncoderOptions = {},
): string {
  const encoder = new BlockEncoder(options);
  let out = '';
  for (const event of events) out += encoder.encode(event);
  return out + encoder.end();
}

function attr(value: string): string {
  return escapeAttribute(wellFormed(value));
}

function callTag(kind: ToolKind): string {
  return kind === 'server' ? TAG.serverToolCall : TAG.toolCall;
}

function attributeList(attributes: Readonly<Record<string, string>>, where: string): string {
  let out = '';
  for (const [name, value] of Object.entries(attributes)) {
    if (!isXmlName(name))
      throw new BlockEncodeError(`${where}: ${JSON.stringify(name)} is not an attribute name`);
    out += ` ${name}="${attr(value)}"`;
  }
  return out;
}

function dataBlock(tag: string, data: unknown): string {
  return `<${tag} data="${attr(JSON.stringify(data))}"></${tag}>`;
}

function bodyBlock(tag: string, body: string): string {
  return `<${tag}>${cdata(wellFormed(body))}</${tag}>`;
}

function resultTag(event: BlockToolResultEvent): string {
  if (event.kind === 'client') {
    if (event.tag !== undefined)
      throw new BlockEncodeError('tool-result: only server results have a compatibility tag');
    return TAG.toolResult;
  }
  const tag = event.tag;
  if (tag === undefined) return TAG.serverToolResult;
  if (
    !isXmlName(tag) ||
    !tag.endsWith(TOOL_RESULT_SUFFIX) ||
    tag === TAG.toolResult ||
    tag === TAG.serverToolResult
  )
    throw new BlockEncodeError(
      `tool-result: tag ${JSON.stringify(tag)} must be a name ending in ${TOOL_RESULT_SUFFIX} other than the two canonical tags`,
    );
  return tag;
}

function toolResultXml(event: BlockToolResultEvent): string {
  const tag = resultTag(event);
  const errorFlag = event.isError ? ' is_error="true"' : '';
  const open = `<${tag} id="${attr(event.id)}" name="${attr(event.name)}"${errorFlag}>`;
  const body =
    typeof event.content === 'string'
      ? cdata(wellFormed(event.content))
      : event.content.map(resultPartXml).join('');
  return `${open}${body}</${tag}>`;
}

function resultPartXml(part: ToolResultPart): string {
  if (part.type === 'text')
    return `<${TAG.resultText}>${cdata(wellFormed(part.text))}</${TAG.resultText}>`;
  return `<${TAG.resultImage} src="${attr(part.src)}" media_type="${attr(part.mediaType)}" />`;
}

function citationXml(citation: Citation): string {
  let attributes: string;
  switch (citation.type) {
    case 'char_location':
      attributes =
        ` type="char_location" document_index="${citation.documentIndex}"` +
        ` document_title="${attr(citation.documentTitle)}"` +
        ` start_char_index="${citation.startCharIndex}" end_char_index="${citation.endCharIndex}"`;
      break;
    case 'page_location':
      attributes =
        ` type="page_location" document_index="${citation.documentIndex}"` +
        ` document_title="${attr(citation.documentTitle)}"` +
        ` start_page_number="${citation.startPageNumber}" end_page_number="${citation.endPageNumber}"`;
      break;
    case 'web_search_result_location':
      attributes = ` type="web_search_result_location" url="${attr(citation.url)}" title="${attr(
        citation.title,
      )}"`;
      break;
    case 'other':
      if ('type' in citation.attributes)
        throw new BlockEncodeError('citation: the type goes in citationType, not in attributes');
      attributes =
        ` type="${attr(citation.citationType)}"` + attributeList(citation.attributes, 'citation');
      break;
    default:
      throw new BlockEncodeError(
        `citation: unknown type ${JSON.stringify((citation as { type: unknown }).type)}`,
      );
  }
  for (const number of numbersOf(citation)) {
    if (!Number.isSafeInteger(number))
      throw new BlockEncodeError(`citation: ${number} is not an integer index`);
  }
  return `<${TAG.citation}${attributes}>${cdata(wellFormed(citation.citedText))}</${TAG.citation}>`;
}

function numbersOf(citation: Citation): number[] {
  if (citation.type === 'char_location')
    return [citation.documentIndex, citation.startCharIndex, citation.endCharIndex];
  if (citation.type === 'page_location')
    return [citation.documentIndex, citation.startPageNumber, citation.endPageNumber];
  return [];
}
