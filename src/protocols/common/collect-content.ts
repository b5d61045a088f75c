import type { ParsedContent, ParseEvent } from '../../core/index.ts';

/** Folds stream events into whole content parts, in order: what `parseGeneratedText` returns. */
export function collectContent(events: readonly ParseEvent[]): ParsedContent[] {
  const content: ParsedContent[] = [];
  let pieces: string[] = [];
  let kind: 'text' | 'reasoning' | undefined;

  const flush = () => {
    if (kind !== undefined) content.push({ type: kind, text: pieces.join('') });
    kind = undefined;
    pieces = [];
  };

  for (const event of events) {
    switch (event.type) {
      case 'text-start':
      case 'reasoning-start':
        flush();
        kind = event.type === 'text-start' ? 'text' : 'reasoning';
        break;
      case 'text-delta':
      case 'reasoning-delta':
        pieces.push(event.delta);
        break;
      case 'text-end':
      case 'reasoning-end':
        flush();
        break;
      case 'tool-call':
        flush();
        content.push(event);
        break;
      case 'error':
        flush();
        content.push({ type: 'error', error: event.error });
        break;
      default:
        break;
    }
  }
  flush();
  return content;
}
