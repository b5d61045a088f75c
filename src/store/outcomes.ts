import { formatBytes } from '../core/format-bytes.ts';

/**
 * The outcomes a store writes itself (the server writes the others: `completed`, `aborted`, …),
 * worded alike by every store, since a late request's message quotes them.
 */

/** A running run whose instance stopped renewing its lease. */
export const INSTANCE_LOST_OUTCOME = 'instance_lost';

/** A paused run stopped by a request to abort it. */
export const ABORTED_OUTCOME = 'aborted';

/** A paused run whose front-end results did not come within `pausedRunTtlMs`. */
export const WAITED_TOO_LONG_OUTCOME = 'dropped: it waited too long for its front-end results';

/** A paused run larger than `maxRememberedBytes` on its own. */
export function tooLargeToPauseOutcome(bytes: number, maxRememberedBytes: number): string {
  return tooLargeToPauseWords(formatBytes(bytes), maxRememberedBytes);
}

/**
 * The same words with the conversation's size already written (`%s` where a Redis script, which
 * alone knows the size, puts it).
 */
export function tooLargeToPauseWords(size: string, maxRememberedBytes: number): string {
  return `dropped: its conversation (${size}) is larger than the server keeps for a paused run (${formatBytes(maxRememberedBytes)})`;
}
