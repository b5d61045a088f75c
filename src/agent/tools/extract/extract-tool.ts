import {
  BinaryFileError,
  InvalidToolInputError,
  PathNotFoundError,
  SymbolNotFoundError,
  WrongPathKindError,
} from '../errors.ts';
import { type RootPath, resolveInRoot } from '../files/confine.ts';
import { readWholeText, scanLines } from '../files/read.ts';
import { splitLines } from '../files/split-lines.ts';
import { optionalLineNumber, readInput, requiredString } from '../input.ts';
import { languageOf } from '../languages.ts';
import { CappedOutput } from '../output/capped-output.ts';
import { type NumberedLine, renderCodeBlock } from '../output/code-block.ts';
import { Pacer } from '../pacer.ts';
import type { Settings } from '../settings.ts';
import { runOnSyntaxWorker } from '../syntax/syntax-client.ts';
import type { CodeTool, CodeToolExecuteOptions } from '../types.ts';
import type { Definition } from './outline.ts';
import { type FileTarget, splitSuffix } from './target.ts';

/** Lines shown either side of a line that no definition encloses. */
const WINDOW_LINES = 10;

const PARAMETERS = ['file_path', 'line', 'end_line'] as const;

export function extractTool(settings: Settings): CodeTool {
  return {
    name: 'extract',
    description:
      'Reads code from a file, with line numbers: a whole definition (function, class, method, ' +
      'interface, …) by name, the definition enclosing a line, or a range of lines. Definitions ' +
      'are found by parsing TypeScript, TSX, JavaScript, HTML (elements by id) and CSS (rules ' +
      'by selector); in other languages (Python, Go, Rust, …) by indentation.',
    inputSchema: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string',
          minLength: 1,
          description:
            'File to read, relative to the root. Add #name for a definition ' +
            '("src/auth.ts#loginUser", "src/auth.ts#AuthService.login"), :line for the ' +
            'definition enclosing that line ("src/auth.ts:42"), or :start-end for a range of ' +
            'lines ("src/auth.ts:10-30"). Without a suffix or line, the whole file.',
        },
        line: {
          type: 'integer',
          minimum: 1,
          description:
            'Line number (from 1). Alone: the definition enclosing this line. With end_line: ' +
            'the first line of the range.',
        },
        end_line: {
          type: 'integer',
          minimum: 1,
          description: 'Last line of the range to read (needs line).',
        },
      },
      required: ['file_path'],
      additionalProperties: false,
    },
    execute: (input, options) => runExtract(settings, input, options),
  };
}

/** Resolves the file, trying the text without its suffix first. */
async function resolveTarget(
  settings: Settings,
  filePath: string,
): Promise<{ file: RootPath; target: FileTarget }> {
  const suffixed = splitSuffix(filePath);
  if (suffixed !== undefined) {
    try {
      return { file: await resolveInRoot(settings, suffixed.path, 'file_path'), target: suffixed };
    } catch (error) {
      if (!(error instanceof PathNotFoundError)) throw error;
      try {
        const file = await resolveInRoot(settings, filePath, 'file_path');
        return { file, target: { path: filePath } };
      } catch {
        throw error;
      }
    }
  }
  return { file: await resolveInRoot(settings, filePath, 'file_path'), target: { path: filePath } };
}

async function runExtract(
  settings: Settings,
  raw: unknown,
  options: CodeToolExecuteOptions = {},
): Promise<string> {
  const pacer = new Pacer(options.signal);
  const input = readInput('extract', raw, PARAMETERS);
  const filePath = requiredString('extract', input, 'file_path');
  const line = optionalLineNumber('extract', input, 'line');
  const endLine = optionalLineNumber('extract', input, 'end_line');
  const resolved = await resolveTarget(settings, filePath);
  const file = resolved.file;
  let target = resolved.target;
  if (file.kind !== 'file') {
    throw new WrongPathKindError(
      filePath,
      `Path ${JSON.stringify(filePath)} is a folder; extract reads files (use list_files to ` +
        'see the files in a folder).',
    );
  }
  if (line !== undefined || endLine !== undefined) {
    if ('symbol' in target || 'line' in target) {
      throw new InvalidToolInputError(
        'line',
        'Give a symbol or line in file_path or the line and end_line parameters, not both.',
      );
    }
    if (line === undefined) {
      throw new InvalidToolInputError('end_line', 'end_line needs line (the first line to read).');
    }
    target = endLine === undefined ? { path: filePath, line } : { path: filePath, line, endLine };
  }
  pacer.check();
  if ('symbol' in target) return extractSymbol(settings, file, target.symbol, pacer);
  if ('line' in target) {
    if (target.endLine === undefined) return extractEnclosing(settings, file, target.line, pacer);
    if (target.endLine < target.line) {
      throw new InvalidToolInputError(
        'end_line',
        `end_line (${target.endLine}) is before line (${target.line}).`,
      );
    }
    return extractRange(settings, file, target.line, target.endLine, pacer);
  }
  return extractRange(settings, file, 1, Number.POSITIVE_INFINITY, pacer);
}

/**
 * The definitions named `symbol`, or the names there are: found on the syntax worker (see
 * `file-outline.ts`), which sends back only the answer, not the file's whole outline.
 */
function symbolIn(rel: string, text: string, symbol: string, pacer: Pacer) {
  const grammar = languageOf(rel).grammar;
  return runOnSyntaxWorker({ kind: 'symbol', grammar, text, symbol }, pacer);
}

/** The definition that encloses `line` (see `enclosing`), found on the syntax worker. */
function enclosingIn(rel: string, text: string, line: number, pacer: Pacer) {
  const grammar = languageOf(rel).grammar;
  return runOnSyntaxWorker({ kind: 'enclosing', grammar, text, line }, pacer);
}

function numbered(lines: readonly string[], start: number, end: number, mark?: number) {
  const result: NumberedLine[] = [];
  for (let line = start; line <= Math.min(end, lines.length); line += 1) {
    result.push({ number: line, text: lines[line - 1]!, marked: line === mark });
  }
  return result;
}

/** Where a cut block left off: the next line to read and the last line of the block. */
interface Remainder {
  readonly next: number;
  readonly end: number;
}

/**
 * Adds `Lines: a-b (label)` and the block. A block too long is shown in part; returns what was
 * left out, if anything.
 */
function addBlock(
  output: CappedOutput,
  rel: string,
  lines: readonly NumberedLine[],
  label: string,
  markers: boolean,
): Remainder | undefined {
  const first = lines[0];
  const last = lines.at(-1);
  if (first === undefined || last === undefined) return undefined;
  if (output.cut) return { next: first.number, end: last.number };
  const heading = `Lines: ${first.number}-${last.number}${label}`;
  const room = output.room() - heading.length - 1;
  const block = renderCodeBlock(languageOf(rel).fence, lines, room, markers);
  if (block.shown === 0) {
    output.markCut();
    return { next: first.number, end: last.number };
  }
  output.add(`${heading}\n${block.text}`);
  if (block.shown === lines.length) return undefined;
  output.markCut();
  return { next: lines[block.shown]!.number, end: last.number };
}

function readOnNotice(rel: string, left: Remainder | undefined): string {
  if (left === undefined) return `Read a smaller part of ${rel} with line and end_line.`;
  return (
    `Not shown from line ${left.next}: read on with file_path "${rel}", line ${left.next} and ` +
    `end_line ${left.end} (or a smaller range).`
  );
}

async function extractSymbol(
  settings: Settings,
  file: RootPath,
  symbol: string,
  pacer: Pacer,
): Promise<string> {
  const text = await readWholeText(settings, file);
  const lines = splitLines(text);
  const { found, names } = await symbolIn(file.rel, text, symbol, pacer);
  if (found.length === 0) throw new SymbolNotFoundError(file.rel, symbol, names);
  const output = new CappedOutput(settings.maxOutputChars);
  output.add(
    found.length === 1
      ? `File: ${file.rel}`
      : `File: ${file.rel} (${found.length} definitions match ${JSON.stringify(symbol)})`,
  );
  let left: Remainder | undefined;
  for (const definition of found) {
    const block = numbered(lines, definition.start, definition.end);
    const label = ` (${definition.kind} ${definition.qualified})`;
    left ??= addBlock(output, file.rel, block, label, false);
  }
  return output.finish(readOnNotice(file.rel, left));
}

function describe(definition: Definition): string {
  return definition.qualified === ''
    ? definition.kind
    : `${definition.kind} ${definition.qualified}`;
}

async function extractEnclosing(
  settings: Settings,
  file: RootPath,
  line: number,
  pacer: Pacer,
): Promise<string> {
  const text = await readWholeText(settings, file);
  const lines = splitLines(text);
  if (line > lines.length) {
    throw new InvalidToolInputError(
      'line',
      `Line ${line} is past the end of ${file.rel}, which has ${lines.length} lines.`,
    );
  }
  const definition = await enclosingIn(file.rel, text, line, pacer);
  const output = new CappedOutput(settings.maxOutputChars);
  output.add(`File: ${file.rel}`);
  let left: Remainder | undefined;
  if (definition === undefined) {
    const start = Math.max(1, line - WINDOW_LINES);
    const block = numbered(lines, start, line + WINDOW_LINES, line);
    left = addBlock(output, file.rel, block, ` (no definition encloses line ${line})`, true);
  } else {
    const block = numbered(lines, definition.start, definition.end, line);
    const label = ` (${describe(definition)}, enclosing line ${line})`;
    left = addBlock(output, file.rel, block, label, true);
  }
  return output.finish(readOnNotice(file.rel, left));
}

async function extractRange(
  settings: Settings,
  file: RootPath,
  first: number,
  last: number,
  pacer: Pacer,
): Promise<string> {
  const lines: NumberedLine[] = [];
  let collected = 0;
  let total = 0;
  const scan = await scanLines(
    settings,
    file,
    (text, line) => {
      total = line;
      // Lines beyond what could ever be shown are counted, not kept.
      if (line >= first && line <= last && collected <= settings.maxOutputChars) {
        lines.push({ number: line, text });
        collected += text.length + 8;
      }
      return line < last;
    },
    pacer,
  );
  if (scan.binary) throw new BinaryFileError(file.rel);
  const whole = first === 1 && last === Number.POSITIVE_INFINITY;
  if (!whole && first > total) {
    throw new InvalidToolInputError(
      'line',
      `Line ${first} is past the end of ${file.rel}, which has ${total} lines.`,
    );
  }
  const output = new CappedOutput(settings.maxOutputChars);
  const partial = scan.truncated ? `, only the first ${settings.maxFileBytes} bytes read` : '';
  output.add(`File: ${file.rel}${whole ? ` (${total} lines${partial})` : ''}`);
  if (lines.length === 0) {
    output.add('(empty file)');
    return output.finish('');
  }
  const endsEarly = !whole && last > total && !scan.truncated;
  const label = endsEarly ? ` (the file ends at line ${total})` : '';
  const fileLast = Math.min(last, total);
  let left = addBlock(output, file.rel, lines, label, false);
  const lastKept = lines.at(-1)!.number;
  if (left !== undefined) {
    left = { next: left.next, end: fileLast };
  } else if (lastKept < fileLast) {
    // Lines were counted but not kept: they could not have fitted anyway.
    output.markCut();
    left = { next: lastKept + 1, end: fileLast };
  }
  if (left === undefined && scan.truncated && !scan.stopped) {
    output.add(
      `[The file goes on after line ${total}, past the ${settings.maxFileBytes} bytes read at ` +
        'once; read on with line and end_line.]',
    );
  }
  return output.finish(readOnNotice(file.rel, left));
}
