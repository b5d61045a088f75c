import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_MAX_MARKDOWN_CHARS,
  escapeHtml,
  fencedCodeParts,
  MAX_NESTING,
  renderInline,
  renderMarkdown,
} from '../../web/src/markdown.ts';
import { optionPieces } from '../../web/src/option-pieces.ts';

describe('renderMarkdown', () => {
  it('renders paragraphs, headings, rules and quotes', () => {
    expect(renderMarkdown('# Title\n\nOne\nline.\n\n---\n> quoted\n> text')).toBe(
      '<h1>Title</h1><p>One\nline.</p><hr><blockquote><p>quoted\ntext</p></blockquote>',
    );
  });

  it('renders fenced code with its language, escaped, and an unclosed fence to the end', () => {
    expect(renderMarkdown('```ts\nconst a = 1 < 2 && "x";\n```\nafter')).toBe(
      '<pre><code class="language-ts">const a = 1 &lt; 2 &amp;&amp; &quot;x&quot;;</code></pre><p>after</p>',
    );
    expect(renderMarkdown('Look:\n\n```js\nlet x = **1**;')).toBe(
      '<p>Look:</p><pre><code class="language-js">let x = **1**;</code></pre>',
    );
    // A language with odd characters is cleaned, not trusted.
    expect(renderMarkdown('```a"onclick=x\ny\n```')).toBe(
      '<pre><code class="language-aonclickx">y</code></pre>',
    );
  });

  it('renders lists: unordered, ordered with a start, nested, and loose', () => {
    expect(renderMarkdown('- one\n- **two**\n  - nested\n- three')).toBe(
      '<ul><li>one</li><li><strong>two</strong><ul><li>nested</li></ul></li><li>three</li></ul>',
    );
    expect(renderMarkdown('3. c\n4. d')).toBe('<ol start="3"><li>c</li><li>d</li></ol>');
    expect(renderMarkdown('1. a\n\n2. b\n\nafter')).toBe(
      '<ol><li><p>a</p></li><li><p>b</p></li></ol><p>after</p>',
    );
  });

  it('renders tables', () => {
    // As in GFM, a pipe splits cells even inside backticks (write \\| to keep it).
    expect(renderMarkdown('| a | b |\n|---|:-:|\n| `x|y` | *z* |\n| `p\\|q` | |')).toBe(
      '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody>' +
        '<tr><td>`x</td><td>y`</td></tr><tr><td><code>p|q</code></td><td></td></tr></tbody></table>',
    );
    expect(renderMarkdown('a | b\n--|--\n1 | 2')).toBe(
      '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td>2</td></tr></tbody></table>',
    );
  });
});

describe('renderInline', () => {
  it('renders code, bold, italic and strikethrough', () => {
    expect(renderInline('a `b *c*` **d** *e* _f_ ~~g~~ snake_case_name')).toBe(
      'a <code>b *c*</code> <strong>d</strong> <em>e</em> <em>f</em> <del>g</del> snake_case_name',
    );
    expect(renderInline('``code with ` tick``')).toBe('<code>code with ` tick</code>');
    expect(renderInline('an `unclosed tick')).toBe('an `unclosed tick');
    // Emphasis pairs up around code spans, and links may hold them.
    expect(renderInline('**`loginUser`** in *`a.ts`*')).toBe(
      '<strong><code>loginUser</code></strong> in <em><code>a.ts</code></em>',
    );
    expect(renderInline('[`run`](https://x.dev)')).toBe(
      '<a href="https://x.dev" rel="noopener noreferrer nofollow" target="_blank"><code>run</code></a>',
    );
  });

  it('links only http(s) URLs', () => {
    expect(renderInline('[docs](https://example.com/a?b=1&c=2)')).toBe(
      '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow" target="_blank">docs</a>',
    );
    expect(renderInline('[x](javascript:alert(1))')).toBe('[x](javascript:alert(1))');
    expect(renderInline('[x](data:text/html,hi)')).toBe('[x](data:text/html,hi)');
    expect(renderInline('see https://example.com/x.')).toBe(
      'see <a href="https://example.com/x" rel="noopener noreferrer nofollow" target="_blank">https://example.com/x</a>.',
    );
    expect(renderInline('"https://example.com"')).toBe(
      '&quot;<a href="https://example.com" rel="noopener noreferrer nofollow" target="_blank">https://example.com</a>&quot;',
    );
  });

  it('escapes HTML before anything else', () => {
    expect(renderInline('<script>alert(1)</script> & <b>x</b>')).toBe(
      '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;x&lt;/b&gt;',
    );
    // Quotes in an address are percent-encoded: they cannot end the attribute.
    expect(renderInline('[a](https://x.com/"onmouseover="alert(1))')).toBe(
      '<a href="https://x.com/%22onmouseover=%22alert(1)" rel="noopener noreferrer nofollow" target="_blank">a</a>',
    );
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
  });
});

/** What the renderer may write: these tags, these attributes, nothing else. */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  p: [],
  h1: [],
  h2: [],
  h3: [],
  h4: [],
  h5: [],
  h6: [],
  hr: [],
  br: [],
  blockquote: [],
  pre: [],
  code: ['class'],
  ul: [],
  ol: ['start'],
  li: [],
  table: [],
  thead: [],
  tbody: [],
  tr: [],
  th: [],
  td: [],
  strong: [],
  em: [],
  del: [],
  a: ['href', 'rel', 'target'],
};

function checkMarkup(html: string): void {
  // Every `<` starts a tag the renderer writes; text `<` is always escaped.
  const tag = /<(\/?)([a-z0-9]+)((?: [a-z]+="[^"<>]*")*)>/y;
  for (let index = html.indexOf('<'); index >= 0; index = html.indexOf('<', index + 1)) {
    tag.lastIndex = index;
    const match = tag.exec(html);
    expect(match, `markup at ${index}: ${html.slice(index, index + 40)}`).not.toBeNull();
    const [, , name, attributes] = match!;
    expect(Object.keys(ALLOWED)).toContain(name);
    for (const [, attribute, value] of attributes!.matchAll(/ ([a-z]+)="([^"]*)"/g)) {
      expect(ALLOWED[name!]).toContain(attribute);
      if (attribute === 'href') expect(value).toMatch(/^(?:https?:\/\/|mailto:)/i);
      if (attribute === 'class') expect(value).toMatch(/^language-[\w+-]+$/);
      if (attribute === 'start') expect(value).toMatch(/^\d+$/);
    }
  }
}

describe('safety (property)', () => {
  const markdownish = fc.array(
    fc.oneof(
      fc.string(),
      fc.constantFrom(
        '<',
        '>',
        '&',
        '"',
        "'",
        '`',
        '**',
        '*',
        '_',
        '~~',
        '[',
        '](',
        ')',
        'https://',
        'javascript:',
        '\n',
        '\n\n',
        '```',
        '- ',
        '1. ',
        '# ',
        '> ',
        '|',
        '---',
        '<img src=x onerror=alert(1)>',
        '\0',
        '![',
        '<https://',
        '<javascript:',
        'mailto:',
        '[r]: ',
        '&#106;avascript:',
        '    ',
        ':-:',
      ),
    ),
    { maxLength: 40 },
  );

  it('writes no markup but its own, whatever the input', () => {
    fc.assert(
      fc.property(markdownish, (parts) => {
        checkMarkup(renderMarkdown(parts.join('')));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps all the text: the output without markup holds every word of the input', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9 ]{0,60}$/), (text) => {
        const html = renderMarkdown(text);
        const plain = html.replace(/<[^>]+>/g, '');
        expect(plain.replace(/\s+/g, ' ').trim()).toBe(text.replace(/\s+/g, ' ').trim());
      }),
    );
  });
});

/** The text a reader sees: tags dropped, the escapes the renderer writes read back. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('hostile text', () => {
  it('shows raw HTML as text, in blocks and inline', () => {
    for (const html of [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      'before <img src=x onerror=alert(1)> after',
      '<div onclick="alert(1)">\n\nhi\n\n</div>',
      '<!-- c --><iframe src="https://x.dev"></iframe>',
      '<svg><a xlink:href="javascript:alert(1)">x</a></svg>',
    ]) {
      const rendered = renderMarkdown(html);
      checkMarkup(rendered);
      expect(rendered).not.toMatch(/<(?:script|img|div|iframe|svg)/i);
      expect(visibleText(rendered).replace(/\s+/g, '')).toBe(html.replace(/\s+/g, ''));
    }
    expect(renderMarkdown('<img src=x onerror=alert(1)>')).toBe(
      '<p>&lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  it('writes no link to anything but http(s) and mailto, however it is spelled', () => {
    for (const text of [
      '[x](javascript:alert(1))',
      '[x](JaVaScRiPt:alert(1))',
      '[x](<javascript:alert(1)>)',
      '[x](&#106;avascript:alert(1))',
      '[x](java\\script:alert(1))',
      '[x](vbscript:msgbox(1))',
      '[x](data:text/html;base64,PHNjcmlwdD4=)',
      '[x](file:///etc/passwd)',
      '[x](//evil.dev/x)',
      '[x](/api/runs)',
      '<javascript:alert(1)>',
      '[x][ref]\n\n[ref]: javascript:alert(1)',
      'bare javascript:alert(1) and data:text/html,x and ftp://x.dev/a',
      '[x]()',
      '[]()',
      '[x](<>)',
    ]) {
      const rendered = renderMarkdown(text);
      checkMarkup(rendered);
      expect(rendered, text).not.toContain('<a ');
    }
    expect(renderMarkdown('[x][ref]\n\n[ref]: https://x.dev/a')).toBe(
      '<p><a href="https://x.dev/a" rel="noopener noreferrer nofollow" target="_blank">x</a></p>',
    );
    expect(renderInline('<https://x.dev> and [mail](mailto:a@x.dev)')).toBe(
      '<a href="https://x.dev" rel="noopener noreferrer nofollow" target="_blank">https://x.dev</a> and ' +
        '<a href="mailto:a@x.dev" rel="noopener noreferrer nofollow" target="_blank">mail</a>',
    );
  });

  it('loads no image: an image is shown as a link to it', () => {
    const rendered = renderMarkdown('![secret](https://evil.dev/p.png?d=secret)');
    expect(rendered).not.toContain('<img');
    expect(rendered).toBe(
      '<p>!<a href="https://evil.dev/p.png?d=secret" rel="noopener noreferrer nofollow" target="_blank">secret</a></p>',
    );
  });

  it('writes no style or title attribute (the CSP refuses inline styles)', () => {
    const rendered = renderMarkdown('| a | b |\n|:-:|--:|\n| 1 | [x](https://x.dev "Title") |');
    checkMarkup(rendered);
    expect(rendered).not.toMatch(/style=|title=/);
    expect(rendered).toContain('<td>1</td>');
  });
});

describe('nesting', () => {
  it('nests quotes and lists as written up to MAX_NESTING', () => {
    expect(count(renderMarkdown(`${'> '.repeat(5)}x`), '<blockquote>')).toBe(5);
    expect(count(renderMarkdown(`${'- '.repeat(5)}x`), '<ul>')).toBe(5);
    expect(count(renderMarkdown(`${'> '.repeat(MAX_NESTING)}x`), '<blockquote>')).toBe(MAX_NESTING);
  });

  it('shows the rest of a deeper container as text, keeping every character', () => {
    const extra = 50;
    const quotes = renderMarkdown(`${'> '.repeat(MAX_NESTING + extra)}*end*`);
    expect(count(quotes, '<blockquote>')).toBe(MAX_NESTING);
    expect(quotes).toContain(`<p>${'&gt; '.repeat(extra - 1)}&gt; *end*</p>`);
    const list = renderMarkdown(`${'- '.repeat(MAX_NESTING + extra)}end`);
    // A list level is two containers: the list and its item.
    expect(count(list, '<ul>')).toBe(MAX_NESTING / 2);
    expect(visibleText(list)).toBe(`${'- '.repeat(MAX_NESTING / 2 + extra)}end`);
    const lines = Array.from(
      { length: 200 },
      (_, index) => `${'>'.repeat(index + 1)} line${index}`,
    );
    const rendered = renderMarkdown(lines.join('\n'));
    checkMarkup(rendered);
    for (let index = 0; index < 200; index++) expect(rendered).toContain(`line${index}`);
  });

  it('renders the inputs that overflowed the stack', () => {
    expect(() => renderMarkdown('>'.repeat(4_700))).not.toThrow();
    expect(() => renderMarkdown(`${'- '.repeat(2_800)}x`)).not.toThrow();
    expect(() => renderMarkdown(`${'1. '.repeat(2_000)}x`)).not.toThrow();
    expect(() => renderMarkdown('>'.repeat(200_000))).not.toThrow();
  });
});

describe('length cap', () => {
  it('renders the first maxMarkdownChars as Markdown and the rest as plain text', () => {
    const head = '# Title\n\n**bold** text\n';
    const tail = '**not bold** <b>x</b>\n- not a list';
    const rendered = renderMarkdown(head + tail, { maxMarkdownChars: head.length });
    expect(rendered).toBe(
      '<h1>Title</h1><p><strong>bold</strong> text</p>' +
        `<p><em>The rest is shown as plain text: it is past the first ${head.length} characters, which are rendered as Markdown.</em></p>` +
        `<pre>${escapeHtml(tail)}</pre>`,
    );
    checkMarkup(rendered);
  });

  it('cuts at a line end when there is one, and never inside a surrogate pair', () => {
    const rendered = renderMarkdown('some *a*\n*b* more words', { maxMarkdownChars: 12 });
    expect(rendered).toMatch(/^<p>some <em>a<\/em><\/p><p><em>The rest/);
    expect(rendered).toMatch(/<pre>\*b\* more words<\/pre>$/);
    const emoji = renderMarkdown('ab😀cd', { maxMarkdownChars: 3 });
    expect(emoji).toMatch(/^<p>ab<\/p>/);
    expect(emoji).toMatch(/<pre>😀cd<\/pre>$/);
  });

  it('applies the default cap, to inline text too', () => {
    const long = `${'x'.repeat(DEFAULT_MAX_MARKDOWN_CHARS)} **tail**`;
    expect(renderMarkdown(long)).toContain('The rest is shown as plain text');
    expect(renderMarkdown(long)).toContain('<pre> **tail**</pre>');
    expect(renderMarkdown(long.slice(0, DEFAULT_MAX_MARKDOWN_CHARS))).not.toContain('The rest');
    expect(renderInline('**a** **b**', { maxMarkdownChars: 6 })).toBe('<strong>a</strong> **b**');
  });

  it('refuses a cap that is not a whole number of characters', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => renderMarkdown('x', { maxMarkdownChars: bad })).toThrow(
        /maxMarkdownChars must be a whole number of characters, 1 or more; got/,
      );
    }
  });
});

describe('fencedCodeParts (tool results)', () => {
  it('splits a result at its fenced code blocks, keeping the rest exactly as written', () => {
    const result =
      'Found 1 matching line\n> 8 | *not* a quote\nLines: 6-10\n```typescript\nconst a = 1 < 2;\n```\n\nafter **it**';
    expect(fencedCodeParts(result)).toEqual([
      { type: 'text', text: 'Found 1 matching line\n> 8 | *not* a quote\nLines: 6-10' },
      { type: 'code', code: 'const a = 1 < 2;', language: 'typescript' },
      { type: 'text', text: '\nafter **it**' },
    ]);
  });

  it('gives the text whole when it has no top-level fence', () => {
    for (const text of [
      'plain',
      '    indented code',
      '> ```js\n> quoted fence\n> ```',
      '- a\n  ```\n  b\n  ```',
    ])
      expect(fencedCodeParts(text)).toEqual([{ type: 'text', text }]);
  });

  it('reads several fences, \\r\\n line ends, an unclosed fence, and cleans the language', () => {
    expect(
      fencedCodeParts('a\r\n~~~py\r\nx = 1\r\n~~~\r\nb\r\n```a"onclick=x\r\n<img src=x>'),
    ).toEqual([
      { type: 'text', text: 'a' },
      { type: 'code', code: 'x = 1', language: 'py' },
      { type: 'text', text: 'b' },
      { type: 'code', code: '<img src=x>', language: 'aonclickx' },
    ]);
  });

  it('leaves a text past the cap as one plain part', () => {
    const text = '```js\nx\n```';
    expect(fencedCodeParts(text, { maxMarkdownChars: 5 })).toEqual([{ type: 'text', text }]);
  });
});

describe('optionPieces (error cards)', () => {
  const options = (text: string) =>
    optionPieces(text)
      .filter((piece) => piece.option)
      .map((piece) => piece.text);

  it('finds command-line options and keeps every character', () => {
    const text =
      'Or point --base-url (TOOLWIRE_BASE_URL) at a server, or use `--replay` (-h for help).';
    expect(options(text)).toEqual(['--base-url', '--replay', '-h']);
    expect(
      optionPieces(text)
        .map((piece) => piece.text)
        .join(''),
    ).toBe(text);
    expect(optionPieces('--model')).toEqual([{ text: '--model', option: true }]);
  });

  it('leaves hyphens inside words, dashes and numbers alone', () => {
    expect(options('a well-known x - y -1 --- qwen2.5-coder:7b')).toEqual([]);
    expect(optionPieces('')).toEqual([{ text: '', option: false }]);
  });
});
