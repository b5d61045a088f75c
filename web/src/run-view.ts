import { BlockDocument } from '../../src/stream/document.ts';
import type { DecodedEvent, PendingFrontendTool } from '../../src/stream/index.ts';
import { type BlockContext, type BlockView, createBlockView, FrontendToolsForm } from './blocks.ts';

/** What the stream said about how the run ended, as far as it got. */
export interface StreamOutcome {
  readonly final: boolean;
  readonly awaiting: readonly PendingFrontendTool[] | undefined;
  readonly error: boolean;
}

/**
 * The transcript of one run: decoded events go into a `BlockDocument` at once (cheap), and the
 * DOM catches up once per animation frame, touching only the blocks that changed. A fast
 * stream of thousands of deltas per second is a few renders per second of each open block.
 */
export class RunView {
  readonly document = new BlockDocument();
  private readonly container: HTMLElement;
  private readonly views: (BlockView | undefined)[] = [];
  private readonly callCards = new Map<string, HTMLElement>();
  private readonly dirty = new Set<number>();
  private frame: number | undefined;
  private readonly context: BlockContext;
  private forms: FrontendToolsForm[] = [];
  private outcome = {
    final: false,
    awaiting: undefined as PendingFrontendTool[] | undefined,
    error: false,
  };

  constructor(container: HTMLElement, onAnswer: (form: FrontendToolsForm) => void) {
    this.container = container;
    this.context = {
      callCard: (id) => this.callCards.get(id),
      answer: onAnswer,
    };
  }

  /** A new stream of the same run begins (a resume): its ending is its own. */
  beginStream(): void {
    this.outcome = { final: false, awaiting: undefined, error: false };
  }

  get streamOutcome(): StreamOutcome {
    return this.outcome;
  }

  apply(events: readonly DecodedEvent[]): void {
    for (const event of events) {
      const index = this.document.apply(event);
      if (index >= 0) this.dirty.add(index);
      if (event.type === 'meta-final') this.outcome.final = true;
      else if (event.type === 'awaiting-frontend-tools') this.outcome.awaiting = [...event.tools];
      else if (event.type === 'error') this.outcome.error = true;
    }
    if (this.dirty.size > 0 && this.frame === undefined)
      this.frame = requestAnimationFrame(() => this.render());
  }

  /** Renders what is pending now (end of a stream: the final state must not wait a frame). */
  flush(): void {
    if (this.frame !== undefined) cancelAnimationFrame(this.frame);
    this.render();
  }

  /**
   * An error the page itself found (a refused request, a broken connection): a block of the
   * document like the server's errors, so it is kept with the rest of the turn.
   */
  showError(error: { type: string; message: string; hint?: string }): void {
    const index = this.document.apply({ type: 'error', error });
    if (index >= 0) this.dirty.add(index);
    this.flush();
    this.scroll(true);
  }

  /** The last completed run's `conversation_history` in this view, if one completed. */
  get conversationHistory(): readonly unknown[] | undefined {
    for (let index = this.document.blocks.length - 1; index >= 0; index--) {
      const block = this.document.blocks[index]!;
      if (block.kind === 'meta-final') {
        const history = block.data.conversation_history;
        return Array.isArray(history) ? history : undefined;
      }
    }
    return undefined;
  }

  /** Closes every open front-end form (the run went on, or stopped). */
  closeForms(note: string): void {
    for (const form of this.forms) form.close(note);
    this.forms = [];
  }

  private render(): void {
    this.frame = undefined;
    if (this.dirty.size === 0) return;
    const follow = this.nearBottom();
    // In document order, so a call's card exists before its result looks for it.
    const indices = [...this.dirty].sort((a, b) => a - b);
    this.dirty.clear();
    for (const index of indices) {
      const block = this.document.blocks[index]!;
      let view = this.views[index];
      if (!view) {
        view = createBlockView(block, this.context);
        this.views[index] = view;
        if (block.kind === 'tool-call') this.callCards.set(block.id, view.root);
        if (view instanceof FrontendToolsForm) this.forms.push(view);
        this.container.append(view.root);
      }
      view.update(block);
    }
    this.scroll(follow);
  }

  private nearBottom(): boolean {
    const page = document.scrollingElement ?? document.documentElement;
    return page.scrollHeight - page.scrollTop - page.clientHeight < 120;
  }

  private scroll(follow: boolean): void {
    if (!follow) return;
    const page = document.scrollingElement ?? document.documentElement;
    page.scrollTop = page.scrollHeight;
  }
}
