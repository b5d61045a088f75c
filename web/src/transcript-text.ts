import {
  BlockEncoder,
  type BlockEvent,
  type DecodedEvent,
  type DocumentBlock,
  decodeBlocks,
} from '../../src/stream/index.ts';

/**
 * A turn's shown blocks as the content-block stream's XML text, to keep across a reload, and
 * back. Each block is written once in its final state (one delta per text, not the thousands it
 * streamed as), and read back by the same decoder that reads the network, which never throws: a
 * stored text that was tampered with shows as what it decodes to, never breaks the page.
 */
export function transcriptText(blocks: readonly DocumentBlock[]): string {
  let text = '';
  for (const block of blocks) {
    // Each block with its own encoder: one the encoder refuses is left out, not the rest.
    const encoder = new BlockEncoder({ framing: 'xml' });
    try {
      let piece = '';
      for (const event of eventsOf(block)) piece += encoder.encode(event);
      text += piece + encoder.end();
    } catch {
      // Only blocks the decoder produced get here, which the encoder writes; nothing to keep.
    }
  }
  return text;
}

/** The events that show a stored turn again. */
export function transcriptEvents(text: string): DecodedEvent[] {
  return decodeBlocks(text, { framing: 'xml' });
}

/**
 * The events that rebuild one block. Text outside blocks and decoder problems have no event the
 * encoder writes: they are not kept. The conversation history in `meta_final` is left out (the
 * page keeps the latest once, not one copy per turn).
 */
function eventsOf(block: DocumentBlock): BlockEvent[] {
  switch (block.kind) {
    case 'meta-init':
      return [{ type: 'meta-init', data: block.data }];
    case 'thinking':
      return [
        { type: 'thinking-start' },
        { type: 'thinking-delta', delta: block.text },
        { type: 'thinking-end' },
      ];
    case 'text':
      return [
        { type: 'text-start' },
        ...block.segments.map(
          (segment): BlockEvent =>
            typeof segment === 'string'
              ? { type: 'text-delta', delta: segment }
              : { type: 'text-embed', ...segment },
        ),
        { type: 'text-end' },
      ];
    case 'tool-call':
      return [
        {
          type: 'tool-call',
          kind: block.toolKind,
          id: block.id,
          name: block.name,
          arguments: block.arguments,
        },
      ];
    case 'tool-result':
      return [
        {
          type: 'tool-result',
          kind: block.toolKind,
          id: block.id,
          name: block.name,
          content: block.content,
          ...(block.isError ? { isError: true } : {}),
          ...(block.tag === undefined ? {} : { tag: block.tag }),
        },
      ];
    case 'citations':
      return [{ type: 'citations', citations: block.citations }];
    case 'awaiting-frontend-tools':
      return [{ type: 'awaiting-frontend-tools', tools: block.tools }];
    case 'meta-files':
      return [{ type: 'meta-files', files: block.files }];
    case 'error':
      return [{ type: 'error', error: block.error }];
    case 'meta-final':
      return [{ type: 'meta-final', data: { ...block.data, conversation_history: null } }];
    case 'stray-text':
    case 'decode-error':
      return [];
  }
}
