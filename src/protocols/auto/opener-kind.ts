import type { Opener } from '../../scan/opener-trie.ts';
import type { CallOpener, CallOpenerKind } from '../engine/stream-engine.ts';

/**
 * What an opener opens (see CallOpener.kind), as its format declares it. Formats that do not
 * declare it yet are read from the shape of their opener data, which the engine treats as
 * opaque: a FormatSpec's `markup` (`codec: 'markup'`) or a hand-written format's markup
 * (`markup: true`) is framing; data marked `speculative` (or whose `config` is), or no object
 * at all, is speculative; anything else is a call. The guess goes once every format declares its openers' kind.
 */
export function openerKind(opener: Opener<unknown>): CallOpenerKind {
  const declared = (opener as CallOpener<unknown>).kind;
  return declared ?? guessedKind(opener.data);
}

/** What an opener's call may start with (see CallOpener.callStarts), or undefined for anything. */
export function openerCallStarts(opener: Opener<unknown>): string | undefined {
  const declared = (opener as CallOpener<unknown>).callStarts;
  return declared ?? guessedCallStarts(opener.data);
}

function guessedKind(data: unknown): CallOpenerKind {
  // Data that is no object tells nothing: never taken for a sure call.
  if (typeof data !== 'object' || data === null) return 'speculative';
  const fields = data as {
    codec?: unknown;
    markup?: unknown;
    speculative?: unknown;
    config?: { speculative?: unknown };
  };
  if (fields.codec === 'markup' || fields.markup === true) return 'framing';
  if (fields.speculative === true || fields.config?.speculative === true) return 'speculative';
  return 'call';
}

/**
 * A FormatSpec's JSON lines (`perLine`, MiniMax-M1's `<tool_calls>` with an object a line)
 * start with `{`: the one case auto needs told apart by its first character today, from
 * Hunyuan-A13B's, Jamba's and Apriel's JSON list after the same `<tool_calls>`.
 */
function guessedCallStarts(data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const fields = data as { codec?: unknown; config?: { perLine?: unknown; jsonPrefix?: unknown } };
  if (fields.codec !== 'json' || fields.config?.perLine !== true) return undefined;
  return fields.config.jsonPrefix === undefined ? '{' : undefined;
}
