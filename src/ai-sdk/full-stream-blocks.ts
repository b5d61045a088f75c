import type { TextStreamPart, ToolSet } from 'ai';
import { parseJsonText } from '../core/parse-json.ts';
import type {
  BlockEvent,
  Citation,
  FileRecord,
  JsonValue,
  MetaFinalData,
  MetaInitData,
  PendingFrontendTool,
  ToolKind,
  ToolResultPart,
} from '../stream/blocks.ts';
import { blockEventsToSse } from '../stream/web-streams.ts';

/**
 * AI SDK `fullStream` (ai 7 `TextStreamPart`s) to content blocks, so anyone using `streamText`
 * can serve the content-block stream. The mapping (docs/content-blocks.md has the table):
 * text and reasoning stream as text and thinking blocks; `tool-input-*` stream a call's
 * arguments, `tool-call` gives them whole; results, errors and denials become tool results;
 * `source` parts and `text-end` citations become citations; files become `meta_files`;
 * `error` and `abort` become error blocks; `meta_final` follows a `finish` when the run is
 * complete (not aborted, no front-end tool waiting).
 *
 * It sits with the other AI SDK adapters (one of its vocabularies is the AI SDK's); from
 * `stream` it takes only the block types and the SSE writer, and from `ai` only types.
 */

type Part = TextStreamPart<ToolSet>;

export interface FullStreamOptions {
  /** Sent first, as `meta_init`. */
  readonly meta?: MetaInitData;
  /**
   * Tools the page answers. Calls to them with no result when the stream ends are sent as
   * `awaiting_frontend_tools`, and the run is not complete (no `meta_final`).
   */
  readonly frontendTools?: readonly string[];
}

export interface RunSummary {
  /** The AI SDK finish reason (`stop`, `tool-calls`, `length`, …), sent as `stop_reason`. */
  readonly finishReason: string;
  readonly usage: Readonly<Record<string, number>>;
  /** Steps finished (`finish-step` parts). */
  readonly steps: number;
  readonly files: readonly FileRecord[];
}

type Open =
  | { readonly kind: 'text' | 'thinking'; readonly id: string }
  | { readonly kind: 'call'; readonly id: string; readonly deltas: string[] };

/**
 * The mapping as a synchronous state machine: `push` each part, then `end`. The content-block
 * stream has one open block at a time, so when parts of several blocks interleave, the open
 * one is closed: text and thinking reopen as a new block; a call whose arguments were cut short
 * gets its final arguments from its `tool-call` part (a whole `tool-call` event with the same
 * id), and so does any call whose final input differs from what streamed.
 */
export class FullStreamAdapter {
  private readonly frontendTools: ReadonlySet<string>;
  private open: Open | undefined;
  /** Arguments text of calls that streamed, by id. */
  private readonly streamed = new Map<string, string>();
  private readonly waiting = new Map<string, PendingFrontendTool>();
  private readonly files: FileRecord[] = [];
  private steps = 0;
  private finish: { finishReason: string; usage: Record<string, number> } | undefined;
  private aborted = false;

  constructor(options: FullStreamOptions = {}) {
    this.frontendTools = new Set(options.frontendTools ?? []);
  }

  /** True once the stream finished normally, with nothing left for the page to answer. */
  get completed(): boolean {
    return this.finish !== undefined && !this.aborted && this.waiting.size === 0;
  }

  get summary(): RunSummary | undefined {
    if (!this.finish) return undefined;
    return { ...this.finish, steps: this.steps, files: this.files };
  }

  push(part: Part): BlockEvent[] {
    const out: BlockEvent[] = [];
    switch (part.type) {
      case 'text-delta':
        if (part.text.length > 0) {
          this.ensureOpen('text', part.id, out);
          out.push({ type: 'text-delta', delta: part.text });
        }
        break;
      case 'reasoning-delta':
        if (part.text.length > 0) {
          this.ensureOpen('thinking', part.id, out);
          out.push({ type: 'thinking-delta', delta: part.text });
        }
        break;
      case 'text-end':
        if (this.open?.kind === 'text' && this.open.id === part.id) this.close(out);
        if (part.citations && part.citations.length > 0) {
          this.close(out);
          out.push({ type: 'citations', citations: part.citations.map(citationOf) });
        }
        break;
      case 'reasoning-end':
        if (this.open?.kind === 'thinking' && this.open.id === part.id) this.close(out);
        break;
      case 'tool-input-start':
        // A call that starts while another streams is given whole, by its tool-call part.
        if (this.open?.kind === 'call') break;
        this.close(out);
        this.open = { kind: 'call', id: part.id, deltas: [] };
        out.push({
          type: 'tool-call-start',
          kind: kindOf(part.providerExecuted),
          id: part.id,
          name: part.toolName,
        });
        break;
      case 'tool-input-delta':
        if (this.open?.kind === 'call' && this.open.id === part.id && part.delta.length > 0) {
          this.open.deltas.push(part.delta);
          out.push({ type: 'tool-call-delta', id: part.id, delta: part.delta });
        }
        break;
      case 'tool-input-end':
        if (this.open?.kind === 'call' && this.open.id === part.id) this.close(out);
        break;
      case 'tool-call':
        this.toolCall(part, out);
        break;
      case 'tool-result':
        // Preliminary results are a tool's progress; only the final one is the result.
        if (part.preliminary) break;
        this.result(out, part, resultContent(part.output));
        break;
      case 'tool-error':
        this.result(out, part, messageOf(part.error), true);
        break;
      case 'tool-output-denied':
        this.result(out, part, 'The tool call was denied.', true);
        break;
      case 'source':
        this.close(out);
        out.push({ type: 'citations', citations: [citationOf({ source: part })] });
        break;
      case 'file':
      case 'reasoning-file': {
        this.close(out);
        const record: FileRecord = {
          file_id: `file_${this.files.length + 1}`,
          media_type: part.file.mediaType,
          storage_location: `data:${part.file.mediaType};base64,${part.file.base64}`,
        };
        this.files.push(record);
        out.push({ type: 'meta-files', files: [record] });
        break;
      }
      case 'finish-step':
        this.steps++;
        break;
      case 'finish':
        this.finish = { finishReason: part.finishReason, usage: usageOf(part.totalUsage) };
        break;
      case 'abort':
        this.aborted = true;
        this.close(out);
        out.push({
          type: 'error',
          error: { type: 'aborted', message: part.reason ?? 'The run was aborted.' },
        });
        break;
      case 'error':
        this.close(out);
        out.push({ type: 'error', error: errorPayload(part.error) });
        break;
      default:
        break;
    }
    return out;
  }

  /** The stream is over: closes the open block and lists front-end tools still waiting. */
  end(): BlockEvent[] {
    const out: BlockEvent[] = [];
    this.close(out);
    if (this.waiting.size > 0 && !this.aborted)
      out.push({ type: 'awaiting-frontend-tools', tools: [...this.waiting.values()] });
    return out;
  }

  /** `meta_final` for a completed run; `extra` fills what the stream cannot know (history, cost). */
  metaFinal(extra: Partial<MetaFinalData> = {}): BlockEvent {
    const summary = this.summary;
    return {
      type: 'meta-final',
      data: {
        conversation_history: null,
        stop_reason: summary?.finishReason ?? null,
        total_steps: summary?.steps ?? this.steps,
        generated_files: this.files.length > 0 ? this.files : null,
        cost: null,
        cumulative_usage: summary?.usage ?? null,
        ...extra,
      },
    };
  }

  private toolCall(part: Extract<Part, { type: 'tool-call' }>, out: BlockEvent[]): void {
    const id = part.toolCallId;
    if (this.open?.kind === 'call' && this.open.id === id) this.close(out);
    const text = argumentsText(part.input);
    const streamed = this.streamed.get(id);
    if (streamed === undefined || !sameArguments(streamed, part.input)) {
      this.close(out);
      out.push({
        type: 'tool-call',
        kind: kindOf(part.providerExecuted),
        id,
        name: part.toolName,
        arguments: text,
      });
    }
    if (!part.providerExecuted && this.frontendTools.has(part.toolName))
      this.waiting.set(id, {
        tool_use_id: id,
        name: part.toolName,
        input: toJson(part.input),
      });
  }

  private ensureOpen(kind: 'text' | 'thinking', id: string, out: BlockEvent[]): void {
    if (this.open?.kind === kind && this.open.id === id) return;
    this.close(out);
    this.open = { kind, id };
    out.push({ type: kind === 'text' ? 'text-start' : 'thinking-start' });
  }

  /** A call's final outcome (result, error or denial) as a tool-result block. */
  private result(
    out: BlockEvent[],
    part: {
      readonly toolCallId: string;
      readonly toolName: string;
      readonly providerExecuted?: boolean;
    },
    content: string | ToolResultPart[],
    isError?: true,
  ): void {
    this.close(out);
    this.waiting.delete(part.toolCallId);
    out.push({
      type: 'tool-result',
      kind: kindOf(part.providerExecuted),
      id: part.toolCallId,
      name: part.toolName,
      content,
      ...(isError ? { isError } : {}),
    });
  }

  private close(out: BlockEvent[]): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    if (open.kind === 'call') {
      this.streamed.set(open.id, open.deltas.join(''));
      out.push({ type: 'tool-call-end', id: open.id });
    } else out.push({ type: open.kind === 'text' ? 'text-end' : 'thinking-end' });
  }
}

export interface EncodeFullStreamOptions extends FullStreamOptions {
  /** Fills `meta_final` when the run completes (conversation history, cost); may be async. */
  readonly finalData?: (
    summary: RunSummary,
  ) => Partial<MetaFinalData> | PromiseLike<Partial<MetaFinalData>>;
}

/**
 * Block events for a `fullStream`. If the stream throws, open blocks are closed and an error
 * block ends the output (a page then shows why), instead of a broken response.
 */
export async function* fullStreamToBlocks<TOOLS extends ToolSet>(
  fullStream: AsyncIterable<TextStreamPart<TOOLS>> | ReadableStream<TextStreamPart<TOOLS>>,
  options: EncodeFullStreamOptions = {},
): AsyncGenerator<BlockEvent, void, undefined> {
  const adapter = new FullStreamAdapter(options);
  if (options.meta) yield { type: 'meta-init', data: options.meta };
  try {
    for await (const part of iterate(fullStream)) yield* adapter.push(part as Part);
  } catch (error) {
    yield* adapter.end();
    yield { type: 'error', error: errorPayload(error) };
    return;
  }
  yield* adapter.end();
  const summary = adapter.summary;
  if (adapter.completed && summary)
    yield adapter.metaFinal(options.finalData ? await options.finalData(summary) : {});
}

/** The SSE response body (UTF-8) for a `streamText(...).fullStream`. */
export function encodeFullStream<TOOLS extends ToolSet>(
  fullStream: AsyncIterable<TextStreamPart<TOOLS>> | ReadableStream<TextStreamPart<TOOLS>>,
  options: EncodeFullStreamOptions = {},
): ReadableStream<Uint8Array> {
  return blockEventsToSse(fullStreamToBlocks(fullStream, options));
}

async function* iterate<T>(source: AsyncIterable<T> | ReadableStream<T>): AsyncGenerator<T> {
  if (Symbol.asyncIterator in source) {
    yield* source as AsyncIterable<T>;
    return;
  }
  const reader = (source as ReadableStream<T>).getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    reader.releaseLock();
  }
}

function kindOf(providerExecuted: boolean | undefined): ToolKind {
  return providerExecuted ? 'server' : 'client';
}

function argumentsText(input: unknown): string {
  // An invalid call keeps the model's raw text as its input.
  if (typeof input === 'string') return input;
  return JSON.stringify(input ?? {});
}

function sameArguments(streamed: string, input: unknown): boolean {
  if (typeof input === 'string') return streamed === input;
  try {
    return JSON.stringify(parseJsonText(streamed)) === JSON.stringify(input ?? {});
  } catch {
    return false;
  }
}

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return parseJsonText(JSON.stringify(value)) as JsonValue;
  } catch {
    return String(value);
  }
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

function errorPayload(error: unknown): JsonValue {
  if (error instanceof Error) return { type: 'error', name: error.name, message: error.message };
  return { type: 'error', message: messageOf(error) };
}

function usageOf(usage: Extract<Part, { type: 'finish' }>['totalUsage']): Record<string, number> {
  const out: Record<string, number> = {};
  const put = (key: string, value: number | undefined) => {
    if (value !== undefined) out[key] = value;
  };
  put('input_tokens', usage.inputTokens);
  put('output_tokens', usage.outputTokens);
  put('total_tokens', usage.totalTokens);
  put('cache_read_input_tokens', usage.inputTokenDetails?.cacheReadTokens);
  put('cache_creation_input_tokens', usage.inputTokenDetails?.cacheWriteTokens);
  put('reasoning_tokens', usage.outputTokenDetails?.reasoningTokens);
  return out;
}

/** The AI SDK's source shapes (a `source` part, or a citation's source). */
type SourceLike =
  | {
      readonly sourceType: 'url';
      readonly id: string;
      readonly url: string;
      readonly title?: string;
    }
  | {
      readonly sourceType: 'document';
      readonly id: string;
      readonly mediaType: string;
      readonly title: string;
      readonly filename?: string;
    };

function citationOf(citation: {
  source: SourceLike;
  citedText?: string;
  startIndex?: number;
  endIndex?: number;
}): Citation {
  const source = citation.source;
  const citedText = citation.citedText ?? '';
  if (source.sourceType === 'url')
    return {
      type: 'web_search_result_location',
      url: source.url,
      title: source.title ?? '',
      citedText,
    };
  const attributes: Record<string, string> = {
    source_id: source.id,
    document_title: source.title,
    media_type: source.mediaType,
  };
  if (source.filename !== undefined) attributes.filename = source.filename;
  // Offsets into the generated text, not into the document: not char_location's indices.
  if (citation.startIndex !== undefined) attributes.text_start_index = String(citation.startIndex);
  if (citation.endIndex !== undefined) attributes.text_end_index = String(citation.endIndex);
  return { type: 'other', citationType: 'document', attributes, citedText };
}

type ContentPartLike = {
  type?: unknown;
  text?: unknown;
  mediaType?: unknown;
  data?: unknown;
  url?: unknown;
};

/** A tool's output: text as is, `{type:'content', value:[…]}` as parts (images), else JSON. */
function resultContent(output: unknown): string | ToolResultPart[] {
  if (typeof output === 'string') return output;
  const content = output as { type?: unknown; value?: unknown } | null | undefined;
  if (content && content.type === 'content' && Array.isArray(content.value))
    return (content.value as ContentPartLike[]).map(resultPart);
  return output === undefined ? '' : (JSON.stringify(output) ?? '');
}

function resultPart(part: ContentPartLike): ToolResultPart {
  if (part.type === 'text' && typeof part.text === 'string')
    return { type: 'text', text: part.text };
  const mediaType = typeof part.mediaType === 'string' ? part.mediaType : '';
  const src = imageSource(part, mediaType);
  if (src !== undefined && mediaType.startsWith('image')) return { type: 'image', src, mediaType };
  return { type: 'text', text: JSON.stringify(part) ?? '' };
}

function imageSource(part: ContentPartLike, mediaType: string): string | undefined {
  const data = part.data as { type?: unknown; data?: unknown; url?: unknown } | string | undefined;
  // ai 7: data is tagged ({type:'data'|'url', …}); earlier shapes had base64 data or a url.
  if (typeof data === 'string') return `data:${mediaType};base64,${data}`;
  if (data && typeof data === 'object') {
    if (data.type === 'url' && (typeof data.url === 'string' || data.url instanceof URL))
      return String(data.url);
    if (data.type === 'data') {
      if (typeof data.data === 'string') return `data:${mediaType};base64,${data.data}`;
      if (data.data instanceof Uint8Array) return `data:${mediaType};base64,${base64(data.data)}`;
    }
  }
  if (typeof part.url === 'string') return part.url;
  return undefined;
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}
