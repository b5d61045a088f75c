/**
 * Probe's code tools over a root folder — search, extract, query, list_files — ready for the
 * agent loop. They are opt-in: pass the ones you want as tools.
 *
 * Every path a tool is given is confined to the root: `..` that climbs out, absolute paths
 * elsewhere and symlinks (at the end or in the middle of a path) that lead out are refused with
 * a `PathOutsideRootError`; files and folders are checked again once opened, so one swapped for
 * such a symlink during a call is refused too. Output is plain text with paths relative to the
 * root and line numbers, capped at `maxOutputChars`, and says when and how to narrow a request
 * that was cut. No call holds the event loop for long, and an aborted `signal` stops the work.
 */
import { extractTool } from './extract/extract-tool.ts';
import { listFilesTool } from './list-files/list-files-tool.ts';
import { queryTool } from './query/query-tool.ts';
import { searchTool } from './search/search-tool.ts';
import { resolveSettings } from './settings.ts';
import type { CodeTools, CodeToolsOptions } from './types.ts';

export {
  BinaryFileError,
  CodeToolError,
  FileTooLargeError,
  InvalidPatternError,
  InvalidRootError,
  InvalidToolInputError,
  PathNotFoundError,
  PathOutsideRootError,
  SymbolNotFoundError,
  UnsupportedLanguageError,
  WrongPathKindError,
} from './errors.ts';
export { isTestFile } from './files/test-files.ts';
export { DEFAULTS as CODE_TOOLS_DEFAULTS } from './settings.ts';
export type {
  CodeTool,
  CodeToolExecuteOptions,
  CodeToolInputSchema,
  CodeToolName,
  CodeTools,
  CodeToolsOptions,
  ExtractInput,
  ListFilesInput,
  QueryInput,
  SearchInput,
} from './types.ts';

/**
 * Creates the four tools for `options.root`. Throws `InvalidRootError` when the root is not an
 * existing folder, and a `RangeError` for a limit that is not a usable integer.
 */
export function createCodeTools(options: CodeToolsOptions): CodeTools {
  const settings = resolveSettings(options);
  return {
    search: searchTool(settings),
    extract: extractTool(settings),
    query: queryTool(settings),
    list_files: listFilesTool(settings),
  };
}
