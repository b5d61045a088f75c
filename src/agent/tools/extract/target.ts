/** What `file_path` asks for: a file, and perhaps a symbol or lines after `#` or `:`. */
export type FileTarget =
  | { readonly path: string; readonly symbol: string }
  | { readonly path: string; readonly line: number; readonly endLine?: number }
  | { readonly path: string };

const SYMBOL_SUFFIX = /^(.+?)#([^#/\\]+)$/;
const LINE_SUFFIX = /^(.+):(\d+)(?:-(\d+))?$/;

/**
 * Splits `src/a.ts#name`, `src/a.ts:42` and `src/a.ts:10-20`. Returns undefined when there is
 * no suffix. (A file whose own name ends like a suffix is handled by the caller, which tries the
 * whole text as a path when the shorter one does not exist.)
 */
export function splitSuffix(filePath: string): FileTarget | undefined {
  const trimmed = filePath.trim();
  const symbol = SYMBOL_SUFFIX.exec(trimmed);
  if (symbol !== null) {
    const name = symbol[2]!.trim();
    return name === '' ? undefined : { path: symbol[1]!, symbol: name };
  }
  const lines = LINE_SUFFIX.exec(trimmed);
  if (lines !== null) {
    const line = Number(lines[2]);
    const endLine = lines[3] === undefined ? undefined : Number(lines[3]);
    return endLine === undefined ? { path: lines[1]!, line } : { path: lines[1]!, line, endLine };
  }
  return undefined;
}
