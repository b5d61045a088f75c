/**
 * The page's Markdown: the model's answers and the server's hints, rendered by markdown-it
 * (CommonMark, with GitHub's tables and strikethrough) and locked down for text that a model or a
 * page it read may have written:
 * - raw HTML is text, and images are not rendered (a model-chosen image address would be fetched
 *   as soon as the answer shows, carrying whatever the model put in it);
 * - links, written or bare, go only to http(s) and mailto addresses and open in a new tab without
 *   opener or referrer;
 * - the only attributes written are `href`, `rel` and `target` on links, `start` on ordered lists
 *   and a cleaned `language-…` class on code blocks (no inline styles: the page's CSP refuses them);
 * - the work grows linearly with the text and stays bounded: containers nested deeper than
 *   MAX_NESTING show the rest of their lines as text, and text past `maxMarkdownChars` is shown as
 *   plain text, because the page renders the growing answer again on every frame.
 * No DOM here: it runs in Node tests too.
 */
import MarkdownIt, { type StateBlock, type StateCore, type Token } from 'markdown-it';

/** Container depth (a quote counts one, a list level two) past which lines are shown as text. */
export const MAX_NESTING = 32;

export const DEFAULT_MAX_MARKDOWN_CHARS = 200_000;

export interface MarkdownOptions {
  /**
   * How many characters are rendered as Markdown; the rest of a longer text follows as plain text
   * after a notice. Default 200,000. Example: `renderMarkdown(answer, { maxMarkdownChars: 50_000 })`.
   */
  readonly maxMarkdownChars?: number;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

const LINK_REL = 'noopener noreferrer nofollow';
const SAFE_URL = /^(?:https?:\/\/|mailto:)/i;

const markdownIt = createMarkdownIt();

/** Markdown text as HTML; see the module comment for what is and is not written. */
export function renderMarkdown(markdown: string, options: MarkdownOptions = {}): string {
  const limit = markdownLimit(options);
  if (markdown.length <= limit) return markdownIt.render(markdown);
  const cut = cutPoint(markdown, limit);
  return (
    markdownIt.render(markdown.slice(0, cut)) +
    `<p><em>The rest is shown as plain text: it is past the first ${limit} characters, ` +
    'which are rendered as Markdown.</em></p>' +
    `<pre>${escapeHtml(markdown.slice(cut))}</pre>`
  );
}

/** Inline Markdown only (code, emphasis, links), for one-line texts such as hints. */
export function renderInline(text: string, options: MarkdownOptions = {}): string {
  const limit = markdownLimit(options);
  if (text.length <= limit) return markdownIt.renderInline(text);
  const cut = cutPoint(text, limit);
  return markdownIt.renderInline(text.slice(0, cut)) + escapeHtml(text.slice(cut));
}

/** A piece of a tool's text output: plain text, or the code of a fenced block. */
export type FencedPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'code'; readonly code: string; readonly language: string };

/**
 * A tool's text output split at its fenced code blocks (```` ```ts ```` … ```` ``` ````), found by
 * the same CommonMark parser as the answers. Only fences at the top level count; everything
 * else, Markdown or not, is kept as it was written (a tool's output is not prose: `>` or `*` at a
 * line's start mean nothing). Past `maxMarkdownChars` the text is one plain part. The parts hold
 * text only: whoever shows them writes them as text, never as HTML.
 */
export function fencedCodeParts(text: string, options: MarkdownOptions = {}): FencedPart[] {
  if (text.length > markdownLimit(options)) return [{ type: 'text', text }];
  const fences = markdownIt.parse(text, {}).filter((token) => token.type === 'fence');
  if (!fences.some((fence) => fence.level === 0)) return [{ type: 'text', text }];
  // markdown-it counts lines after turning \r\n and \r into \n; so does this.
  const lines = text.split(/\r\n|\r|\n/);
  const parts: FencedPart[] = [];
  let next = 0;
  const addText = (end: number) => {
    const between = lines.slice(next, end).join('\n');
    if (between.trim() !== '') parts.push({ type: 'text', text: between });
  };
  for (const fence of fences) {
    if (fence.level !== 0 || !fence.map) continue;
    const [start, end] = fence.map;
    addText(start);
    const code = fence.content.endsWith('\n') ? fence.content.slice(0, -1) : fence.content;
    parts.push({ type: 'code', code, language: fenceLanguage(fence.info) });
    next = end;
  }
  addText(lines.length);
  return parts;
}

/** A fence's language, cleaned to letters, digits, `_`, `+` and `-` (it becomes a class name). */
function fenceLanguage(info: string): string {
  return (info.trim().split(/\s/, 1)[0] ?? '').replace(/[^\w+-]/g, '');
}

function markdownLimit(options: MarkdownOptions): number {
  const limit = options.maxMarkdownChars ?? DEFAULT_MAX_MARKDOWN_CHARS;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(
      `maxMarkdownChars must be a whole number of characters, 1 or more; got ${String(limit)}`,
    );
  }
  return limit;
}

/** Where a text longer than `limit` stops being Markdown: at a line end if one is near. */
function cutPoint(text: string, limit: number): number {
  const lineEnd = text.lastIndexOf('\n', limit - 1);
  if (lineEnd >= limit / 2) return lineEnd + 1;
  // Never between the two halves of a surrogate pair.
  const last = text.charCodeAt(limit - 1);
  return last >= 0xd800 && last <= 0xdbff ? limit - 1 : limit;
}

function createMarkdownIt() {
  const md = new MarkdownIt('default', {
    html: false,
    linkify: true,
    typographer: false,
    // markdown-it's own limit drops the rest of the text; ours (deepLinesAsText) acts first.
    maxNesting: MAX_NESTING + 4,
  });
  md.disable(['image', 'html_block', 'html_inline']);
  // Bare links need their scheme: "example.com" in prose stays text.
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  md.validateLink = (url) => SAFE_URL.test(url);
  md.block.ruler.before('table', 'deep_lines_as_text', deepLinesAsText);
  md.core.ruler.push('page_markup', pageMarkup);
  md.renderer.rules.fence = renderCodeBlock;
  md.renderer.rules.code_block = renderCodeBlock;
  return md;
}

/**
 * At MAX_NESTING, the rest of the container's lines become one paragraph of text: parsing them
 * further would nest without end (one level per `>` or list marker), which is what made the
 * hand-written renderer overflow its stack.
 */
function deepLinesAsText(
  state: StateBlock,
  startLine: number,
  endLine: number,
  silent: boolean,
): boolean {
  if (silent || state.level < MAX_NESTING) return false;
  state.push('paragraph_open', 'p', 1);
  const text = state.push('text', '', 0);
  text.content = state.getLines(startLine, endLine, state.blkIndent, false);
  state.push('paragraph_close', 'p', -1);
  state.line = endLine;
  return true;
}

/** Keeps only the page's attributes, writes `<del>` for strikethrough, and no newlines between blocks. */
function pageMarkup(state: StateCore): void {
  for (const token of state.tokens) {
    restrictToken(token);
    if (token.children) unlinkUnsafeLinks(token.children);
    for (const child of token.children ?? []) restrictToken(child);
  }
}

/**
 * A link whose address was refused (markdown-it keeps it, with an empty `href`: `[a]()`,
 * `[a](javascript:…)`) is no link: its text stays, its tags go.
 */
function unlinkUnsafeLinks(tokens: Token[]): void {
  let unlinking = false;
  for (const token of tokens) {
    if (token.type === 'link_open') {
      unlinking = !SAFE_URL.test(String(token.attrGet('href') ?? ''));
      if (unlinking) dropTag(token);
    } else if (token.type === 'link_close' && unlinking) {
      unlinking = false;
      dropTag(token);
    }
  }
}

/** Turns a tag token into an empty text token: the text between its tags stays. */
function dropTag(token: Token): void {
  token.type = 'text';
  token.tag = '';
  token.nesting = 0;
  token.content = '';
}

function restrictToken(token: Token): void {
  // The renderer ends block tags with a newline; the page's text (and its tests) should not see it.
  token.block = false;
  if (token.tag === 's') token.tag = 'del';
  if (token.type === 'link_open') {
    token.attrs = [
      ['href', token.attrGet('href') ?? ''],
      ['rel', LINK_REL],
      ['target', '_blank'],
    ];
  } else if (token.type === 'ordered_list_open') {
    const start = token.attrGet('start');
    token.attrs = start === null ? null : [['start', start]];
  } else {
    // Alignment comes as a style attribute, which the CSP would refuse; titles are not shown.
    token.attrs = null;
  }
}

function renderCodeBlock(tokens: Token[], index: number): string {
  const token = tokens[index]!;
  const language = fenceLanguage(token.info);
  const classAttribute = language ? ` class="language-${language}"` : '';
  const code = token.content.endsWith('\n') ? token.content.slice(0, -1) : token.content;
  return `<pre><code${classAttribute}>${escapeHtml(code)}</code></pre>`;
}
