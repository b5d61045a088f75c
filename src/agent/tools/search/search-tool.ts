import { resolveInRoot, shown } from '../files/confine.ts';
import { scanLines } from '../files/read.ts';
import { isTestFile, TEST_FILE_RULE } from '../files/test-files.ts';
import { newWalkReport, type WalkedFile, type WalkReport, walkFiles } from '../files/walk.ts';
import { optionalBoolean, optionalString, readInput, requiredString } from '../input.ts';
import { languageOf } from '../languages.ts';
import { CappedOutput } from '../output/capped-output.ts';
import { type NumberedLine, renderCodeBlock } from '../output/code-block.ts';
import type { Settings } from '../settings.ts';
import type { CodeTool, CodeToolExecuteOptions } from '../types.ts';
import { describeTerms, parseQuery, type SearchTerms } from './terms.ts';

/** Matching line numbers remembered per file; more are counted but not shown. */
const MAX_REMEMBERED_LINES = 10_000;

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
  const { signal } = options;
  const input = readInput('search', raw, PARAMETERS);
  const query = requiredString('search', input, 'query');
  const path = optionalString('search', input, 'path');
  const allowTests = optionalBoolean('search', input, 'allow_tests') ?? false;
  const terms = parseQuery(query);
  const start = await resolveInRoot(settings, path, 'path');
  signal?.throwIfAborted();

  const stats: SearchStats = { searched: 0, testsSkipped: 0, binarySkipped: 0, truncated: [] };
  const report = newWalkReport();
  const files: AsyncIterable<WalkedFile> | WalkedFile[] =
    start.kind === 'file'
      ? [{ rel: start.rel, real: start.real }]
      : walkFiles(settings, start, report, signal);
  const hits: FileHits[] = [];
  for await (const file of files) {
    signal?.throwIfAborted();
    // A file named explicitly is searched even if it is a test file.
    if (start.kind === 'directory' && !allowTests && isTestFile(file.rel)) {
      stats.testsSkipped += 1;
      continue;
    }
    const found = await scanFile(settings, file, terms, stats, signal);
    if (found !== undefined) hits.push(found);
  }
  hits.sort(
    (a, b) =>
      b.distinctTerms - a.distinctTerms ||
      b.count - a.count ||
      (a.file.rel < b.file.rel ? -1 : a.file.rel > b.file.rel ? 1 : 0),
  );
  return render(settings, query, terms, shown(start.rel), hits, stats, report, signal);
}

async function scanFile(
  settings: Settings,
  file: WalkedFile,
  terms: SearchTerms,
  stats: SearchStats,
  signal: AbortSignal | undefined,
): Promise<FileHits | undefined> {
  const found = new Set<string>();
  const lines: number[] = [];
  let count = 0;
  let excluded = false;
  const scan = await scanLines(
    file.real,
    settings.maxFileBytes,
    (text, line) => {
      const lower = text.toLowerCase();
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
      if (hit) {
        count += 1;
        if (lines.length < MAX_REMEMBERED_LINES) lines.push(line);
      }
      return true;
    },
    signal,
  );
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
  signal: AbortSignal | undefined,
): Promise<Map<number, string>> {
  const texts = new Map<number, string>();
  const last = ranges.at(-1)?.end ?? 0;
  let index = 0;
  await scanLines(
    file.real,
    settings.maxFileBytes,
    (text, line) => {
      while (index < ranges.length && ranges[index]!.end < line) index += 1;
      const range = ranges[index];
      if (range !== undefined && range.start <= line) texts.set(line, text);
      return line < last;
    },
    signal,
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
  signal: AbortSignal | undefined,
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
    signal?.throwIfAborted();
    if (output.cut || output.room() < 200) {
      output.markCut();
      break;
    }
    const ranges = rangesOf(hit.lines, settings.contextLines);
    const visible = ranges.slice(0, settings.maxRangesPerFile);
    const texts = await linesOf(settings, hit.file, visible, signal);
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
