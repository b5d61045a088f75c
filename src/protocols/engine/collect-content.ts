import type { ParsedContent, ParseEvent } from '../../core/index.ts';

/**
 * Joins `text-*` and `reasoning-*` deltas into whole parts, handed to `onPart` as each block
 * ends (an empty block gives an empty part). Shared by `parseGeneratedText` and the AI SDK's
 * generate path, which fold the same stream events into content.
 */
export class TextJoiner {
  private kind: 'text' | 'reasoning' | undefined;
  private pieces: string[] = [];
  private readonly onPart: (kind: 'text' | 'reasoning', text: string) => void;

  constructor(onPart: (kind: 'text' | 'reasoning', text: string) => void) {
    this.onPart = onPart;
  }

  /** Takes a text or reasoning event; returns false for any other event. */
  take(event: { readonly type: string; readonly delta?: string }): boolean {
    switch (event.type) {
      case 'text-start':
      case 'reasoning-start':
        this.flush();
        this.kind = event.type === 'text-start' ? 'text' : 'reasoning';
        return true;
      case 'text-delta':
      case 'reasoning-delta':
        this.kind ??= event.type === 'text-delta' ? 'text' : 'reasoning';
        this.pieces.push(event.delta ?? '');
        return true;
      case 'text-end':
      case 'reasoning-end':
        this.flush();
        return true;
      default:
        return false;
    }
  }

  /** Hands on the block in progress, if any (before a part that must come after it). */
  flush(): void {
    if (this.kind !== undefined) this.onPart(this.kind, this.pieces.join(''));
    this.kind = undefined;
    this.pieces = [];
  }
}

/**
 * Folds stream events into whole content parts, in order, one event at a time as they are
 * emitted (`take`): what `parseGeneratedText` returns, without keeping every event to the end.
 * Text blocks that follow each other are one text part: where a block ends can depend on the
 * chunking (an opener that turned out not to be a call), the text cannot.
 */
export class ContentFolder {
  private readonly parts: ParsedContent[] = [];
  private readonly joiner = new TextJoiner((type, text) => {
    const parts = this.parts;
    const last = parts[parts.length - 1];
    if (type === 'text' && last?.type === 'text') {
      parts[parts.length - 1] = { type, text: last.text + text };
    } else parts.push({ type, text });
  });

  /** Takes the next event (a bound function: it can be handed to the engine as its sink). */
  readonly take = (event: ParseEvent): void => {
    if (this.joiner.take(event)) return;
    if (event.type === 'tool-call') {
      this.joiner.flush();
      this.parts.push(event);
    } else if (event.type === 'error') {
      this.joiner.flush();
      this.parts.push({ type: 'error', error: event.error });
    }
  };

  /** The parts folded so far, with the text block in progress ended. */
  content(): ParsedContent[] {
    this.joiner.flush();
    return this.parts;
  }
}

/** `ContentFolder` over a list of events already collected. */
export function collectContent(events: readonly ParseEvent[]): ParsedContent[] {
  const folder = new ContentFolder();
  for (const event of events) folder.take(event);
  return folder.content();
}
