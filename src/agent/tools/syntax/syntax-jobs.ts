import type { Lang } from '../ast-grep.ts';
import { fileOutline } from '../extract/file-outline.ts';
import { type Definition, enclosing, findSymbol, symbolNames } from '../extract/outline.ts';
import { type FileMatches, findMatches } from '../query/find-matches.ts';

/**
 * Work sent to the syntax worker: everything that parses code. A file's outline can hold tens of
 * thousands of definitions, so the worker also answers the questions asked of it (`symbol`,
 * `enclosing`): only the answer crosses to the main thread, whose event loop would otherwise
 * be held while a whole outline is copied in.
 */
export type SyntaxJob =
  | { readonly kind: 'outline'; readonly grammar: Lang | undefined; readonly text: string }
  | {
      readonly kind: 'symbol';
      readonly grammar: Lang | undefined;
      readonly text: string;
      readonly symbol: string;
    }
  | {
      readonly kind: 'enclosing';
      readonly grammar: Lang | undefined;
      readonly text: string;
      readonly line: number;
    }
  | {
      readonly kind: 'matches';
      readonly grammar: Lang;
      readonly text: string;
      readonly pattern: string;
      readonly maxShown: number;
    };

/** What each kind of job gives back. */
export interface SyntaxResults {
  readonly outline: Definition[];
  /** The definitions named `symbol`, and when there are none, the names there are (capped). */
  readonly symbol: { readonly found: Definition[]; readonly names: string[] };
  readonly enclosing: Definition | undefined;
  readonly matches: FileMatches;
}

/** A message from the main thread to the worker. */
export interface SyntaxRequest {
  readonly id: number;
  readonly job: SyntaxJob;
}

/** The worker's answer: the result, or the message of what was thrown. */
export type SyntaxReply =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** Runs one job (on the worker thread). */
export function runSyntaxJob(job: SyntaxJob): SyntaxResults[SyntaxJob['kind']] {
  switch (job.kind) {
    case 'outline':
      return fileOutline(job.grammar, job.text);
    case 'symbol': {
      const outline = fileOutline(job.grammar, job.text);
      const found = findSymbol(outline, job.symbol);
      return { found, names: found.length === 0 ? symbolNames(outline) : [] };
    }
    case 'enclosing':
      return enclosing(fileOutline(job.grammar, job.text), job.line);
  }
  return findMatches(job.grammar, job.text, job.pattern, job.maxShown);
}
