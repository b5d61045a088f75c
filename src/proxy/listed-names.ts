/**
 * Names a client sent (tool types, option names) as the proxy repeats them in a header or the
 * log: only plain names, a bounded number of them. A name with a line break would make a header
 * throw (a 500) and could forge log lines; a client sending thousands would bloat both.
 */

/** A plain name: letters, digits, `_`, `.`, `-`, at most 64 of them. */
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The most names listed; more are counted. */
export const MAX_LISTED_NAMES = 32;

/**
 * The distinct plain names among `names`, at most `MAX_LISTED_NAMES`, and how many others
 * (names not plain, or past the most listed) there were.
 */
export function plainNames(names: readonly string[]): { listed: string[]; others: number } {
  const distinct = [...new Set(names)];
  const listed = distinct.filter((name) => PLAIN_NAME.test(name)).slice(0, MAX_LISTED_NAMES);
  return { listed, others: distinct.length - listed.length };
}

/** The names as one line: `a, b (and 3 others)`; empty when there are none. */
export function listedNamesLine(names: readonly string[]): string {
  const { listed, others } = plainNames(names);
  if (others === 0) return listed.join(', ');
  const more = `${others} other${others === 1 ? '' : 's'}`;
  return listed.length === 0 ? more : `${listed.join(', ')} (and ${more})`;
}
