/**
 * The README and the docs name the formats the way the registry does: where they list what a
 * protocol may be, they list every format (a new format that the docs forget fails here), and
 * they link to files of this repository relatively, not through a registry that does not
 * have the package.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import MarkdownIt, { type Token } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_NAMES, protocolByName } from '../../src/protocols/index.ts';

const ROOT = new URL('../../', import.meta.url);

/** Every format's name: what `protocolByName` takes, less `auto` (which reads them all). */
const FORMAT_NAMES: readonly string[] = PROTOCOL_NAMES.filter((name) => name !== 'auto');

function read(path: string): string {
  return readFileSync(new URL(path, ROOT), 'utf8');
}

/** The files under a folder, as paths from the root. */
function filesUnder(folder: string): string[] {
  return readdirSync(new URL(`${folder}/`, ROOT), { recursive: true, encoding: 'utf8' })
    .map((name) => `${folder}/${name.split('\\').join('/')}`)
    .filter((path) => statSync(new URL(path, ROOT)).isFile())
    .sort();
}

const PAGES = ['README.md', ...filesUnder('docs').filter((path) => path.endsWith('.md'))];

const markdown = new MarkdownIt();

/** The inline tokens of a page, each with its children (text, code spans, emphasis…). */
function inlineTokens(text: string): Token[] {
  return markdown.parse(text, {}).filter((token) => token.type === 'inline');
}

/** Words that join the names of a closed list: `a`, `b` or `c`. */
const JOINERS = new Set([', ', ' or ', ', or ']);

/**
 * The closed lists of format names on a page that leave some format out. A closed list is
 * written either in prose, as code spans joined by commas and a final "or" with no "…" after
 * it (`` `xml`, `hermes` or `execute` ``), or in code as a union with no placeholder
 * (`` `"xml" | "hermes" | "execute"` ``, `` `xml|hermes` ``). Open lists (`` `hermes`, `xml`, … ``,
 * `` `xml|NAME|auto` ``) and statements about some formats (`` `kimi-k2` and `deepseek` … ``)
 * are not lists of what a protocol may be, and are left alone.
 */
function incompleteFormatLists(text: string): string[] {
  const found: string[] = [];
  const report = (names: readonly string[]) => {
    const missing = FORMAT_NAMES.filter((name) => !names.includes(name));
    if (missing.length > 0) found.push(`${names.join(', ')} (missing ${missing.join(', ')})`);
  };
  for (const token of inlineTokens(text)) {
    const children = token.children ?? [];
    let run: string[] = [];
    let lastJoiner = '';
    const endRun = (next: Token | undefined) => {
      const open = next?.type === 'text' && /^[,;]?\s*…/.test(next.content);
      if (run.length >= 2 && lastJoiner.endsWith(' or ') && !open) report(run);
      run = [];
      lastJoiner = '';
    };
    children.forEach((child, index) => {
      if (child.type === 'code_inline') {
        unionsIn(child.content).forEach(report);
        if (FORMAT_NAMES.includes(child.content)) {
          run.push(child.content);
          return;
        }
      } else if (child.type === 'text' && run.length > 0 && JOINERS.has(child.content)) {
        const next = children[index + 1];
        if (next?.type === 'code_inline' && FORMAT_NAMES.includes(next.content)) {
          lastJoiner = child.content;
          return;
        }
      }
      endRun(child);
    });
    endRun(undefined);
  }
  return found;
}

/** The closed unions of format names in a piece of code: every member a name, or auto/model. */
function unionsIn(code: string): string[][] {
  const unions: string[][] = [];
  for (const word of code.replace(/\s*\|\s*/g, '|').split(/\s+/)) {
    if (!word.includes('|')) continue;
    const members = word
      .split('|')
      .map((member) => member.replace(/^["'[({<]+|["')\]}>,.;:]+$/g, ''));
    const names = members.filter((member) => FORMAT_NAMES.includes(member));
    const closed = members.every(
      (member) => FORMAT_NAMES.includes(member) || member === 'auto' || member === 'model',
    );
    if (closed && names.length >= 2) unions.push(names);
  }
  return unions;
}

/** The code spans of a page's section: from the heading that starts so, to the next of its rank. */
function codeSpansOfSection(text: string, heading: string): Set<string> {
  const tokens = markdown.parse(text, {});
  const spans = new Set<string>();
  let rank = 0;
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') {
      const level = Number(token.tag.slice(1));
      const title = tokens[index + 1]?.content ?? '';
      if (rank > 0 && level <= rank) rank = 0;
      if (rank === 0 && title.startsWith(heading)) rank = level;
      return;
    }
    if (rank === 0 || token.type !== 'inline') return;
    for (const child of token.children ?? [])
      if (child.type === 'code_inline') spans.add(child.content);
  });
  return spans;
}

describe('links to the project files', () => {
  it.each([...PAGES, ...filesUnder('examples')])('%s does not link to unpkg', (path) => {
    expect(read(path)).not.toMatch(/unpkg\.com/i);
  });
});

describe('lists of formats', () => {
  it('the registry has the formats this test reads', () => {
    expect(FORMAT_NAMES.length).toBeGreaterThanOrEqual(20);
    for (const name of ['xml', 'hermes', 'execute', 'qwen3-coder', 'pythonic'])
      expect(FORMAT_NAMES).toContain(name);
  });

  it.each(PAGES)('%s lists no closed set of formats that leaves one out', (path) => {
    expect(incompleteFormatLists(read(path))).toEqual([]);
  });

  // The places that list what a protocol may be: each names every format.
  it.each([
    ['README.md', 'What it does'],
    ['docs/formats.md', 'The formats'],
    ['docs/middleware.md', 'Protocols by name'],
    ['docs/server.md', 'Options'],
  ])('%s, section "%s", names every format', (path, heading) => {
    const spans = codeSpansOfSection(read(path), heading);
    expect(spans.size, `no section "${heading}" with code in ${path}`).toBeGreaterThan(0);
    expect(FORMAT_NAMES.filter((name) => !spans.has(name))).toEqual([]);
  });

  it('the rule finds closed lists that leave formats out, and only those', () => {
    expect(incompleteFormatLists('`--protocol` is `xml`, `hermes` or `execute`.')).toHaveLength(1);
    expect(incompleteFormatLists('`{"protocol"?: "xml" | "hermes" | "execute"}`')).toHaveLength(1);
    expect(incompleteFormatLists('`--protocol xml|hermes|auto`')).toHaveLength(1);
    expect(incompleteFormatLists('Either `glm` or `xml`.')).toHaveLength(1);
    // Open lists, placeholders and statements about some formats.
    expect(
      incompleteFormatLists('a name (`hermes`, `qwen3-coder`, `xml`, …; see the list)'),
    ).toEqual([]);
    expect(incompleteFormatLists('`xml`, `hermes` or `execute`, … any other')).toEqual([]);
    expect(incompleteFormatLists('`--protocol xml|NAME|auto|model`')).toEqual([]);
    expect(
      incompleteFormatLists('`kimi-k2`, `deepseek` and `gpt-oss` name calls in a header'),
    ).toEqual([]);
    expect(incompleteFormatLists('`xml` or `auto`')).toEqual([]);
    // A complete list passes.
    const all = FORMAT_NAMES.map((name) => `\`${name}\``);
    expect(incompleteFormatLists(`${all.slice(0, -1).join(', ')} or ${all.at(-1)}`)).toEqual([]);
    expect(incompleteFormatLists(`\`${FORMAT_NAMES.join(' | ')} | auto\``)).toEqual([]);
  });
});

describe('the README', () => {
  const readme = read('README.md');

  it('says what examples/ holds: a tools file and one output per format', () => {
    expect(readme).toContain('`tools.json`');
    expect(readme).toContain('one model output per format');
    expect(readme).toContain('`xml-output.txt`');
  });

  it("shows the agent's answer from the result, not only the streamed text", () => {
    const agentExample = markdown
      .parse(readme, {})
      .find((token) => token.type === 'fence' && token.content.includes('runAgent('));
    expect(agentExample?.content).toContain('result.answer');
  });
});

describe('examples/', () => {
  const tools = JSON.parse(read('examples/tools.json'));
  const outputs = filesUnder('examples').filter((path) => path.endsWith('-output.txt'));

  it('holds an output for every format, and none for a name no format has', () => {
    expect(
      outputs.map((path) => path.slice('examples/'.length, -'-output.txt'.length)).sort(),
    ).toEqual([...FORMAT_NAMES].sort());
  });

  it.each(FORMAT_NAMES)(
    'examples/%s-output.txt is read by its format as calls, without faults',
    (name) => {
      const events = protocolByName(name).parseGeneratedText(read(`examples/${name}-output.txt`), {
        tools,
      });
      expect(events.filter((event) => event.type === 'error')).toEqual([]);
      const calls = events.filter((event) => event.type === 'tool-call');
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) expect(call.problems ?? []).toEqual([]);
    },
  );
});
