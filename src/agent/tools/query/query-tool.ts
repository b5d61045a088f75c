import { Lang, parse } from '../ast-grep.ts';
import {
  BinaryFileError,
  CodeToolError,
  FileTooLargeError,
  InvalidPatternError,
  InvalidToolInputError,
  PathOutsideRootError,
  UnsupportedLanguageError,
  WrongPathKindError,
} from '../errors.ts';
import { resolveInRoot, shown } from '../files/confine.ts';
import { isGone } from '../files/open-in-root.ts';
import { readWholeText } from '../files/read.ts';
import { splitLines } from '../files/split-lines.ts';
import { newWalkReport, type WalkedFile, walkFiles } from '../files/walk.ts';
import { optionalString, readInput, requiredString } from '../input.ts';
import { grammarName, languageOf, QUERY_LANGUAGES } from '../languages.ts';
import { CappedOutput } from '../output/capped-output.ts';
import { type NumberedLine, renderCodeBlock } from '../output/code-block.ts';
import { Pacer } from '../pacer.ts';
import type { Settings } from '../settings.ts';
import { runOnSyntaxWorker, SyntaxJobError } from '../syntax/syntax-client.ts';
import type { CodeTool, CodeToolExecuteOptions } from '../types.ts';

/** Lines of one match shown; a match spanning a whole class is cut here. */
const MAX_MATCH_LINES = 12;
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

/** The matches of `pattern` in one file, parsed on the syntax worker. */
async function matchesIn(
  grammar: Lang,
  text: string,
  pattern: string,
  maxShown: number,
  pacer: Pacer,
) {
  try {
    return await runOnSyntaxWorker({ kind: 'matches', grammar, text, pattern, maxShown }, pacer);
  } catch (error) {
    if (!(error instanceof SyntaxJobError)) throw error;
    throw new InvalidPatternError(
      pattern,
      `The pattern ${JSON.stringify(pattern)} cannot be used for ${grammarName(grammar)}: ` +
        (error.message.split('\n')[0] ?? error.message),
      { cause: error },
    );
  }
}

async function runQuery(
  settings: Settings,
  raw: unknown,
  options: CodeToolExecuteOptions = {},
): Promise<string> {
  const pacer = new Pacer(options.signal);
  const input = readInput('query', raw, PARAMETERS);
  const pattern = requiredString('query', input, 'pattern');
  const language = optionalString('query', input, 'language');
  const path = optionalString('query', input, 'path');
  if (pattern.length > settings.maxPatternChars) {
    throw new InvalidToolInputError(
      'pattern',
      `pattern is ${pattern.length} characters long; a query pattern may have at most ` +
        `${settings.maxPatternChars}. Write the smallest piece of code that identifies what you ` +
        'look for, with $NAME placeholders.',
    );
  }
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
      : walkFiles(settings, start, report, pacer);
  const matches: Match[] = [];
  const skipped: string[] = [];
  const matchedFiles = new Set<string>();
  let parsed = 0;
  let total = 0;
  for await (const file of files) {
    await pacer.step();
    const grammar = languageOf(file.rel).grammar;
    if (grammar === undefined || !usable.has(grammar)) continue;
    let text: string;
    try {
      text = await readWholeText(settings, file);
    } catch (error) {
      if (error instanceof FileTooLargeError || error instanceof BinaryFileError) {
        skipped.push(file.rel);
        continue;
      }
      // A file of the walk that changed meanwhile (into a link out of the root, or removed).
      if (start.kind === 'directory' && (error instanceof CodeToolError || isGone(error))) {
        if (error instanceof PathOutsideRootError) report.linksOutside += 1;
        continue;
      }
      throw error;
    }
    parsed += 1;
    const maxShown = settings.maxQueryMatches - matches.length;
    const found = await matchesIn(grammar, text, pattern, maxShown, pacer);
    if (found.total === 0) continue;
    total += found.total;
    matchedFiles.add(file.rel);
    const lines = found.shown.length > 0 ? splitLines(text) : [];
    for (const match of found.shown) {
      const shownLast = Math.min(match.last, match.first + MAX_MATCH_LINES - 1);
      const numbered: NumberedLine[] = [];
      for (let line = match.first; line <= shownLast; line += 1) {
        numbered.push({ number: line, text: lines[line - 1] ?? '' });
      }
      matches.push({
        rel: file.rel,
        lines: numbered,
        more: match.last - shownLast,
        captures: match.captures,
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
