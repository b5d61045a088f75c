import { InvalidToolInputError } from '../errors.ts';
import { type GlobNode, GlobSyntaxError, parseGlob, setContains } from './glob-syntax.ts';

/** How large a glob may be; both come from the tools' settings. */
export interface GlobLimits {
  /** Longest glob accepted, in characters. */
  readonly maxChars: number;
  /** Deepest nesting of `{…}` groups accepted. */
  readonly maxBraceDepth: number;
}

/*
 * The automaton's states. A glob is matched by following every state it could be in at once
 * (a set of states advanced per character), never by trying one way and backing up, so the work
 * is at most (states × characters) whatever the glob.
 */
/** The whole glob has matched. */
const ACCEPT = 0;
/** One given character. */
const LITERAL = 1;
/** `?`. */
const ONE = 2;
/** A `[…]` set. */
const SET = 3;
/** `*`: stays on any character but `/`; may also go on without consuming. */
const STAR = 4;
/** `**` inside a segment: stays on any character; may also go on without consuming. */
const ANYTHING = 5;
/** Between the folders of a `**` segment: may go on; `/` stays, another character starts a name. */
const FOLDERS = 6;
/** Inside a folder name of a `**` segment: `/` goes back to FOLDERS, anything else stays. */
const FOLDER_NAME = 7;
/** `{a,b}`: goes on to each option without consuming. */
const SPLIT = 8;

type Op = number;

const SLASH = 0x2f;

/** A compiled glob: states in flat arrays, and the scratch space one match needs. */
class GlobAutomaton {
  readonly #ops: Op[] = [];
  /** LITERAL: the character; SET: its index; FOLDERS and FOLDER_NAME: the partner state. */
  readonly #args: number[] = [];
  /** The state that follows (after consuming; without consuming for STAR, ANYTHING, FOLDERS). */
  readonly #next: number[] = [];
  readonly #branches: (readonly number[])[] = [];
  readonly #sets: { readonly ranges: readonly number[]; readonly negated: boolean }[] = [];
  readonly #start: number;
  readonly #accept: number;
  /** `#marks[state] === #generation`: the state is already in the set being built. */
  readonly #marks: Uint32Array;
  #generation = 0;
  #current: number[] = [];
  #following: number[] = [];
  readonly #pending: number[] = [];

  constructor(nodes: readonly GlobNode[]) {
    this.#accept = this.#add(ACCEPT, 0, -1);
    this.#start = this.#compile(nodes, this.#accept);
    this.#marks = new Uint32Array(this.#ops.length);
  }

  #add(op: Op, arg: number, next: number): number {
    this.#ops.push(op);
    this.#args.push(arg);
    this.#next.push(next);
    this.#branches.push([]);
    return this.#ops.length - 1;
  }

  /**
   * Builds the states of `nodes`, from the end backwards so that each element knows the state
   * it leads to. Nested groups are handled with an explicit stack (no recursion), so nesting is
   * limited only by `maxBraceDepth`.
   */
  #compile(nodes: readonly GlobNode[], accept: number): number {
    type Sequence = { kind: 'sequence'; nodes: readonly GlobNode[]; index: number; entry: number };
    type Group = {
      kind: 'group';
      options: readonly (readonly GlobNode[])[];
      next: number;
      entries: number[];
    };
    const sequence = (items: readonly GlobNode[], next: number): Sequence => ({
      kind: 'sequence',
      nodes: items,
      index: items.length - 1,
      entry: next,
    });
    const frames: (Sequence | Group)[] = [sequence(nodes, accept)];
    let start = accept;
    while (frames.length > 0) {
      const frame = frames.at(-1)!;
      if (frame.kind === 'group') {
        if (frame.entries.length < frame.options.length) {
          frames.push(sequence(frame.options[frame.entries.length]!, frame.next));
          continue;
        }
        frames.pop();
        const split = this.#add(SPLIT, 0, -1);
        this.#branches[split] = frame.entries;
        const outer = frames.at(-1) as Sequence;
        outer.entry = split;
        outer.index -= 1;
        continue;
      }
      if (frame.index < 0) {
        frames.pop();
        const outer = frames.at(-1);
        if (outer === undefined) start = frame.entry;
        else (outer as Group).entries.push(frame.entry);
        continue;
      }
      const node = frame.nodes[frame.index]!;
      if (node.kind === 'alternatives') {
        frames.push({ kind: 'group', options: node.options, next: frame.entry, entries: [] });
        continue;
      }
      frame.entry = this.#compileElement(node, frame.entry);
      frame.index -= 1;
    }
    return start;
  }

  #compileElement(node: Exclude<GlobNode, { kind: 'alternatives' }>, next: number): number {
    switch (node.kind) {
      case 'literal':
        return this.#add(LITERAL, node.codePoint, next);
      case 'one':
        return this.#add(ONE, 0, next);
      case 'star':
        return this.#add(STAR, 0, next);
      case 'anything':
        return this.#add(ANYTHING, 0, next);
      case 'set':
        this.#sets.push({ ranges: node.ranges, negated: node.negated });
        return this.#add(SET, this.#sets.length - 1, next);
      case 'folders': {
        const folders = this.#add(FOLDERS, 0, next);
        const name = this.#add(FOLDER_NAME, folders, -1);
        this.#args[folders] = name;
        return folders;
      }
    }
  }

  /** Adds `state` and every state reachable from it without consuming to `list`. */
  #enter(state: number, list: number[]): void {
    const pending = this.#pending;
    pending.push(state);
    while (pending.length > 0) {
      const current = pending.pop()!;
      if (this.#marks[current] === this.#generation) continue;
      this.#marks[current] = this.#generation;
      const op = this.#ops[current]!;
      if (op === SPLIT) {
        for (const branch of this.#branches[current]!) pending.push(branch);
        continue;
      }
      list.push(current);
      if (op === STAR || op === ANYTHING || op === FOLDERS) {
        pending.push(this.#next[current]!);
      }
    }
  }

  #nextGeneration(): void {
    this.#generation += 1;
    if (this.#generation === 0xffffffff) {
      this.#marks.fill(0);
      this.#generation = 1;
    }
  }

  /** Whether the whole of `subject` matches. */
  matches(subject: string): boolean {
    this.#nextGeneration();
    let current = this.#current;
    let following = this.#following;
    current.length = 0;
    this.#enter(this.#start, current);
    for (let index = 0; index < subject.length && current.length > 0; ) {
      const char = subject.codePointAt(index)!;
      index += char > 0xffff ? 2 : 1;
      this.#nextGeneration();
      following.length = 0;
      for (const state of current) {
        const target = this.#step(state, char);
        if (target !== -1) this.#enter(target, following);
      }
      [current, following] = [following, current];
    }
    this.#current = current;
    this.#following = following;
    return this.#marks[this.#accept] === this.#generation;
  }

  /** Where `state` goes on `char`, or -1 when it cannot take it. */
  #step(state: number, char: number): number {
    switch (this.#ops[state]!) {
      case LITERAL:
        return char === this.#args[state] ? this.#next[state]! : -1;
      case ONE:
        return char === SLASH ? -1 : this.#next[state]!;
      case SET: {
        const set = this.#sets[this.#args[state]!]!;
        return setContains(set.ranges, set.negated, char) ? this.#next[state]! : -1;
      }
      case STAR:
        return char === SLASH ? -1 : state;
      case ANYTHING:
        return state;
      case FOLDERS:
        return char === SLASH ? state : this.#args[state]!;
      case FOLDER_NAME:
        return char === SLASH ? this.#args[state]! : state;
      default:
        return -1;
    }
  }
}

/** How a glob is named in an error: whole when short, else its start. */
function quoted(glob: string): string {
  return JSON.stringify(glob.length > 100 ? `${glob.slice(0, 100)}…` : glob);
}

function invalid(parameter: string, glob: string, reason: GlobSyntaxError): InvalidToolInputError {
  return new InvalidToolInputError(
    parameter,
    `${parameter} ${quoted(glob)} is not a valid glob: ${reason.message}.`,
    { cause: reason },
  );
}

/**
 * A glob, compiled to a test on `/`-separated relative paths:
 * `*` any characters but `/`, `?` one such character, `**` any number of folders,
 * `[abc]`/`[a-z]`/`[!abc]`/`[^abc]` one character (never `/`) from (or not from) a set,
 * `{a,b}` alternatives (nested too), `\` takes the next character as it is.
 * A glob without `/` is tested against file names (so `*.ts` finds every TypeScript file, at any
 * depth); a glob with `/` is tested against the whole relative path. Case-sensitive. A leading
 * `./` is ignored. Matching takes time proportional to the glob's length times the path's
 * length at worst, whatever the glob.
 */
export function compileGlob(
  glob: string,
  parameter: string,
  limits: GlobLimits,
): (path: string) => boolean {
  const trimmed = glob.trim().replace(/^\.\//, '');
  if (trimmed.length > limits.maxChars) {
    throw new InvalidToolInputError(
      parameter,
      `${parameter} is ${trimmed.length} characters long; a glob may have at most ` +
        `${limits.maxChars}. Use a shorter glob, such as "src/**/*.ts".`,
    );
  }
  let automaton: GlobAutomaton;
  try {
    automaton = new GlobAutomaton(parseGlob(trimmed, limits.maxBraceDepth));
  } catch (error) {
    if (error instanceof GlobSyntaxError) throw invalid(parameter, glob, error);
    throw error;
  }
  if (!trimmed.includes('/')) {
    return (path) => automaton.matches(path.slice(path.lastIndexOf('/') + 1));
  }
  return (path) => automaton.matches(path);
}
