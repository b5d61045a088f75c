import type {
  BlockTextEmbedEvent,
  Citation,
  DecodedEvent,
  DecodeProblem,
  FileRecord,
  JsonValue,
  MetaFinalData,
  MetaInitData,
  PendingFrontendTool,
  ToolKind,
  ToolResultPart,
} from './blocks.ts';

/** A chart or table inside a text block. */
export type TextEmbed = Omit<BlockTextEmbedEvent, 'type'>;

/**
 * One block of the document, as a page renders it. Blocks are updated in place while they
 * stream (`open` is true until their end arrives); `BlockDocument.apply` says which changed.
 */
export type DocumentBlock =
  | { readonly kind: 'meta-init'; readonly data: MetaInitData }
  | { readonly kind: 'thinking'; text: string; open: boolean }
  | {
      readonly kind: 'text';
      /** Text, with the charts and tables it embeds in place. Adjacent text is one string. */
      readonly segments: (string | TextEmbed)[];
      open: boolean;
    }
  | DocumentToolCall
  | {
      readonly kind: 'tool-result';
      readonly toolKind: ToolKind;
      readonly id: string;
      readonly name: string;
      readonly content: string | readonly ToolResultPart[];
      readonly isError: boolean;
      readonly tag?: string;
    }
  | { readonly kind: 'citations'; readonly citations: readonly Citation[] }
  | { readonly kind: 'awaiting-frontend-tools'; readonly tools: readonly PendingFrontendTool[] }
  | { readonly kind: 'meta-files'; readonly files: readonly FileRecord[] }
  | { readonly kind: 'error'; readonly error: JsonValue }
  | { readonly kind: 'meta-final'; readonly data: MetaFinalData }
  /** Text outside any block (unknown markup included); adjacent pieces are one block. */
  | { readonly kind: 'stray-text'; text: string }
  | { readonly kind: 'decode-error'; readonly problem: DecodeProblem };

export interface DocumentToolCall {
  readonly kind: 'tool-call';
  readonly toolKind: ToolKind;
  readonly id: string;
  readonly name: string;
  /** JSON text; grows while the call streams, replaced if final arguments arrive later. */
  arguments: string;
  open: boolean;
  /** The arguments came as deltas (`tool-call-start` … `tool-call-end`). */
  readonly streamed: boolean;
}

export type DocumentBlockKind = DocumentBlock['kind'];

/**
 * The stream as a list of blocks: apply each decoded event in order. Plain data, no DOM, so it
 * works with any rendering approach; `version` grows with every change.
 */
export class BlockDocument {
  readonly blocks: DocumentBlock[] = [];
  version = 0;
  private readonly callIndex = new Map<string, number>();
  /** The index of the streamed block that is open, or -1. */
  private openIndex = -1;

  /** Applies one event; returns the index of the block it added or changed (-1: none). */
  apply(event: DecodedEvent): number {
    const index = this.change(event);
    if (index >= 0) this.version++;
    return index;
  }

  /** Applies several events; returns the smallest changed index (-1: none). */
  applyAll(events: Iterable<DecodedEvent>): number {
    let first = -1;
    for (const event of events) {
      const index = this.apply(event);
      if (index >= 0 && (first < 0 || index < first)) first = index;
    }
    return first;
  }

  /** The call with this id (its latest block), if there is one. */
  call(id: string): DocumentToolCall | undefined {
    const index = this.callIndex.get(id);
    return index === undefined ? undefined : (this.blocks[index] as DocumentToolCall);
  }

  private add(block: DocumentBlock): number {
    this.blocks.push(block);
    return this.blocks.length - 1;
  }

  private openBlock(): DocumentBlock | undefined {
    return this.openIndex >= 0 ? this.blocks[this.openIndex] : undefined;
  }

  private change(event: DecodedEvent): number {
    switch (event.type) {
      case 'meta-init':
        return this.add({ kind: 'meta-init', data: event.data });
      case 'thinking-start':
        this.openIndex = this.add({ kind: 'thinking', text: '', open: true });
        return this.openIndex;
      case 'text-start':
        this.openIndex = this.add({ kind: 'text', segments: [], open: true });
        return this.openIndex;
      case 'thinking-delta': {
        const block = this.openBlock();
        if (block?.kind !== 'thinking') return -1;
        block.text += event.delta;
        return this.openIndex;
      }
      case 'text-delta': {
        const block = this.openBlock();
        if (block?.kind !== 'text') return -1;
        const last = block.segments.length - 1;
        if (last >= 0 && typeof block.segments[last] === 'string')
          block.segments[last] += event.delta;
        else block.segments.push(event.delta);
        return this.openIndex;
      }
      case 'text-embed': {
        const block = this.openBlock();
        if (block?.kind !== 'text') return -1;
        block.segments.push({
          name: event.name,
          attributes: event.attributes,
          content: event.content,
        });
        return this.openIndex;
      }
      case 'thinking-end':
      case 'text-end':
      case 'tool-call-end': {
        const block = this.openBlock();
        const index = this.openIndex;
        this.openIndex = -1;
        if (!block || !('open' in block)) return -1;
        block.open = false;
        return index;
      }
      case 'tool-call-start': {
        const index = this.add({
          kind: 'tool-call',
          toolKind: event.kind,
          id: event.id,
          name: event.name,
          arguments: '',
          open: true,
          streamed: true,
        });
        this.callIndex.set(event.id, index);
        this.openIndex = index;
        return index;
      }
      case 'tool-call-delta': {
        const block = this.openBlock();
        if (block?.kind !== 'tool-call') return -1;
        block.arguments += event.delta;
        return this.openIndex;
      }
      case 'tool-call': {
        // The same id again: the final arguments of a call that streamed (see BlockEvent).
        const existing = this.callIndex.get(event.id);
        const block = existing === undefined ? undefined : this.blocks[existing];
        if (
          block?.kind === 'tool-call' &&
          block.streamed &&
          !block.open &&
          block.toolKind === event.kind
        ) {
          block.arguments = event.arguments;
          return existing!;
        }
        const index = this.add({
          kind: 'tool-call',
          toolKind: event.kind,
          id: event.id,
          name: event.name,
          arguments: event.arguments,
          open: false,
          streamed: false,
        });
        this.callIndex.set(event.id, index);
        return index;
      }
      case 'tool-result':
        return this.add({
          kind: 'tool-result',
          toolKind: event.kind,
          id: event.id,
          name: event.name,
          content: event.content,
          isError: event.isError === true,
          ...(event.tag !== undefined ? { tag: event.tag } : {}),
        });
      case 'citations':
        return this.add({ kind: 'citations', citations: event.citations });
      case 'awaiting-frontend-tools':
        return this.add({ kind: 'awaiting-frontend-tools', tools: event.tools });
      case 'meta-files':
        return this.add({ kind: 'meta-files', files: event.files });
      case 'error':
        return this.add({ kind: 'error', error: event.error });
      case 'meta-final':
        return this.add({ kind: 'meta-final', data: event.data });
      case 'stray-text': {
        const last = this.blocks[this.blocks.length - 1];
        if (last?.kind === 'stray-text') {
          last.text += event.text;
          return this.blocks.length - 1;
        }
        return this.add({ kind: 'stray-text', text: event.text });
      }
      case 'decode-error':
        return this.add({ kind: 'decode-error', problem: event.problem });
      default:
        return -1;
    }
  }
}
