/**
 * A response's output items, assembled from reply events as they come: the one place that
 * decides where an item begins and ends, so a streamed response and a whole one agree.
 */
import type { ToolCallToFormat } from '../../core/index.ts';
import type { Turn } from '../conversation.ts';
import type { ReplyEvent } from '../reply-events.ts';
import type { NamespacedTool } from './request.ts';

type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export interface OutputText {
  readonly type: 'output_text';
  readonly text: string;
  readonly annotations: readonly [];
}

export interface ReasoningText {
  readonly type: 'reasoning_text';
  readonly text: string;
}

export interface ReasoningItem {
  readonly type: 'reasoning';
  readonly id: string;
  readonly summary: readonly [];
  readonly content: readonly ReasoningText[];
}

export interface MessageItem {
  readonly type: 'message';
  readonly id: string;
  readonly role: 'assistant';
  readonly status: ItemStatus;
  readonly content: readonly OutputText[];
}

export interface FunctionCallItem {
  readonly type: 'function_call';
  readonly id: string;
  readonly call_id: string;
  /** The tool's name as the client declared it (without its namespace). */
  readonly name: string;
  /** The namespace of a tool declared inside a `namespace` entry. */
  readonly namespace?: string;
  /** The arguments' JSON text. */
  readonly arguments: string;
  readonly status: ItemStatus;
}

export type OutputItem = ReasoningItem | MessageItem | FunctionCallItem;

/**
 * What a stream says as the output grows. `index` is the item's place among all items begun,
 * withdrawn calls included (a stream's `output_index`).
 */
export interface OutputListener {
  /** An item begins, in its empty shape. */
  added(index: number, item: OutputItem): void;
  /** More of a message's text, or of a reasoning item's, or of a call's arguments. */
  delta(index: number, item: OutputItem, delta: string): void;
  /** An item is finished, in the shape the whole response holds. */
  done(index: number, item: OutputItem): void;
  /**
   * A call whose start went out could not be read to its end: it is finished as
   * `status: 'incomplete'` with no arguments (so no client runs it) and left out of the
   * response; its raw text follows as text.
   */
  withdrawn(index: number, item: FunctionCallItem): void;
}

const SILENT: OutputListener = {
  added() {},
  delta() {},
  done() {},
  withdrawn() {},
};

/** The item being written: a message's or reasoning item's text so far, or a call's arguments. */
interface OpenItem {
  readonly index: number;
  readonly item: OutputItem;
  text: string;
}

/**
 * Assembles output items in the order the model wrote them: reasoning, a message per run of text,
 * each call. White space outside a message (around calls, between items) is no message of its
 * own: it starts the next message when text follows, and is answered as one only when the reply
 * said nothing else.
 */
export class ResponseOutput {
  private readonly newId: (prefix: string) => string;
  private readonly namespaced: ReadonlyMap<string, NamespacedTool>;
  private readonly listener: OutputListener;
  /** Finished items by index; a withdrawn call leaves its place empty. */
  private readonly slots: (OutputItem | undefined)[] = [];
  /** The open message or reasoning item. */
  private open: OpenItem | undefined;
  /** Open calls by call id. */
  private readonly calls = new Map<string, OpenItem>();
  /** White space held outside a message. */
  private space = '';
  /** The reply's text, reasoning items and completed calls: the assistant's turn in a stored conversation. */
  private text = '';
  private readonly reasoning: string[] = [];
  private readonly completed: ToolCallToFormat[] = [];
  private finished = false;

  constructor(
    namespaced: ReadonlyMap<string, NamespacedTool>,
    newId: (prefix: string) => string,
    listener: OutputListener = SILENT,
  ) {
    this.namespaced = namespaced;
    this.newId = newId;
    this.listener = listener;
  }

  add(events: readonly ReplyEvent[]): void {
    for (const event of events) {
      switch (event.type) {
        case 'text':
          this.addText(event.delta);
          break;
        case 'reasoning':
          this.addReasoning(event.delta);
          break;
        case 'call-start':
          this.openCall(event.id, event.name);
          break;
        case 'call-delta': {
          const call = this.calls.get(event.id);
          if (call === undefined || event.delta.length === 0) break;
          call.text += event.delta;
          this.listener.delta(call.index, call.item, event.delta);
          break;
        }
        case 'call-end':
          this.endCall(event.id, event.name, event.input);
          break;
        case 'call-abandoned':
          this.withdraw(event.id);
          break;
      }
    }
  }

  /**
   * The reply is over: open items are finished, the last message `incomplete` when the model hit
   * its length limit. Returns the output items. Further calls return the same items.
   */
  finish(incomplete: boolean): OutputItem[] {
    if (!this.finished) {
      this.finished = true;
      this.closeOpen(incomplete ? 'incomplete' : 'completed');
      for (const id of [...this.calls.keys()]) this.withdraw(id);
      // A reply of nothing but white space is answered as it is.
      if (this.space.length > 0 && this.items().length === 0) {
        this.openMessage();
        this.write('');
        this.closeOpen(incomplete ? 'incomplete' : 'completed');
      }
    }
    return this.items();
  }

  /** The items finished so far, in order. */
  items(): OutputItem[] {
    return this.slots.filter((item) => item !== undefined);
  }

  /** What the assistant said in this reply, as a turn of the conversation a later request continues. */
  turn(): Turn & { readonly role: 'assistant' } {
    const calls = [...this.completed];
    const open = this.open?.item.type === 'reasoning' ? [this.open.text] : [];
    const reasoning = [...this.reasoning, ...open].join('\n');
    return {
      role: 'assistant',
      text: calls.length > 0 && this.text.trim() === '' ? '' : this.text,
      calls,
      // As a client sends reasoning items back: each item's text, one after the other.
      ...(reasoning.length === 0 ? {} : { reasoning }),
    };
  }

  private addText(delta: string): void {
    this.text += delta;
    if (this.open?.item.type !== 'message') {
      if ((this.space + delta).trim() === '') {
        this.space += delta;
        return;
      }
      this.openMessage();
    }
    this.write(delta);
  }

  /** Writes text, after the white space held, to the open message. */
  private write(delta: string): void {
    const open = this.open!;
    const text = this.space + delta;
    this.space = '';
    if (text.length === 0) return;
    open.text += text;
    this.listener.delta(open.index, open.item, text);
  }

  private addReasoning(delta: string): void {
    if (delta.length === 0) return;
    if (this.open?.item.type !== 'reasoning') {
      this.closeOpen('completed');
      this.begin({ type: 'reasoning', id: this.newId('rs'), summary: [], content: [] });
    }
    const open = this.open!;
    open.text += delta;
    this.listener.delta(open.index, open.item, delta);
  }

  private openMessage(): void {
    this.closeOpen('completed');
    this.begin({
      type: 'message',
      id: this.newId('msg'),
      role: 'assistant',
      status: 'in_progress',
      content: [],
    });
  }

  private begin(item: ReasoningItem | MessageItem): void {
    const index = this.slots.length;
    this.slots.push(undefined);
    this.open = { index, item, text: '' };
    this.listener.added(index, item);
  }

  private closeOpen(status: 'completed' | 'incomplete'): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    const item: OutputItem =
      open.item.type === 'message'
        ? {
            ...open.item,
            status,
            content: [{ type: 'output_text', text: open.text, annotations: [] }],
          }
        : {
            ...(open.item as ReasoningItem),
            content: [{ type: 'reasoning_text', text: open.text }],
          };
    if (item.type === 'reasoning') this.reasoning.push(open.text);
    this.slots[open.index] = item;
    this.listener.done(open.index, item);
  }

  private openCall(callId: string, modelName: string): OpenItem {
    this.closeOpen('completed');
    // Calls need no space around them.
    this.space = '';
    const namespaced = this.namespaced.get(modelName);
    const item: FunctionCallItem = {
      type: 'function_call',
      id: this.newId('fc'),
      call_id: callId,
      name: namespaced?.name ?? modelName,
      ...(namespaced === undefined ? {} : { namespace: namespaced.namespace }),
      arguments: '',
      status: 'in_progress',
    };
    const index = this.slots.length;
    this.slots.push(undefined);
    const call = { index, item, text: '' };
    this.calls.set(callId, call);
    this.listener.added(index, item);
    return call;
  }

  private endCall(callId: string, modelName: string, input: string): void {
    let call = this.calls.get(callId);
    if (call === undefined) {
      // A call read whole at once: its start and arguments go out now.
      call = this.openCall(callId, modelName);
      if (input.length > 0) this.listener.delta(call.index, call.item, input);
    } else if (input.length > call.text.length && input.startsWith(call.text)) {
      this.listener.delta(call.index, call.item, input.slice(call.text.length));
    }
    this.calls.delete(callId);
    const item: FunctionCallItem = {
      ...(call.item as FunctionCallItem),
      arguments: input,
      status: 'completed',
    };
    this.slots[call.index] = item;
    this.completed.push({ toolName: modelName, toolCallId: callId, input });
    this.listener.done(call.index, item);
  }

  private withdraw(callId: string): void {
    const call = this.calls.get(callId);
    if (call === undefined) return;
    this.calls.delete(callId);
    this.listener.withdrawn(call.index, {
      ...(call.item as FunctionCallItem),
      arguments: '',
      status: 'incomplete',
    });
  }
}
