import type { Lang } from '../ast-grep.ts';
import { splitLines } from '../files/split-lines.ts';
import { astOutline } from './ast-outline.ts';
import { indentOutline } from './indent-outline.ts';
import type { Definition } from './outline.ts';

/**
 * The outline of a file: structural in `grammar`, or by indentation when there is none. Runs on
 * the syntax worker (see `syntax/syntax-worker.ts`): parsing a large file and walking its
 * definitions, and later releasing its tree, takes longer than the main thread may be held.
 */
export function fileOutline(grammar: Lang | undefined, text: string): Definition[] {
  return grammar === undefined ? indentOutline(splitLines(text)) : astOutline(grammar, text);
}
