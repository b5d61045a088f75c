import { CodeToolError, PathOutsideRootError } from '../errors.ts';
import { resolveInRoot, shown } from '../files/confine.ts';
import { isGone } from '../files/open-in-root.ts';
import { type LineHandler, scanLines } from '../files/read.ts';
import { isTestFile, TEST_FILE_RULE } from '../files/test-files.ts';
import { newWalkReport, type WalkedFile, type WalkReport, walkFiles } from '../files/walk.ts';
import { optionalBoolean, optionalString, readInput, requiredString } from '../input.ts';
import { languageOf } from '../languages.ts';
import { CappedOutput } from '../output/capped-output.ts';
import { type NumberedLine, renderCodeBlock } from '../output/code-block.ts';
import { sortPaced } from '../paced-sort.ts';
import { Pacer } from '../pacer.ts';
import type { Settings } from '../settings.ts';
import type { CodeTool, CodeToolExecuteOptions } from '../types.ts';
import { describeTerms, parseQuery, type SearchTerms } from './terms.ts';

/** Matching line numbers remembered per file; more are counted but not shown. */
const MAX_REMEMBERED_LINES = 10_000;

/**
 * Characters times terms above which one line is matched term by term with turns for the event
 * loop in between (a long minified line and a query of many terms).
 */
const HEAVY_LINE_WORK = 1_000_000;

/** A file that matched, from the first pass. */
interface FileHits {
  readonly file: WalkedFile;
  readonly distinctTerms: number;
  readonly lines: readonly number[];
  readonly count: number;
}

interface SearchStats {
  searched: number;
  testsSkipped: number;
  binarySkipped: number;
  readonly truncated: string[];
}

/** Lines to show, inclusive. */
interface Range {
  start: number;
  end: number;
}

const PARAMETERS = ['query', 'path', 'allow_tests'] as const;

export function searchTool(settings: Settings): CodeTool {
  return {
    name: 'search',
    description:
      'Searches the code for keywords and returns the matching files with line numbers and a few ' +
      'lines of context around each match. Terms are separated by spaces and match ' +
      'case-insensitively, also inside longer words (login finds loginUser). A file matches when ' +
      'it contains any term; files containing more of the terms come first. Put a phrase in ' +
      'double quotes, prefix a term with + to require it or with - to exclude files containing ' +
      'it. Files listed in .gitignore and binary files are skipped, and test files too unless ' +
      'allow_tests is true.',
    inputSchema: {
      type: 'object',
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          description:
            'Keywords to look for, e.g. "login user session", "\\"verify token\\"" or ' +
            '"auth +jwt -mock".',
        },
        path: {
          type: 'string',
          description:
            'Folder or file to search, relative to the root (default: the whole root), ' +
            'e.g. "src/server".',
        },
        allow_tests: {
          type: 'boolean',
          default: false,
          description: `Also search test files (default false); ${TEST_FILE_RULE}.`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    execute: (input, options) => runSearch(settings, input, options),
  };
}

async function runSearch(
  settings: Settings,
  raw: unknown,
  options: CodeToolExecuteOptions = {},
): Promise<string> {
  const pacer = new Pacer(options.signal);
  const input = readInput('search', raw, PARAMETERS);
  const query = requiredString('search', input, 'query');
  const path = optionalString('search', input, 'path');
  const allowTests = optionalBoolean('search', input, 'allow_tests') ?? false;
  const terms = parseQuery(query);
  const start = await resolveInRoot(settings, path, 'path');
  pacer.check();

  const stats: SearchStats = { searched: 0, testsSkipped: 0, binarySkipped: 0, truncated: [] };
  const report = newWalkReport();
  const files: AsyncIterable<WalkedFile> | WalkedFile[] =
    start.kind === 'file'
      ? [{ rel: start.rel, real: start.real }]
      : walkFiles(settings, start, report, pacer);
  const hits: FileHits[] = [];
  for await (const file of files) {
    await pacer.step();
    // A file named explicitly is searched even if it is a test file.
    if (start.kind === 'directory' && !allowTests && isTestFile(file.rel)) {
      stats.testsSkipped += 1;
      continue;
    }
    let found: FileHits | undefined;
    try {
      found = await scanFile(settings, file, terms, stats, pacer);
    } catch (error) {
      // A file of the walk that changed meanwhile (into a link out of the root, or removed).
      if (start.kind === 'file' || !(error instanceof CodeToolError || isGone(error))) {
        throw error;
      }
      if (error instanceof PathOutsideRootError) report.linksOutside += 1;
      continue;
    }
    if (found !== undefined) hits.push(found);
  }
  const ranked = await sortPaced(
    hits,
    (a, b) =>
      b.distinctTerms - a.distinctTerms ||
      b.count - a.count ||
      (a.file.rel < b.file.rel ? -1 : a.file.rel > b.file.rel ? 1 : 0),
    pacer,
  );
  return render(settings, query, terms, shown(start.rel), ranked, stats, report, pacer);
}

/** Whether `lower` contains one of `terms`, giving the event loop turns between terms. */
async function containsAnyPaced(
  lower: string,
  terms: readonly string[],
  pacer: Pacer,
): Promise<boolean> {
  for (const term of terms) {
    if (lower.includes(term)) return true;
    if (pacer.due()) await pacer.pause();
  }
  return false;
}

async function scanFile(
  settings: Settings,
  file: WalkedFile,
  terms: SearchTerms,
  stats: SearchStats,
  pacer: Pacer,
): Promise<FileHits | undefined> {
  const found = new Set<string>();
  const lines: number[] = [];
  let count = 0;
  let excluded = false;
  const termCount = terms.positive.length + terms.excluded.length;
  const record = (line: number, hit: boolean): boolean => {
    if (hit) {
      count += 1;
      if (lines.length < MAX_REMEMBERED_LINES) lines.push(line);
    }
    return true;
  };
  const quick = (lower: string, line: number): boolean => {
    if (terms.excluded.some((term) => lower.includes(term))) {
      excluded = true;
      return false;
    }
    let hit = false;
    for (const term of terms.positive) {
      if (lower.includes(term)) {
        found.add(term);
        hit = true;
      }
    }
    return record(line, hit);
  };
  const paced = async (lower: string, line: number): Promise<boolean> => {
    if (await containsAnyPaced(lower, terms.excluded, pacer)) {
      excluded = true;
      return false;
    }
    let hit = false;
    for (const term of terms.positive) {
      if (lower.includes(term)) {
        found.add(term);
        hit = true;
      }
      if (pacer.due()) await pacer.pause();
    }
    return record(line, hit);
  };
  const onLine: LineHandler = (text, line) => {
    const lower = text.toLowerCase();
    return lower.length * termCount > HEAVY_LINE_WORK ? paced(lower, line) : quick(lower, line);
  };
  const scan = await scanLines(settings, file, onLine, pacer);
  if (scan.binary) {
    stats.binarySkipped += 1;
    return undefined;
  }
  stats.searched += 1;
  if (scan.truncated) stats.truncated.push(file.rel);
  if (excluded || count === 0 || !terms.required.every((term) => found.has(term))) return undefined;
  return { file, distinctTerms: found.size, lines, count };
}

/** Match lines widened by the context, merged when they overlap or touch. */
function rangesOf(lines: readonly number[], context: number): Range[] {
  const ranges: Range[] = [];
  for (const line of lines) {
    const start = Math.max(1, line - context);
    const last = ranges.at(-1);
    if (last !== undefined && start <= last.end + 1) last.end = line + context;
    else ranges.push({ start, end: line + context });
  }
  return ranges;
}

/** The text of the lines in `ranges`, read again from the file (only up to the last range). */
async function linesOf(
  settings: Settings,
  file: WalkedFile,
  ranges: readonly Range[],
  pacer: Pacer,
): Promise<Map<number, string>> {
  const texts = new Map<number, string>();
  const last = ranges.at(-1)?.end ?? 0;
  let index = 0;
  await scanLines(
    settings,
    file,
    (text, line) => {
      while (index < ranges.length && ranges[index]!.end < line) index += 1;
      const range = ranges[index];
      if (range !== undefined && range.start <= line) texts.set(line, text);
      return line < last;
    },
    pacer,
  );
  return texts;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

function clipForHeader(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

async function render(
  settings: Settings,
  query: string,
  terms: SearchTerms,
  where: string,
  hits: readonly FileHits[],
  stats: SearchStats,
  report: WalkReport,
  pacer: Pacer,
): Promise<string> {
  const output = new CappedOutput(settings.maxOutputChars);
  const totalLines = hits.reduce((sum, hit) => sum + hit.count, 0);
  const header = [
    `Search: ${clipForHeader(query)}`,
    `Looking for: ${clipForHeader(describeTerms(terms))}`,
    hits.length === 0
      ? `No matches under ${where} (${plural(stats.searched, 'file')} searched).`
      : `Found ${plural(totalLines, 'matching line')} in ${plural(hits.length, 'file')} under ` +
        `${where} (${plural(stats.searched, 'file')} searched). Lines marked > contain a match.`,
    ...notes(settings, stats, report, where),
  ];
  if (hits.length === 0) {
    header.push(
      'Try fewer or shorter terms (terms match inside words), another path, or list_files.',
    );
  }
  output.add(header.join('\n'));

  let filesShown = 0;
  for (const hit of hits) {
    await pacer.step();
    if (output.cut || output.room() < 200) {
      output.markCut();
      break;
    }
    const ranges = rangesOf(hit.lines, settings.contextLines);
    const visible = ranges.slice(0, settings.maxRangesPerFile);
    let texts: Map<number, string>;
    try {
      texts = await linesOf(settings, hit.file, visible, pacer);
    } catch (error) {
      // The file changed since it was searched (into a link out of the root, or removed).
      if (error instanceof CodeToolError || isGone(error)) continue;
      throw error;
    }
    const matchSet = new Set(hit.lines);
    const fence = languageOf(hit.file.rel).fence;
    const parts = [`\nFile: ${hit.file.rel} (${plural(hit.count, 'matching line')})`];
    for (const range of visible) {
      const lines: NumberedLine[] = [];
      for (let line = range.start; line <= range.end; line += 1) {
        const text = texts.get(line);
        if (text === undefined) break; // past the end of the file
        lines.push({ number: line, text, marked: matchSet.has(line) });
      }
      if (lines.length === 0) continue;
      const heading = `Lines: ${lines[0]!.number}-${lines.at(-1)!.number}`;
      const block = renderCodeBlock(fence, lines, Number.POSITIVE_INFINITY, true);
      parts.push(`${heading}\n${block.text}`);
    }
    if (ranges.length > visible.length) {
      parts.push(
        `… ${plural(ranges.length - visible.length, 'more matching range')} in this file ` +
          `(from line ${ranges[visible.length]!.start}); search with path "${hit.file.rel}" ` +
          'and more specific terms, or extract from that line.',
      );
    }
    const joined = parts.join('\n');
    if (joined.length > output.room()) {
      // Even one file's matches are too long: show the first lines that fit.
      if (filesShown === 0) addPartial(output, joined, fence);
      output.markCut();
      break;
    }
    output.add(joined);
    filesShown += 1;
  }
  return output.finish(
    `Showing ${filesShown} of ${plural(hits.length, 'file')} with matches. Narrow the search: ` +
      'give a path (a folder or file), add a term with + to require it, or use -term to ' +
      'exclude files.',
  );
}

/** The head of one file's blocks, cut at a line, when the whole would not fit. */
function addPartial(output: CappedOutput, joined: string, fence: string): void {
  const room = output.room();
  const head = joined.slice(0, Math.max(0, room - 4 - fence.length));
  const cut = head.lastIndexOf('\n');
  if (cut <= 0) return;
  const text = head.slice(0, cut);
  // Close the fence that the cut left open.
  const fences = text.split('\n').filter((line) => line.startsWith('```')).length;
  output.add(fences % 2 === 1 ? `${text}\n\`\`\`` : text);
}

function notes(
  settings: Settings,
  stats: SearchStats,
  report: WalkReport,
  where: string,
): string[] {
  const lines: string[] = [];
  if (report.startIgnored) {
    lines.push(`Note: ${where} is excluded by a .gitignore file, so it was not searched.`);
  }
  if (stats.testsSkipped > 0) {
    lines.push(
      `Note: ${plural(stats.testsSkipped, 'test file')} skipped; set allow_tests to true to ` +
        'search them too.',
    );
  }
  if (stats.binarySkipped > 0) {
    lines.push(`Note: ${plural(stats.binarySkipped, 'binary file')} skipped.`);
  }
  if (stats.truncated.length > 0) {
    const named = stats.truncated.slice(0, 5).join(', ');
    lines.push(
      `Note: only the first ${settings.maxFileBytes} bytes of ${plural(stats.truncated.length, 'large file')} ` +
        `were searched (${named}${stats.truncated.length > 5 ? ', …' : ''}).`,
    );
  }
  if (report.stoppedAtLimit) {
    lines.push(
      `Note: the search stopped after ${plural(report.filesVisited, 'file')}; ` +
        'give a narrower path to search the rest.',
    );
  }
  if (report.linksOutside > 0) {
    lines.push(
      `Note: ${plural(report.linksOutside, 'symlink')} leading outside the root ` +
        '(or nowhere) skipped.',
    );
  }
  return lines;
}
