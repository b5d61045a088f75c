import type { Opener } from '../../scan/opener-trie.ts';
import type { CallOpener, CallOpenerKind } from '../engine/stream-engine.ts';

/**
 * What an opener opens (see CallOpener.kind), as its format declares it. Every FormatSpec's
 * opener declares it (spec/compile.ts). A hand-written format that does not yet is read from the
 * shape of its opener data, which the engine treats as opaque: `markup: true` (Mistral's
 * `[/TOOL_CALLS]`) is framing, `speculative: true` (a bare JSON list) or no object at all is
 * speculative, anything else a call.
 */
export function openerKind(opener: Opener<unknown>): CallOpenerKind {
  const declared = (opener as CallOpener<unknown>).kind;
  return declared ?? guessedKind(opener.data);
}

/**
 * What an opener's call may start with (see CallOpener.callStarts), or undefined for anything.
 * Only declared: a FormatSpec's JSON lines declare `{`, its JSON lists `[` (`starts`).
 */
export function openerCallStarts(opener: Opener<unknown>): string | undefined {
  return (opener as CallOpener<unknown>).callStarts;
}

function guessedKind(data: unknown): CallOpenerKind {
  // Data that is no object tells nothing: never taken for a sure call.
  if (typeof data !== 'object' || data === null) return 'speculative';
  const fields = data as { markup?: unknown; speculative?: unknown };
  if (fields.markup === true) return 'framing';
  if (fields.speculative === true) return 'speculative';
  return 'call';
}
