import type { Lang } from '../ast-grep.ts';
import { fileOutline } from '../extract/file-outline.ts';
import type { Definition } from '../extract/outline.ts';
import { type FileMatches, findMatches } from '../query/find-matches.ts';

/** Work sent to the syntax worker: everything that parses code. */
export type SyntaxJob =
  | { readonly kind: 'outline'; readonly grammar: Lang | undefined; readonly text: string }
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
  if (job.kind === 'outline') return fileOutline(job.grammar, job.text);
  return findMatches(job.grammar, job.text, job.pattern, job.maxShown);
}
