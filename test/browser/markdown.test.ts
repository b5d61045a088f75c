import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, renderInline, renderMarkdown } from '../../web/src/markdown.ts';

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
    // Not a link (the parenthesis ends it); the URL alone is, and the quotes stay text.
    expect(renderInline('[a](https://x.com/"onmouseover="alert(1))')).toBe(
      '[a](<a href="https://x.com/" rel="noopener noreferrer nofollow" target="_blank">https://x.com/</a>&quot;onmouseover=&quot;alert(1))',
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
      if (attribute === 'href') expect(value).toMatch(/^https?:\/\//i);
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
