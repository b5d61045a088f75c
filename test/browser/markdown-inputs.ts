/**
 * Markdown texts of a chosen length that stress a renderer: deep nesting that recursion cannot
 * survive, delimiter soups that make naive emphasis and link matching quadratic, and an ordinary
 * answer for comparison. Shared by the Markdown tests and `bench/markdown.ts`.
 */

export interface MarkdownInput {
  readonly name: string;
  /** Builds the text at exactly `chars` characters. */
  readonly build: (chars: number) => string;
}

/** `unit` repeated, cut to `chars` characters, then `tail` in place of its last characters. */
function repeated(unit: string, chars: number, tail = ''): string {
  const body = unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars - tail.length);
  return body + tail;
}

/** Lines from `line(index)` until `chars` characters are reached (the last one cut). */
function lines(line: (index: number) => string, chars: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index++) {
    const next = `${line(index)}\n`;
    parts.push(next);
    length += next.length;
  }
  return parts.join('').slice(0, chars);
}

/** `first` built at half of `chars`, `second` at the rest. */
function halves(
  chars: number,
  first: (half: number) => string,
  second: (rest: number) => string,
): string {
  const half = Math.floor(chars / 2);
  return first(half) + second(chars - half);
}

const TABLE_HEAD = '| a | b | c |\n|---|---|---|\n';

const PARAGRAPH =
  'The **parser** reads `push()` chunks and *emits* events as they close; see ' +
  '[the docs](https://example.com/docs) or https://example.org/guide for details.\n';

const SECTION =
  `## Reading the stream\n\n${PARAGRAPH}${PARAGRAPH}\n` +
  '1. Open the `session`.\n2. Feed it **text**:\n   - one chunk\n   - _another_ chunk\n\n' +
  '```ts\nconst parser = createParser({ tools });\nfor (const chunk of chunks) parser.push(chunk);\n```\n\n' +
  '> A call is run only when it is **complete**.\n\n' +
  '| option | default |\n|---|:-:|\n| `maxDepth` | 1000 |\n| `strict` | ~~false~~ true |\n\n';

/** The texts the issue named, and others of the same families. */
export const HOSTILE_MARKDOWN: readonly MarkdownInput[] = [
  { name: 'nested > on one line', build: (chars) => repeated('>', chars) },
  {
    name: 'nested > one more per line',
    build: (chars) => lines((i) => '>'.repeat(i + 1) + ' x', chars),
  },
  { name: 'nested - on one line', build: (chars) => repeated('- ', chars, 'x') },
  { name: 'nested 1. on one line', build: (chars) => repeated('1. ', chars, 'x') },
  { name: 'nested > - alternating', build: (chars) => repeated('> - ', chars, 'x') },
  {
    name: 'nested - by indentation',
    build: (chars) => lines((i) => `${'  '.repeat(i % 400)}- item`, chars),
  },
  { name: 'emphasis soup *a **b', build: (chars) => repeated('*a **b ', chars) },
  { name: 'emphasis soup _a __b', build: (chars) => repeated('_a __b ', chars) },
  { name: 'link soup [[[', build: (chars) => repeated('[', chars) },
  { name: 'link soup [a](', build: (chars) => repeated('[a](', chars) },
  {
    name: 'link soup [a then ](url)',
    build: (chars) =>
      halves(
        chars,
        (half) => repeated('[a', half),
        (rest) => repeated('](https://x.dev)', rest),
      ),
  },
  {
    name: 'backtick runs',
    build: (chars) => lines((i) => `${'`'.repeat(i + 1)}a`, chars).replace(/\n/g, ' '),
  },
  { name: 'autolink soup <https://a', build: (chars) => repeated('<https://a', chars) },
  { name: 'bare URL soup', build: (chars) => repeated('(https://x.dev/(a ', chars) },
  {
    name: 'long table',
    build: (chars) => TABLE_HEAD + repeated('| 1 | *2* | `3` |\n', chars - TABLE_HEAD.length),
  },
  {
    name: 'wide table',
    build: (chars) =>
      halves(
        chars,
        (half) => `${repeated('|a', half - 1)}\n`,
        (rest) => repeated('|-', rest),
      ),
  },
];

export const ORDINARY_MARKDOWN: MarkdownInput = {
  name: 'ordinary answer',
  build: (chars) => repeated(SECTION, chars),
};

export const KIB = 1024;
