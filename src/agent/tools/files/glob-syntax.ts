/**
 * The syntax of a glob, read into a small tree that `glob.ts` turns into an automaton. Reading
 * is one pass over the text with an explicit stack for `{…}` groups, so no glob can make it
 * recurse or backtrack.
 */

import { ToolwireError } from '../../../core/errors.ts';

/** One element of a glob. Sets hold inclusive ranges of code points as `[low, high, …]` pairs. */
export type GlobNode =
  | { readonly kind: 'literal'; readonly codePoint: number }
  /** `?`: one character other than `/`. */
  | { readonly kind: 'one' }
  /** `*`: any characters other than `/`. */
  | { readonly kind: 'star' }
  /** `**` that is not a whole path segment: any characters, `/` included. */
  | { readonly kind: 'anything' }
  // `**` then `/`, at the start of the glob or right after `/`: zero or more whole folders.
  | { readonly kind: 'folders' }
  | { readonly kind: 'set'; readonly negated: boolean; readonly ranges: readonly number[] }
  | { readonly kind: 'alternatives'; readonly options: readonly (readonly GlobNode[])[] };

/** Why a glob cannot be read; `glob.ts` words it for the model. */
export class GlobSyntaxError extends ToolwireError {
  constructor(message: string) {
    super('invalid-tool-input', message);
  }
}

const SLASH = 0x2f;

/** An open `{` group: the options finished so far and the one being read. */
interface Group {
  readonly options: GlobNode[][];
  current: GlobNode[];
}

function codePointLength(codePoint: number): number {
  return codePoint > 0xffff ? 2 : 1;
}

/**
 * Reads a `[…]` set starting at `open` (the `[`). The first member may be `]`; `!` or `^` first
 * negates; `a-z` is a range (a `-` first or last is itself a member); `\` takes the next
 * character as a member.
 */
function readSet(text: string, open: number): { node: GlobNode; end: number } {
  let index = open + 1;
  const negated = text[index] === '!' || text[index] === '^';
  if (negated) index += 1;
  const ranges: number[] = [];
  const readMember = (): number => {
    if (text[index] === '\\' && index + 1 < text.length) index += 1;
    const codePoint = text.codePointAt(index)!;
    index += codePointLength(codePoint);
    return codePoint;
  };
  let first = true;
  while (index < text.length) {
    if (text[index] === ']' && !first) {
      return { node: { kind: 'set', negated, ranges }, end: index + 1 };
    }
    first = false;
    const low = readMember();
    if (text[index] === '-' && index + 1 < text.length && text[index + 1] !== ']') {
      index += 1;
      const high = readMember();
      if (high < low) throw new GlobSyntaxError('a character set in it is malformed');
      ranges.push(low, high);
    } else {
      ranges.push(low, low);
    }
  }
  throw new GlobSyntaxError('a "[" has no closing "]"');
}

/**
 * Reads a glob into its elements. `**` counts as whole folders only when it is a path segment
 * of its own in the text as written (at the start or after `/`, and followed by `/`).
 * A `}` or `,` outside any group is an ordinary character; a trailing `\` is a backslash.
 */
export function parseGlob(text: string, maxBraceDepth: number): GlobNode[] {
  const groups: Group[] = [];
  let sequence: GlobNode[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === '*') {
      if (text[index + 1] === '*') {
        const atSegmentStart = index === 0 || text[index - 1] === '/';
        if (atSegmentStart && text[index + 2] === '/') {
          sequence.push({ kind: 'folders' });
          index += 3;
        } else {
          sequence.push({ kind: 'anything' });
          index += 2;
        }
      } else {
        sequence.push({ kind: 'star' });
        index += 1;
      }
    } else if (char === '?') {
      sequence.push({ kind: 'one' });
      index += 1;
    } else if (char === '[') {
      const set = readSet(text, index);
      sequence.push(set.node);
      index = set.end;
    } else if (char === '{') {
      if (groups.length >= maxBraceDepth) {
        throw new GlobSyntaxError(`its "{…}" groups are nested more than ${maxBraceDepth} deep`);
      }
      groups.push({ options: [], current: sequence });
      sequence = [];
      index += 1;
    } else if (char === ',' && groups.length > 0) {
      groups.at(-1)!.options.push(sequence);
      sequence = [];
      index += 1;
    } else if (char === '}' && groups.length > 0) {
      const group = groups.pop()!;
      group.options.push(sequence);
      sequence = group.current;
      sequence.push({ kind: 'alternatives', options: group.options });
      index += 1;
    } else {
      if (char === '\\' && index + 1 < text.length) index += 1;
      const codePoint = text.codePointAt(index)!;
      sequence.push({ kind: 'literal', codePoint });
      index += codePointLength(codePoint);
    }
  }
  if (groups.length > 0) throw new GlobSyntaxError('a "{" has no closing "}"');
  return sequence;
}

/** Whether a set (never `/`) contains `codePoint`. */
export function setContains(
  ranges: readonly number[],
  negated: boolean,
  codePoint: number,
): boolean {
  if (codePoint === SLASH) return false;
  let inside = false;
  for (let index = 0; index < ranges.length; index += 2) {
    if (codePoint >= ranges[index]! && codePoint <= ranges[index + 1]!) {
      inside = true;
      break;
    }
  }
  return inside !== negated;
}
