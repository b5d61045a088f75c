/**
 * A small, safe Markdown renderer for the model's answers. Safety comes from the order of work:
 * every piece of source text is HTML-escaped before anything else, and the only markup in the
 * output is what this module writes itself — a fixed set of tags, with `href` only for http(s)
 * links and a sanitised `class` on code blocks. No DOM here: it runs in Node tests too.
 *
 * Supported: paragraphs, headings, fenced code blocks (an unclosed fence runs to the end, as
 * while streaming), block quotes, ordered and unordered lists (nested by indentation), tables,
 * rules; inline code, bold, italic, strikethrough, links and bare http(s) URLs.
 */

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

export function renderMarkdown(source: string): string {
  // NUL marks placeholders in the inline pass; it has no business in text anyway.
  return renderBlocks(source.replace(/\0/g, '\uFFFD').replace(/\r\n?/g, '\n').split('\n'));
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}>[ \t]?/;
const LIST_ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])([ \t]+|$)/;
const TABLE_DIVIDER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

function isBlank(line: string): boolean {
  return line.trim().length === 0;
}

/** Lines that end a paragraph: the start of another block. */
function startsBlock(line: string): boolean {
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    QUOTE.test(line) ||
    LIST_ITEM.test(line)
  );
}

function renderBlocks(lines: readonly string[]): string {
  const out: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index]!;
    if (isBlank(line)) {
      index++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const language = fence[2]!.replace(/[^\w+-]/g, '');
      const body: string[] = [];
      index++;
      while (index < lines.length) {
        const closing = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[index]!);
        if (closing && closing[1]![0] === marker[0] && closing[1]!.length >= marker.length) {
          index++;
          break;
        }
        body.push(lines[index]!);
        index++;
      }
      const classAttribute = language ? ` class="language-${language}"` : '';
      out.push(`<pre><code${classAttribute}>${escapeHtml(body.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const level = heading[1]!.length;
      out.push(`<h${level}>${renderInline(heading[2] ?? '')}</h${level}>`);
      index++;
      continue;
    }
    if (RULE.test(line)) {
      out.push('<hr>');
      index++;
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (index < lines.length && QUOTE.test(lines[index]!)) {
        quoted.push(lines[index]!.replace(QUOTE, ''));
        index++;
      }
      out.push(`<blockquote>${renderBlocks(quoted)}</blockquote>`);
      continue;
    }
    if (LIST_ITEM.test(line)) {
      index = renderList(lines, index, out);
      continue;
    }
    if (line.includes('|') && index + 1 < lines.length && TABLE_DIVIDER.test(lines[index + 1]!)) {
      index = renderTable(lines, index, out);
      continue;
    }
    const paragraph: string[] = [];
    while (index < lines.length && !isBlank(lines[index]!) && !startsBlock(lines[index]!)) {
      paragraph.push(lines[index]!.trim());
      index++;
    }
    out.push(`<p>${renderInline(paragraph.join('\n'))}</p>`);
  }
  return out.join('');
}

/** A list starting at `start`; returns the index after it. */
function renderList(lines: readonly string[], start: number, out: string[]): number {
  const first = LIST_ITEM.exec(lines[start]!)!;
  const ordered = /\d/.test(first[2]!);
  // An item indented past this list's markers belongs to an item (a nested list).
  const siblingIndent = first[1]!.length + 1;
  const items: string[][] = [];
  let index = start;
  let blankBefore = false;
  let loose = false;
  while (index < lines.length) {
    const line = lines[index]!;
    const item = LIST_ITEM.exec(line);
    if (item && item[1]!.length <= siblingIndent && /\d/.test(item[2]!) === ordered) {
      if (blankBefore && items.length > 0) loose = true;
      items.push([line.slice(item[0].length)]);
      blankBefore = false;
      index++;
      continue;
    }
    if (isBlank(line)) {
      blankBefore = true;
      index++;
      continue;
    }
    // Indented lines belong to the item (nested lists, continued text); so does a lazy
    // continuation line directly after the item's text.
    const indented = /^(?: {2,}|\t)/.test(line);
    if (indented || (!blankBefore && !startsBlock(line))) {
      const current = items[items.length - 1]!;
      if (blankBefore) current.push('');
      current.push(line.replace(/^(?: {1,4}|\t)/, ''));
      blankBefore = false;
      index++;
      continue;
    }
    break;
  }
  // A trailing blank line belongs to what follows.
  if (blankBefore) index--;
  const tag = ordered ? 'ol' : 'ul';
  const number = Number.parseInt(first[2]!, 10);
  const startAttribute = ordered && number !== 1 ? ` start="${number}"` : '';
  const rendered = items.map((body) => {
    const html = renderBlocks(body);
    // A tight list's single paragraph is shown without its <p>.
    const single = /^<p>([\s\S]*?)<\/p>(<(?:ul|ol)[\s\S]*)?$/.exec(html);
    return `<li>${!loose && single ? single[1]! + (single[2] ?? '') : html}</li>`;
  });
  out.push(`<${tag}${startAttribute}>${rendered.join('')}</${tag}>`);
  return index;
}

function tableCells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|') && !row.endsWith('\\|')) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

function renderTable(lines: readonly string[], start: number, out: string[]): number {
  const header = tableCells(lines[start]!);
  let index = start + 2;
  const rows: string[][] = [];
  while (index < lines.length && lines[index]!.includes('|') && !isBlank(lines[index]!)) {
    rows.push(tableCells(lines[index]!));
    index++;
  }
  const cells = (row: readonly string[], tag: 'th' | 'td') =>
    header.map((_, column) => `<${tag}>${renderInline(row[column] ?? '')}</${tag}>`).join('');
  const body = rows.map((row) => `<tr>${cells(row, 'td')}</tr>`).join('');
  out.push(
    `<table><thead><tr>${cells(header, 'th')}</tr></thead>${body ? `<tbody>${body}</tbody>` : ''}</table>`,
  );
  return index;
}

// ── inline ───────────────────────────────────────────────────────────────────────────────────

/** Inline Markdown of one block's text (may span lines). */
export function renderInline(text: string): string {
  const placeholders: string[] = [];
  // Code spans first: nothing inside them is Markdown. They become placeholders, so emphasis
  // around them (**`name`**) still pairs up.
  let rest = text.replace(/\0/g, '\uFFFD');
  let withCode = '';
  while (rest.length > 0) {
    const open = /`+/.exec(rest);
    if (!open) {
      withCode += rest;
      break;
    }
    const ticks = open[0];
    const close = findClosingTicks(rest, open.index + ticks.length, ticks.length);
    if (close < 0) {
      withCode += rest.slice(0, open.index + ticks.length);
      rest = rest.slice(open.index + ticks.length);
      continue;
    }
    withCode += rest.slice(0, open.index);
    let code = rest.slice(open.index + ticks.length, close).replace(/\n/g, ' ');
    if (/^ .*[^ ].* $/.test(code)) code = code.slice(1, -1);
    withCode += placeholder(`<code>${escapeHtml(code)}</code>`, placeholders);
    rest = rest.slice(close + ticks.length);
  }
  return restore(formatText(withCode, placeholders), placeholders);
}

/** Puts the placeholders' markup back (links may hold code spans: repeat until none are left). */
function restore(html: string, placeholders: readonly string[]): string {
  let out = html;
  while (out.includes('\0'))
    out = out.replace(/\0(\d+)\0/g, (_, index: string) => placeholders[Number(index)]!);
  return out;
}

function findClosingTicks(text: string, from: number, length: number): number {
  const pattern = /`+/g;
  pattern.lastIndex = from;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0].length === length) return match.index;
  }
  return -1;
}

function placeholder(html: string, placeholders: string[]): string {
  placeholders.push(html);
  return `\0${placeholders.length - 1}\0`;
}

const SAFE_URL = /^https?:\/\/[^\s]+$/i;

/** Text outside code spans: escaped first, then links and emphasis. */
function formatText(raw: string, placeholders: string[]): string {
  let html = escapeHtml(raw);
  // [text](url "title"): a link only for http(s); anything else stays as written.
  html = html.replace(
    /\[([^\]\n]+)\]\(([^\s()]+)(?:\s+&quot;[^\n]*?&quot;)?\)/g,
    (whole, label: string, url: string) =>
      SAFE_URL.test(url) ? placeholder(link(url, emphasis(label)), placeholders) : whole,
  );
  // Bare URLs (not the ones already in links: those are placeholders now).
  html = html.replace(/\bhttps?:\/\/(?:(?!&quot;|&#39;|&lt;|&gt;)[^\s<>\0])+/gi, (found) => {
    // Punctuation that ends a sentence is not part of the URL.
    const url = found.replace(/[.,:;!?)\]*_~]+$/, '');
    if (!/^https?:\/\/./i.test(url)) return found;
    return placeholder(link(url, url), placeholders) + found.slice(url.length);
  });
  html = emphasis(html);
  return html.replace(/ {2,}\n/g, '<br>');
}

function link(href: string, label: string): string {
  return `<a href="${href}" rel="noopener noreferrer nofollow" target="_blank">${label}</a>`;
}

/** Bold, italic and strikethrough on escaped text. */
function emphasis(html: string): string {
  return html
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(?<![\w\\])__(?=\S)([\s\S]*?\S)__(?!\w)/g, '<strong>$1</strong>')
    .replace(/(?<![*\\])\*(?=[^\s*])([\s\S]*?[^\s*])\*(?!\*)/g, '<em>$1</em>')
    .replace(/(?<![\w\\])_(?=[^\s_])([\s\S]*?[^\s_])_(?!\w)/g, '<em>$1</em>')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<del>$1</del>');
}
