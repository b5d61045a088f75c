import { InvalidToolInputError } from '../errors.ts';

/**
 * A search query, read as keywords (Probe's queries are phrases like "login user function"):
 * - terms are separated by white space; `"two words"` is one term, matched with its space;
 * - matching is case-insensitive and a term matches inside words (`login` finds `loginUser`);
 * - a file matches when it contains at least one term; `+term` must be in the file,
 *   `-term` must not be; the words AND and OR (in capitals) are ignored.
 */
export interface SearchTerms {
  /** Terms whose lines are shown, lower-cased (required ones included). */
  readonly positive: readonly string[];
  /** Terms every matching file must contain (also in `positive`). */
  readonly required: readonly string[];
  /** Terms no matching file may contain. */
  readonly excluded: readonly string[];
}

const TOKEN = /([+-]?)"([^"]*)"?|(\S+)/g;
const OPERATORS = new Set(['AND', 'OR']);

export function parseQuery(query: string): SearchTerms {
  // Sets keep the order terms were written in and make a repeated term cost nothing.
  const positive = new Set<string>();
  const required = new Set<string>();
  const excluded = new Set<string>();
  for (const match of query.matchAll(TOKEN)) {
    let sign = match[1] ?? '';
    let term = match[2];
    if (term === undefined) {
      const word = match[3] ?? '';
      if (OPERATORS.has(word)) continue;
      sign = word.length > 1 && (word[0] === '+' || word[0] === '-') ? word[0] : '';
      term = sign === '' ? word : word.slice(1);
    }
    term = term.toLowerCase();
    if (term.trim() === '') continue;
    if (sign === '-') {
      excluded.add(term);
      continue;
    }
    positive.add(term);
    if (sign === '+') required.add(term);
  }
  if (positive.size === 0) {
    throw new InvalidToolInputError(
      'query',
      `query ${JSON.stringify(query)} has no term to look for ` +
        '(a term starting with "-" only excludes files).',
    );
  }
  return { positive: [...positive], required: [...required], excluded: [...excluded] };
}

/** The query as understood, for the output header. */
export function describeTerms(terms: SearchTerms): string {
  const list = (words: readonly string[]) => words.map((word) => JSON.stringify(word)).join(', ');
  const required = new Set(terms.required);
  const optional = terms.positive.filter((term) => !required.has(term));
  const parts: string[] = [];
  if (terms.required.length > 0) parts.push(`all of ${list(terms.required)}`);
  if (optional.length > 0) {
    parts.push(`${terms.required.length > 0 ? 'lines with ' : ''}any of ${list(optional)}`);
  }
  if (terms.excluded.length > 0) parts.push(`none of ${list(terms.excluded)}`);
  return `${parts.join('; ')} (case-insensitive, inside words too)`;
}
