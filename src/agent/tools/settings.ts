import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidRootError } from './errors.ts';
import type { CodeToolsOptions } from './types.ts';

/** The options with defaults applied and the root resolved: what every tool works from. */
export interface Settings {
  /** The root as the caller named it, made absolute (absolute inputs may use this spelling). */
  readonly givenRoot: string;
  /** The root with every symlink resolved: the boundary every real path is checked against. */
  readonly realRoot: string;
  readonly maxOutputChars: number;
  readonly maxFileBytes: number;
  readonly contextLines: number;
  readonly maxRangesPerFile: number;
  readonly maxQueryMatches: number;
  readonly maxListedFiles: number;
  readonly maxFilesWalked: number;
  readonly maxGlobChars: number;
  readonly maxGlobBraceDepth: number;
  readonly maxPatternChars: number;
}

export const DEFAULTS = {
  maxOutputChars: 20_000,
  maxFileBytes: 1_000_000,
  contextLines: 2,
  maxRangesPerFile: 10,
  maxQueryMatches: 50,
  maxListedFiles: 1_000,
  maxFilesWalked: 50_000,
  maxGlobChars: 500,
  maxGlobBraceDepth: 10,
  maxPatternChars: 2_000,
} as const;

/** Below this, a cut notice and one useful block no longer fit. */
const MIN_OUTPUT_CHARS = 1_000;

function integerOption(
  name: keyof typeof DEFAULTS,
  value: number | undefined,
  minimum: number,
): number {
  if (value === undefined) return DEFAULTS[name];
  if (!Number.isInteger(value) || value < minimum) {
    throw new RangeError(`createCodeTools: ${name} must be an integer >= ${minimum}, got ${value}`);
  }
  return value;
}

export function resolveSettings(options: CodeToolsOptions): Settings {
  if (typeof options.root !== 'string' || options.root === '') {
    throw new InvalidRootError('createCodeTools: root must be a non-empty folder path');
  }
  const givenRoot = resolve(options.root);
  let realRoot: string;
  try {
    realRoot = realpathSync(givenRoot);
  } catch (error) {
    throw new InvalidRootError(
      `createCodeTools: root ${JSON.stringify(givenRoot)} does not exist`,
      { cause: error },
    );
  }
  if (!statSync(realRoot).isDirectory()) {
    throw new InvalidRootError(
      `createCodeTools: root ${JSON.stringify(givenRoot)} is not a folder`,
    );
  }
  return {
    givenRoot,
    realRoot,
    maxOutputChars: integerOption('maxOutputChars', options.maxOutputChars, MIN_OUTPUT_CHARS),
    maxFileBytes: integerOption('maxFileBytes', options.maxFileBytes, 1),
    contextLines: integerOption('contextLines', options.contextLines, 0),
    maxRangesPerFile: integerOption('maxRangesPerFile', options.maxRangesPerFile, 1),
    maxQueryMatches: integerOption('maxQueryMatches', options.maxQueryMatches, 1),
    maxListedFiles: integerOption('maxListedFiles', options.maxListedFiles, 1),
    maxFilesWalked: integerOption('maxFilesWalked', options.maxFilesWalked, 1),
    maxGlobChars: integerOption('maxGlobChars', options.maxGlobChars, 1),
    maxGlobBraceDepth: integerOption('maxGlobBraceDepth', options.maxGlobBraceDepth, 0),
    maxPatternChars: integerOption('maxPatternChars', options.maxPatternChars, 1),
  };
}
