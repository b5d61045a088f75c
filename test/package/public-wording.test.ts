/**
 * Public text speaks to users: formats and projects by name (Probe's XML protocol, Cogency's
 * execute protocol, the content-block stream), not the project's internal names for its
 * specification ("seed 000") or for the projects it was checked against ("the reference back
 * end"). Public text: the README, the docs, the examples, every Markdown file under src/ and
 * web/, the page, and every string a program can print (string and template literals in src/
 * and web/; comments are for the code's readers).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from './loaded-packages.ts';
import { stringLiteralsOf } from './string-literals.ts';

/** The internal wording. `seed-oss` (a model family) and `<seed:tool_call>` are not it. */
const INTERNAL_WORDING: readonly RegExp[] = [
  /\bseeds?[ _]?0\d\d/i,
  /\bseed (?:document|spec)/i,
  /\bthe seeds\b/i,
  /\breference[ -](?:back|front)[ -]?ends?\b/i,
];

function internalWording(text: string): string[] {
  return INTERNAL_WORDING.flatMap((pattern) => {
    const match = pattern.exec(text);
    return match === null ? [] : [match[0]];
  });
}

function filesUnder(folder: string, extensions: readonly string[]): string[] {
  return readdirSync(new URL(`${folder}/`, ROOT), { recursive: true, encoding: 'utf8' })
    .map((name) => `${folder}/${name.split('\\').join('/')}`)
    .filter((path) => extensions.some((extension) => path.endsWith(extension)))
    .filter((path) => !path.includes('/node_modules/'))
    .sort();
}

const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

const TEXT_FILES = [
  'README.md',
  ...filesUnder('docs', ['.md']),
  ...filesUnder('examples', ['.md', '.txt', '.json']),
  ...filesUnder('src', ['.md']),
  ...filesUnder('web', ['.md', '.html']),
];
const CODE_FILES = [...filesUnder('src', ['.ts']), ...filesUnder('web', ['.ts'])];

describe('public text uses no internal names', () => {
  it.each(TEXT_FILES)('%s', (path) => {
    expect(internalWording(read(path))).toEqual([]);
  });

  it('in any string a program of src/ or web/ can print', () => {
    const found = CODE_FILES.flatMap((path) =>
      stringLiteralsOf(read(path)).flatMap((text) =>
        internalWording(text).map((words) => `${path}: "${words}"`),
      ),
    );
    expect(found).toEqual([]);
  });

  it('in the doc comments of src/, which the type declarations ship', () => {
    const found = filesUnder('src', ['.ts']).flatMap((path) =>
      internalWording(read(path)).map((words) => `${path}: "${words}"`),
    );
    expect(found).toEqual([]);
  });
});

describe('the wording rule', () => {
  it('finds the internal names, in any case', () => {
    for (const text of [
      'as seed 000 defines it',
      "Seed 001's protocol",
      'the XML protocol of seeds 000 and 004',
      'seed002 blocks',
      'The reference back end escaped',
      'the reference backend',
      "the reference front end's tests",
      'described by the seeds',
    ])
      expect(internalWording(text), text).not.toEqual([]);
  });

  it('leaves model names and tags alone', () => {
    for (const text of [
      'seed-oss',
      'Seed-OSS 36B',
      '<seed:tool_call><function=f></function></seed:tool_call>',
      'a random seed of 42',
      "Probe's XML protocol, Cogency's execute protocol",
    ])
      expect(internalWording(text), text).toEqual([]);
  });
});

describe('stringLiteralsOf', () => {
  it('reads quotes and templates, nested expressions included, and skips comments', () => {
    const source = [
      '// seed 000 in a comment',
      '/* the seeds, in a block comment */',
      "const a = 'single \\' quote';",
      'const b = "double";',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript template
      'const c = `outer ${cond ? `inner ${x}` : "alt"} tail`;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of a TypeScript template
      'const d = { e: `${{ f: 1 }.f}` };',
    ].join('\n');
    expect(stringLiteralsOf(source)).toEqual([
      "single \\' quote",
      'double',
      'outer ',
      'inner ',
      'alt',
      ' tail',
    ]);
  });

  it('tells regular expressions from division', () => {
    const source = [
      "const r = /['`]\\/ \"x/g.test(s) ? 'yes' : 'no';",
      "const half = total / 2 / count; const s = 'after';",
      "if (x) return /[/]'/.source; const t = 'last';",
      'const u = (a) / 2; // "not a string"',
    ].join('\n');
    expect(stringLiteralsOf(source)).toEqual(['yes', 'no', 'after', 'last']);
  });
});
