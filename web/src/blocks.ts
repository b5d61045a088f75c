import type { ToolwireErrorKind } from '../../src/core/errors.ts';
import type {
  Citation,
  DocumentBlock,
  DocumentToolCall,
  JsonValue,
  PendingFrontendTool,
  ToolResultPart,
} from '../../src/stream/index.ts';
import { el, isHttpUrl, isSafeImageSource, prettyJson } from './dom.ts';
import { fencedCodeParts, renderInline, renderMarkdown } from './markdown.ts';
import { keepOptionsWhole } from './options-whole.ts';
import { usageText } from './usage-text.ts';

/** A block on the page: its element, and how to show a newer state of the same block. */
export interface BlockView {
  readonly root: HTMLElement;
  update(block: DocumentBlock): void;
}

export interface BlockContext {
  /** The card of the call with this id, so its result can go inside it. */
  callCard(id: string): HTMLElement | undefined;
  /** The user answered front-end tools. */
  answer(form: FrontendToolsForm): void;
}

/** One view per block kind. `update` is called only for blocks that changed in a frame. */
export function createBlockView(block: DocumentBlock, context: BlockContext): BlockView {
  switch (block.kind) {
    case 'meta-init':
      return staticView(metaInit(block.data));
    case 'thinking':
      return new ThinkingView();
    case 'text':
      return new TextView();
    case 'tool-call':
      return new ToolCallView();
    case 'tool-result':
      return staticView(toolResult(block, context));
    case 'citations':
      return staticView(citations(block.citations));
    case 'awaiting-frontend-tools':
      return new FrontendToolsForm(block.tools, context);
    case 'meta-files':
      return staticView(files(block.files));
    case 'error':
      return staticView(errorBlock(block.error));
    case 'meta-final':
      return staticView(metaFinal(block.data));
    case 'stray-text':
      return new StrayTextView();
    case 'decode-error':
      return staticView(
        el(
          'div',
          { class: 'block notice decode-error', attrs: { 'data-block': 'decode-error' } },
          el('strong', { text: 'Stream problem: ' }),
          block.problem.message,
        ),
      );
  }
}

function staticView(root: HTMLElement): BlockView {
  return { root, update() {} };
}

// ── streamed blocks ─────────────────────────────────────────────────────────────────────────

class ThinkingView implements BlockView {
  readonly root = el('details', { class: 'block thinking', attrs: { 'data-block': 'thinking' } });
  private readonly summary = el('summary', { text: 'Thinking…' });
  private readonly body = el('div', { class: 'thinking-text' });
  /** The user opened or closed it: leave it as they want. */
  private touched = false;

  constructor() {
    this.root.append(this.summary, this.body);
    this.root.open = true;
    this.summary.addEventListener('click', () => {
      this.touched = true;
    });
  }

  update(block: DocumentBlock): void {
    if (block.kind !== 'thinking') return;
    this.body.textContent = block.text;
    this.root.dataset.state = block.open ? 'streaming' : 'done';
    this.summary.textContent = block.open
      ? 'Thinking…'
      : `Thought (${wordCount(block.text)} words)`;
    // Open while it streams; folded away when done, unless the user chose.
    if (!block.open && !this.touched) this.root.open = false;
  }
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => word.length > 0).length;
}

class TextView implements BlockView {
  readonly root = el('div', { class: 'block text markdown', attrs: { 'data-block': 'text' } });

  update(block: DocumentBlock): void {
    if (block.kind !== 'text') return;
    let html = '';
    for (const segment of block.segments) {
      if (typeof segment === 'string') html += renderMarkdown(segment);
      else {
        // A chart or table embedded in the text: shown as its data.
        const figure = el(
          'figure',
          { class: 'embed', attrs: { 'data-embed': segment.name } },
          el('figcaption', { text: segment.attributes.title ?? segment.name }),
          el('pre', { text: prettyJson(segment.content) ?? segment.content }),
        );
        html += figure.outerHTML;
      }
    }
    this.root.innerHTML = html;
    this.root.dataset.state = block.open ? 'streaming' : 'done';
  }
}

class ToolCallView implements BlockView {
  readonly root = el('section', { class: 'block tool-call', attrs: { 'data-block': 'tool-call' } });
  private readonly name = el('span', { class: 'tool-name' });
  private readonly status = el('span', { class: 'tool-status' });
  private readonly args = el('pre', { class: 'tool-args' });

  constructor() {
    this.root.append(
      el('header', {}, el('span', { class: 'tool-icon', text: '⚙' }), this.name, this.status),
      this.args,
    );
  }

  update(block: DocumentBlock): void {
    if (block.kind !== 'tool-call') return;
    this.root.dataset.tool = block.name;
    this.root.dataset.callId = block.id;
    this.root.dataset.state = block.open ? 'streaming' : 'called';
    this.name.textContent = block.toolKind === 'server' ? `${block.name} (provider)` : block.name;
    if (!this.root.querySelector('.tool-result'))
      this.status.textContent = block.open ? 'writing arguments…' : 'running…';
    this.args.textContent = argumentsText(block);
  }
}

function argumentsText(block: DocumentToolCall): string {
  if (block.open) return block.arguments;
  return prettyJson(block.arguments) ?? block.arguments;
}

class StrayTextView implements BlockView {
  readonly root = el('pre', { class: 'block notice stray', attrs: { 'data-block': 'stray-text' } });

  update(block: DocumentBlock): void {
    if (block.kind === 'stray-text') this.root.textContent = block.text;
  }
}

// ── whole blocks ────────────────────────────────────────────────────────────────────────────

function metaInit(data: Extract<DocumentBlock, { kind: 'meta-init' }>['data']): HTMLElement {
  const root = el('div', { class: 'block meta meta-init', attrs: { 'data-block': 'meta-init' } });
  if (data.resumed === true) {
    root.textContent = 'Resumed with your answer';
    return root;
  }
  if (typeof data.recording === 'string') {
    root.classList.add('recording');
    root.append(
      el('strong', { text: `Recorded question: “${data.user_query}”` }),
      el('br'),
      data.recording,
    );
    return root;
  }
  root.append(`Run ${String(data.agent_uuid).slice(0, 8)} · ${data.model}`);
  if (typeof data.protocol === 'string') root.append(` · ${data.protocol} protocol`);
  return root;
}

function toolResult(
  block: Extract<DocumentBlock, { kind: 'tool-result' }>,
  context: BlockContext,
): HTMLElement {
  const root = el('div', {
    class: `tool-result${block.isError ? ' failed' : ''}`,
    attrs: { 'data-block': 'tool-result', 'data-call-id': block.id },
  });
  const parts = typeof block.content === 'string' ? [block.content] : block.content;
  const shown =
    typeof block.content === 'string' ? (prettyJson(block.content) ?? block.content) : '';
  const lines = shown.split('\n').length;
  const details = el('details', {}, el('summary', { text: resultSummary(block, lines) }));
  // Short results are shown; long ones are a click away.
  details.open = block.isError || lines <= 14;
  for (const part of parts) details.append(resultPart(part));
  root.append(details);
  const card = context.callCard(block.id);
  if (card) {
    // Inside its call's card: the card is the block; this view has no place of its own.
    card.append(root);
    card.dataset.state = block.isError ? 'failed' : 'done';
    const status = card.querySelector('.tool-status');
    if (status) status.textContent = block.isError ? 'failed' : 'done';
    return el('div', { class: 'placeholder', attrs: { hidden: '' } });
  }
  root.classList.add('block');
  root.prepend(el('header', { class: 'tool-name', text: `Result of ${block.name}` }));
  return root;
}

function resultSummary(block: Extract<DocumentBlock, { kind: 'tool-result' }>, lines: number) {
  if (block.isError) return 'Error';
  if (typeof block.content !== 'string') return `Result (${block.content.length} parts)`;
  if (prettyJson(block.content) !== undefined) return 'Result · JSON';
  return `Result · ${lines} line${lines === 1 ? '' : 's'}`;
}

function resultPart(part: string | ToolResultPart): HTMLElement {
  if (typeof part === 'string') {
    const json = prettyJson(part);
    if (json !== undefined) return el('pre', { class: 'result-json', text: json });
    return resultText(part);
  }
  if (part.type === 'text') return resultPart(part.text);
  if (!isSafeImageSource(part.src))
    return el('p', { class: 'notice', text: `Image not shown (unsupported source): ${part.src}` });
  return el('img', {
    class: 'result-image',
    attrs: { src: part.src, alt: `Image (${part.mediaType}) from the tool`, loading: 'lazy' },
  });
}

/**
 * A result's text as it was written, with its fenced code blocks shown as code (the code tools
 * quote source that way) instead of their backticks. Everything goes in as text.
 */
function resultText(text: string): HTMLElement {
  const parts = fencedCodeParts(text);
  if (parts.length === 1 && parts[0]!.type === 'text')
    return el('pre', { class: 'result-text', text });
  return el(
    'div',
    { class: 'result-parts' },
    ...parts.map((part) =>
      part.type === 'text'
        ? el('pre', { class: 'result-text', text: part.text })
        : el(
            'pre',
            { class: 'result-code' },
            el('code', {
              text: part.code,
              ...(part.language ? { attrs: { class: `language-${part.language}` } } : {}),
            }),
          ),
    ),
  );
}

function citations(list: readonly Citation[]): HTMLElement {
  const items = list.map((citation) => {
    const item = el('li', { attrs: { 'data-citation': citation.type } });
    const quote = citation.citedText
      ? el('blockquote', { text: citation.citedText })
      : document.createTextNode('');
    switch (citation.type) {
      case 'char_location':
        item.append(
          el('strong', { text: citation.documentTitle || `Document ${citation.documentIndex}` }),
          ` · characters ${citation.startCharIndex}–${citation.endCharIndex}`,
          quote,
        );
        break;
      case 'page_location':
        item.append(
          el('strong', { text: citation.documentTitle || `Document ${citation.documentIndex}` }),
          ` · ${pages(citation.startPageNumber, citation.endPageNumber)}`,
          quote,
        );
        break;
      case 'web_search_result_location':
        item.append(
          isHttpUrl(citation.url)
            ? el('a', {
                text: citation.title || citation.url,
                attrs: {
                  href: citation.url,
                  target: '_blank',
                  rel: 'noopener noreferrer nofollow',
                },
              })
            : el('strong', { text: `${citation.title} (${citation.url})` }),
          quote,
        );
        break;
      case 'other':
        item.append(
          el('strong', { text: citation.citationType }),
          ` ${Object.entries(citation.attributes)
            .map(([key, value]) => `${key}=${value}`)
            .join(' ')}`,
          quote,
        );
        break;
    }
    return item;
  });
  return el(
    'aside',
    { class: 'block citations', attrs: { 'data-block': 'citations' } },
    el('h4', { text: 'Sources' }),
    el('ol', {}, ...items),
  );
}

function pages(start: number, end: number): string {
  return end > start + 1 ? `pages ${start}–${end - 1}` : `page ${start}`;
}

function files(list: readonly { readonly [key: string]: JsonValue }[]): HTMLElement {
  const items = list.map((file) => {
    const name = String(file.filename ?? file.file_id ?? 'file');
    const location = typeof file.storage_location === 'string' ? file.storage_location : '';
    const type = typeof file.media_type === 'string' ? ` (${file.media_type})` : '';
    const item = el('li');
    if (isHttpUrl(location))
      item.append(
        el('a', {
          text: name,
          attrs: { href: location, target: '_blank', rel: 'noopener noreferrer nofollow' },
        }),
      );
    else if (isSafeImageSource(location))
      item.append(el('img', { class: 'result-image', attrs: { src: location, alt: name } }));
    else item.append(el('span', { text: name }));
    item.append(type);
    return item;
  });
  return el(
    'aside',
    { class: 'block files', attrs: { 'data-block': 'meta-files' } },
    el('h4', { text: 'Files' }),
    el('ul', {}, ...items),
  );
}

/**
 * An error card's title, by the error's `kind` (a `ToolwireErrorKind`, see docs/errors.md) and,
 * for payloads that have none (older servers, the page's own errors), by its `type`.
 */
const TITLES_BY_KIND: Readonly<Partial<Record<ToolwireErrorKind, string>>> = {
  'model-unreachable': 'No model server',
  'model-timeout': 'The model server did not answer in time',
  'model-http-status': 'The model server answered with an error',
  'model-bad-reply': "The model server's reply could not be read",
  'request-refused': 'Request refused',
  'run-limit': 'Too many runs at once',
  'resume-mismatch': 'The answers do not match the questions',
  'tool-timeout': 'A tool took too long',
  aborted: 'Stopped',
};

const TITLES_BY_TYPE: Readonly<Record<string, string>> = {
  model_unreachable: 'No model server',
  model_error: 'The model failed',
  aborted: 'Stopped',
  'max-steps': 'Step limit reached',
  'max-failures': 'Too many failed attempts',
  timeout: 'Time limit reached',
  'output-limit': 'Output limit reached',
  malformed_call: 'Malformed tool call',
  server_error: 'Server error',
  request_error: 'Request refused',
  interrupted: 'Interrupted',
};

/** What to do about it, when the server sent no hint of its own. */
const HINTS_BY_KIND: Readonly<Partial<Record<ToolwireErrorKind, string>>> = {
  'model-unreachable':
    'Start a model server (for example `ollama serve`) or point `--base-url` at one, then ask again.',
  'model-timeout':
    'The model may still be loading or the machine busy: ask again in a moment, or try a smaller model.',
  'model-http-status':
    'Check the model name (`--model`) and the address (`--base-url`); the details say what the server answered.',
  'model-bad-reply':
    'Check that `--base-url` points at an OpenAI-compatible server (its address usually ends in `/v1`).',
  'run-limit': 'Wait for a run to finish, then ask again.',
};

/** `content-block-error`: its message plainly, what to do (hint), and the details folded. */
export function errorBlock(error: JsonValue): HTMLElement {
  const payload: Readonly<Record<string, JsonValue | undefined>> =
    typeof error === 'object' && error !== null && !Array.isArray(error)
      ? (error as Record<string, JsonValue>)
      : { message: error };
  const type = typeof payload.type === 'string' ? payload.type : 'error';
  const kind = typeof payload.kind === 'string' ? (payload.kind as ToolwireErrorKind) : undefined;
  const message =
    typeof payload.message === 'string'
      ? payload.message
      : JSON.stringify(payload.message ?? error);
  const stopped = kind === 'aborted' || (kind === undefined && type === 'aborted');
  const root = el('div', {
    class: `block error${stopped ? ' stopped' : ''}`,
    attrs: {
      'data-block': 'error',
      'data-error-type': type,
      ...(kind === undefined ? {} : { 'data-error-kind': kind }),
      role: 'alert',
    },
  });
  const title = (kind ? TITLES_BY_KIND[kind] : undefined) ?? TITLES_BY_TYPE[type] ?? 'Error';
  const text = el('p', { text: message });
  root.append(el('strong', { text: title }), text);
  keepOptionsWhole(text);
  const hintText =
    typeof payload.hint === 'string' ? payload.hint : kind ? HINTS_BY_KIND[kind] : undefined;
  if (hintText !== undefined) {
    const hint = el('p', { class: 'hint' });
    hint.innerHTML = renderInline(hintText);
    keepOptionsWhole(hint);
    root.append(hint);
  }
  const detail =
    typeof payload.detail === 'string'
      ? payload.detail
      : typeof payload.raw === 'string'
        ? payload.raw
        : '';
  if (detail)
    root.append(el('details', {}, el('summary', { text: 'Details' }), el('pre', { text: detail })));
  return root;
}

function metaFinal(data: Extract<DocumentBlock, { kind: 'meta-final' }>['data']): HTMLElement {
  const parts = [
    data.stop_reason === 'completed' ? 'Completed' : `Finished (${data.stop_reason})`,
    `${data.total_steps} step${data.total_steps === 1 ? '' : 's'}`,
    usageText(data.cumulative_usage),
  ];
  if (typeof data.cost === 'number') parts.push(`cost ${data.cost}`);
  return el(
    'div',
    { class: 'block meta meta-final', attrs: { 'data-block': 'meta-final' } },
    el('span', { text: `✓ ${parts.join(' · ')}` }),
    // A turn restored after a reload has none: the page keeps only the latest history.
    ...(data.conversation_history === null
      ? []
      : [
          el(
            'details',
            {},
            el('summary', { text: 'Conversation history' }),
            el('pre', { text: JSON.stringify(data.conversation_history, null, 2) }),
          ),
        ]),
  );
}

// ── front-end tools ─────────────────────────────────────────────────────────────────────────

/**
 * `awaiting_frontend_tools`: one small form for the tools the run waits on. `ask_user` shows its
 * question; any other tool shows its input. Sending posts every answer at once.
 */
export class FrontendToolsForm implements BlockView {
  readonly root: HTMLFormElement;
  readonly tools: readonly PendingFrontendTool[];
  private readonly fields: HTMLTextAreaElement[] = [];
  private readonly message = el('p', { class: 'form-message', attrs: { 'aria-live': 'polite' } });
  private readonly buttons: HTMLButtonElement[];
  /** Set by the submit: whether the user declined instead of answering. */
  declined = false;

  constructor(tools: readonly PendingFrontendTool[], context: BlockContext) {
    this.tools = tools;
    this.root = el('form', {
      class: 'block frontend-tools',
      attrs: { 'data-block': 'awaiting-frontend-tools' },
    });
    this.root.append(
      el('h4', { text: tools.length === 1 ? 'The agent asks you' : 'The agent asks you:' }),
    );
    tools.forEach((tool, index) => {
      const id = `answer-${tool.tool_use_id.replace(/[^\w-]/g, '_')}`;
      const question = questionOf(tool);
      const field = el('textarea', {
        attrs: { id, name: tool.tool_use_id, rows: '2', required: '', 'data-tool': tool.name },
      });
      this.fields.push(field);
      this.root.append(
        el('label', { attrs: { for: id }, text: question ?? `${tool.name}:` }),
        ...(question === undefined
          ? [el('pre', { class: 'tool-args', text: JSON.stringify(tool.input, null, 2) })]
          : []),
        field,
      );
      if (index === 0) queueMicrotask(() => field.focus());
    });
    const send = el('button', { text: 'Send answer', attrs: { type: 'submit', class: 'primary' } });
    const decline = el('button', {
      text: 'Decline',
      attrs: { type: 'submit', formnovalidate: '' },
    });
    decline.addEventListener('click', () => {
      this.declined = true;
    });
    send.addEventListener('click', () => {
      this.declined = false;
    });
    this.buttons = [send, decline];
    this.root.append(el('div', { class: 'form-actions' }, send, decline), this.message);
    this.root.addEventListener('submit', (event) => {
      event.preventDefault();
      context.answer(this);
    });
    // Ctrl/Cmd+Enter sends.
    this.root.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.root.requestSubmit(send);
      }
    });
  }

  update(): void {}

  /** The answers, in the order of the tools. */
  results(): { tool_use_id: string; content: string; is_error?: boolean }[] {
    return this.tools.map((tool, index) =>
      this.declined
        ? { tool_use_id: tool.tool_use_id, content: 'The user declined to answer.', is_error: true }
        : { tool_use_id: tool.tool_use_id, content: this.fields[index]!.value },
    );
  }

  setBusy(busy: boolean, message = ''): void {
    for (const control of [...this.fields, ...this.buttons]) control.disabled = busy;
    this.message.textContent = message;
  }

  /** Answered (or the run stopped): the form stays as a record, read-only. */
  close(note: string): void {
    this.setBusy(true, note);
    this.root.dataset.state = 'closed';
  }
}

function questionOf(tool: PendingFrontendTool): string | undefined {
  const input = tool.input;
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const question = (input as Record<string, JsonValue>).question;
    if (typeof question === 'string') return question;
  }
  return undefined;
}
