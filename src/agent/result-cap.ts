import type { ToolCallProtocol } from '../core/index.ts';
import type { ToolOutcome } from './conversation.ts';
import { toJsonSafe } from './json-safe.ts';

/**
 * One call's outcome as the model will read it: JSON data (see `toJsonSafe`) whose rendering by
 * the protocol is at most `maxChars` characters, plus a notice when it had to be cut.
 *
 * The size is measured on what the protocol writes for the output (its escapes, indentation and
 * quoting included), not on the value: a string full of `<` costs six characters each in a JSON
 * protocol, and an object is as long as its JSON text. An output over the cap is turned into
 * text (its compact JSON when it is not a string) and cut before the protocol escapes it, so the
 * escaping that keeps a result from being read as a call stays whole.
 */
export function outcomeForModel(
  protocol: ToolCallProtocol,
  outcome: ToolOutcome,
  maxChars: number,
): ToolOutcome {
  const safe =
    typeof outcome.output === 'string'
      ? { value: outcome.output, complete: true }
      : // One character past the cap is enough to know the output must be cut.
        toJsonSafe(outcome.output, { maxChars: maxChars + 1 });
  const candidate = { ...outcome, output: safe.value };
  const measure = new RenderedSize(protocol, outcome);
  // Rendering only adds characters (escapes, quotes), so a longer string cannot fit: it is not
  // rendered whole just to find that out.
  const tooLong = typeof safe.value === 'string' && safe.value.length > maxChars;
  if (safe.complete && !tooLong && measure.of(candidate.output) <= maxChars) return candidate;

  const text = typeof safe.value === 'string' ? safe.value : JSON.stringify(safe.value);
  const kept = longestFittingPrefix(text, maxChars, (prefix) => measure.of(prefix) <= maxChars);
  const notice = safe.complete
    ? `[output cut: ${text.length - kept} more characters not shown]`
    : `[output cut: more than ${Math.max(1, text.length - kept)} more characters not shown]`;
  return { ...outcome, output: `${text.slice(0, kept)}\n${notice}` };
}

/** How many characters the protocol writes for an output, without its envelope. */
class RenderedSize {
  private readonly protocol: ToolCallProtocol;
  private readonly outcome: ToolOutcome;
  private readonly envelope: number;

  constructor(protocol: ToolCallProtocol, outcome: ToolOutcome) {
    this.protocol = protocol;
    this.outcome = outcome;
    this.envelope = this.render('');
  }

  private render(output: unknown): number {
    return this.protocol.formatToolResponse([{ ...this.outcome, output }]).length;
  }

  of(output: unknown): number {
    return this.render(output) - this.envelope;
  }
}

/**
 * The longest prefix of `text` (at most `limit` characters, never half of a surrogate pair) that
 * `fits`. Rendering only ever adds characters (escapes), so `limit` characters are the most that
 * can fit; when escapes make them too long, the prefix is found by halving.
 */
function longestFittingPrefix(
  text: string,
  limit: number,
  fits: (prefix: string) => boolean,
): number {
  let high = Math.min(text.length, Math.max(0, limit));
  if (!fits(text.slice(0, high))) {
    let low = 0;
    high -= 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (fits(text.slice(0, middle))) low = middle;
      else high = middle - 1;
    }
  }
  // A high surrogate at the end would split a character in two; one less still fits.
  const last = text.charCodeAt(high - 1);
  return high > 0 && last >= 0xd800 && last <= 0xdbff ? high - 1 : high;
}
