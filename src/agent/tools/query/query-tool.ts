import { Lang, parse, type SgNode } from '@ast-grep/napi';
import {
  BinaryFileError,
  FileTooLargeError,
  InvalidPatternError,
  UnsupportedLanguageError,
  WrongPathKindError,
} from '../errors.ts';
import { resolveInRoot, shown } from '../files/confine.ts';
import { readWholeText, splitLines } from '../files/read.ts';
import { newWalkReport, type WalkedFile, walkFiles } from '../files/walk.ts';
import { optionalString, readInput, requiredString } from '../input.ts';
import { grammarName, languageOf, QUERY_LANGUAGES } from '../languages.ts';
import { CappedOutput } from '../output/capped-output.ts';
import { type NumberedLine, renderCodeBlock } from '../output/code-block.ts';
import type { Settings } from '../settings.ts';
import type { CodeTool, CodeToolExecuteOptions } from '../types.ts';

/** Lines of one match shown; a match spanning a whole class is cut here. */
const MAX_MATCH_LINES = 12;
/** Characters of one captured metavariable shown. */
const MAX_CAPTURE_CHARS = 80;

const PARAMETERS = ['pattern', 'language', 'path'] as const;
const LANGUAGE_NAMES = ['typescript', 'tsx', 'javascript', 'html', 'css'];

interface Match {
  readonly rel: string;
  readonly lines: readonly NumberedLine[];
  readonly more: number;
  readonly captures: readonly string[];
}

export function queryTool(settings: Settings): CodeTool {
  return {
    name: 'query',
    description:
      'Structural code search with an ast-grep pattern: code with placeholders that matches by ' +
      'syntax, not text. $NAME matches one node (an expression, identifier, statement), ' +
      '$$$NAME any number of nodes (arguments, statements), $_ one node without capturing it. ' +
      'Examples: "console.log($$$ARGS)", "function $NAME($$$PARAMS) { $$$BODY }", ' +
      '"await fetch($URL)". Returns each match as file:line with its code and captures. ' +
      'Languages: TypeScript, TSX, JavaScript, HTML, CSS.',
    inputSchema: {
      type: 'object',
      properties: {
        pattern: {
          type: 'string',
          minLength: 1,
          description:
            'The ast-grep pattern: code in the target language, with $NAME placeholders.',
        },
        language: {
          type: 'string',
          description:
            'typescript (also .tsx files), tsx, javascript, html or css. Default: the ' +
            'languages the pattern is valid code in (html only for a pattern starting with <), ' +
            'each file parsed in the language of its extension.',
        },
        path: {
          type: 'string',
          description: 'Folder or file to search, relative to the root (default: the whole root).',
        },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
    execute: (input, options) => runQuery(settings, input, options),
  };
}

/** Grammars a pattern is tried in when no language is given (HTML also accepts plain text). */
const SCRIPT_GRAMMARS: readonly Lang[] = [Lang.TypeScript, Lang.Tsx, Lang.JavaScript];

/**
 * The grammars to use: those `language` names, or else every grammar the pattern parses in,
 * HTML only for a pattern that starts with a tag (any text parses as HTML).
 */
function grammarsFor(language: string | undefined, pattern: string): readonly Lang[] {
  if (language === undefined) {
    const candidates = [...SCRIPT_GRAMMARS, Lang.Css];
    if (pattern.trimStart().startsWith('<')) candidates.push(Lang.Html);
    return candidates;
  }
  const key = language.trim().toLowerCase();
  const grammars = Object.hasOwn(QUERY_LANGUAGES, key) ? QUERY_LANGUAGES[key] : undefined;
  if (grammars === undefined) throw new UnsupportedLanguageError(language, LANGUAGE_NAMES);
  return grammars;
}

/**
 * The pattern as checked for syntax errors. Metavariables are valid identifiers in JavaScript
 * and HTML; in CSS, `$$$` lists are dropped and `$NAME` becomes a plain name.
 */
function syntaxProbe(lang: Lang, pattern: string): string {
  if (lang !== Lang.Css) return pattern;
  return pattern.replace(/\$\$\$[A-Z0-9_]*/g, '').replace(/\$([A-Z_][A-Z0-9_]*)/g, 'mv_$1');
}

/** Why the pattern cannot be used in `lang`, or undefined when it can. */
function unusableIn(lang: Lang, pattern: string): string | undefined {
  try {
    const error = parse(lang, syntaxProbe(lang, pattern))
      .root()
      .find({ rule: { kind: 'ERROR' } });
    if (error !== null) return `not valid ${grammarName(lang)} code near "${error.text()}"`;
    // ast-grep refuses some patterns that parse, e.g. two statements where one node is needed.
    parse(lang, '').root().findAll(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
  }
}

/** The metavariables a pattern captures (`$_…` ones are anonymous). */
function metavariables(pattern: string): { single: string[]; multiple: string[] } {
  const single = new Set<string>();
  const multiple = new Set<string>();
  for (const match of pattern.matchAll(/(\${1,3})([A-Z][A-Z0-9_]*)/g)) {
    (match[1] === '$$$' ? multiple : single).add(match[2]!);
  }
  return { single: [...single], multiple: [...multiple] };
}

function clipCapture(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > MAX_CAPTURE_CHARS ? `${flat.slice(0, MAX_CAPTURE_CHARS)}…` : flat;
}

function capturesOf(node: SgNode, names: ReturnType<typeof metavariables>): string[] {
  const captures: string[] = [];
  for (const name of names.single) {
    const captured = node.getMatch(name);
    if (captured !== null) captures.push(`$${name} = ${clipCapture(captured.text())}`);
  }
  for (const name of names.multiple) {
    const texts = node
      .getMultipleMatches(name)
      .filter((item) => item.isNamed())
      .map((item) => item.text());
    // Statements read better one after the other; arguments and parameters as a list.
    const statements = texts.some((text) => /[;}]$/.test(text));
    captures.push(`$$$${name} = ${clipCapture(texts.join(statements ? ' ' : ', '))}`);
  }
  return captures;
}

function findAll(root: SgNode, pattern: string, lang: Lang): SgNode[] {
  try {
    return root.findAll(pattern);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new InvalidPatternError(
      pattern,
      `The pattern ${JSON.stringify(pattern)} cannot be used for ${grammarName(lang)}: ${reason}`,
    );
  }
}

async function runQuery(
  settings: Settings,
  raw: unknown,
  options: CodeToolExecuteOptions = {},
): Promise<string> {
  const { signal } = options;
  const input = readInput('query', raw, PARAMETERS);
  const pattern = requiredString('query', input, 'pattern');
  const language = optionalString('query', input, 'language');
  const path = optionalString('query', input, 'path');
  const grammars = grammarsFor(language, pattern);
  const reasons = new Map(grammars.map((lang) => [lang, unusableIn(lang, pattern)]));
  const usable = new Set(grammars.filter((lang) => reasons.get(lang) === undefined));
  if (usable.size === 0) {
    const why = [...reasons].map(([lang, reason]) => `${grammarName(lang)}: ${reason}`);
    throw new InvalidPatternError(
      pattern,
      `The pattern ${JSON.stringify(pattern)} cannot be used (${why.join('; ')}). Write one ` +
        'piece of code with $NAME placeholders, e.g. "console.log($A)".',
    );
  }
  const start = await resolveInRoot(settings, path, 'path');
  if (start.kind === 'file') {
    const grammar = languageOf(start.rel).grammar;
    if (grammar === undefined || !grammars.includes(grammar)) {
      throw new WrongPathKindError(
        start.rel,
        `File ${start.rel} is not ${language ?? 'in a language query can parse'} ` +
          `(query parses ${LANGUAGE_NAMES.join(', ')}).`,
      );
    }
  }
  const report = newWalkReport();
  const files: AsyncIterable<WalkedFile> | WalkedFile[] =
    start.kind === 'file'
      ? [{ rel: start.rel, real: start.real }]
      : walkFiles(settings, start, report, signal);
  const names = metavariables(pattern);
  const matches: Match[] = [];
  const skipped: string[] = [];
  const matchedFiles = new Set<string>();
  let parsed = 0;
  let total = 0;
  for await (const file of files) {
    signal?.throwIfAborted();
    const grammar = languageOf(file.rel).grammar;
    if (grammar === undefined || !usable.has(grammar)) continue;
    let text: string;
    try {
      text = await readWholeText(file.real, file.rel, settings.maxFileBytes);
    } catch (error) {
      if (error instanceof FileTooLargeError || error instanceof BinaryFileError) {
        skipped.push(file.rel);
        continue;
      }
      throw error;
    }
    parsed += 1;
    const found = findAll(parse(grammar, text).root(), pattern, grammar);
    if (found.length === 0) continue;
    matchedFiles.add(file.rel);
    const lines = splitLines(text);
    for (const node of found) {
      total += 1;
      if (matches.length >= settings.maxQueryMatches) continue;
      const range = node.range();
      const first = range.start.line + 1;
      const last = range.end.line + 1;
      const shownLast = Math.min(last, first + MAX_MATCH_LINES - 1);
      const numbered: NumberedLine[] = [];
      for (let line = first; line <= shownLast; line += 1) {
        numbered.push({ number: line, text: lines[line - 1] ?? '' });
      }
      matches.push({
        rel: file.rel,
        lines: numbered,
        more: last - shownLast,
        captures: capturesOf(node, names),
      });
    }
  }
  const languages = [...usable].map(grammarName).join(', ');
  const where = shown(start.rel);
  const header = [
    `Pattern: ${pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern}`,
    total === 0
      ? `No matches in ${parsed} ${languages} files under ${where}.`
      : `Found ${total} match${total === 1 ? '' : 'es'} in ${matchedFiles.size} of ${parsed} ` +
        `${languages} files under ${where}` +
        (total > matches.length ? `; the first ${matches.length} are shown.` : '.'),
  ];
  if (report.startIgnored) header.push(`Note: ${where} is excluded by a .gitignore file.`);
  if (skipped.length > 0) {
    header.push(
      `Note: ${skipped.length} files too large or binary were not parsed ` +
        `(${skipped.slice(0, 5).join(', ')}${skipped.length > 5 ? ', …' : ''}).`,
    );
  }
  if (report.stoppedAtLimit) {
    header.push(`Note: stopped after ${report.filesVisited} files; give a narrower path.`);
  }
  const output = new CappedOutput(settings.maxOutputChars);
  output.add(header.join('\n'));
  let shownCount = 0;
  for (const match of matches) {
    const first = match.lines[0]!.number;
    const last = match.lines.at(-1)!.number + match.more;
    const parts = [
      `\n${match.rel}:${first === last ? first : `${first}-${last}`}`,
      renderCodeBlock(languageOf(match.rel).fence, match.lines, Number.POSITIVE_INFINITY, false)
        .text,
    ];
    if (match.more > 0) {
      const lines = match.more === 1 ? '1 more line' : `${match.more} more lines`;
      parts.push(`… ${lines} (extract ${match.rel}:${first}-${last} to see all)`);
    }
    parts.push(...match.captures);
    if (!output.add(parts.join('\n'))) break;
    shownCount += 1;
  }
  return output.finish(
    `Showing ${shownCount} of ${total} matches. Narrow the query: give a path, a language, or a ` +
      'more specific pattern.',
  );
}
