/**
 * Reads the regular expressions of a response template (`open_pattern`, `close_pattern`,
 * `tag_pattern`, legacy `x-regex`) as data, never running them: a pattern is parsed into nodes,
 * and only a few shapes are accepted, each one turned into literals (a marker and its
 * alternatives, a name between markers). Every other construct is refused by name, with the
 * part of the pattern that holds it. toolwire never runs a template's pattern on model output:
 * a pattern is code from a file, and a streaming parser needs literals to hold back on.
 *
 * The syntax read is Python's (`re` / `regex`): `(?P<name>…)` groups, `\Z`. Parsing is one pass
 * over the pattern's characters.
 */
import { ResponseTemplateError } from './response-template-error.ts';

export type PatternNode =
  | { readonly kind: 'literal'; readonly text: string; readonly source: string }
  /** A one-character class: `\s`, `\w`, `.`, `[^<]`. */
  | { readonly kind: 'class'; readonly source: string }
  | { readonly kind: 'start'; readonly source: string }
  /** A lookaround or back-reference, kept (not refused) when a whole-text regex is only scanned. */
  | { readonly kind: 'opaque'; readonly source: string }
  | { readonly kind: 'end'; readonly source: string }
  | {
      readonly kind: 'group';
      /** The group's name for `(?P<name>…)`; undefined for `(?:…)` and `(…)`. */
      readonly name: string | undefined;
      readonly capturing: boolean;
      readonly branches: readonly (readonly PatternNode[])[];
      readonly source: string;
    }
  | {
      readonly kind: 'repeat';
      readonly node: PatternNode;
      readonly min: number;
      readonly max: number;
      readonly lazy: boolean;
      readonly source: string;
    };

/** A parsed pattern: its top-level alternatives. */
export interface ParsedPattern {
  readonly branches: readonly (readonly PatternNode[])[];
  readonly source: string;
}

/** Longest pattern read. Template patterns are short; a longer one is not a marker. */
const MAX_PATTERN_CHARS = 4096;
/** Most literal alternatives one marker may expand to. */
const MAX_ALTERNATIVES = 16;

const ESCAPED_CHARACTERS: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  f: '\f',
  v: '\v',
};

const CLASS_ESCAPES = new Set(['s', 'S', 'w', 'W', 'd', 'D']);

/**
 * Parses `source` (a pattern found at `path`), refusing constructs no shape here can use. With
 * `keepAssertions`, lookarounds and back-references become `opaque` nodes instead: for a
 * legacy whole-text `x-regex`, which is scanned for the markers around a group, never followed.
 */
export function parsePattern(
  source: string,
  path: string,
  options: { readonly keepAssertions?: boolean } = {},
): ParsedPattern {
  if (source.length > MAX_PATTERN_CHARS) {
    throw new ResponseTemplateError(path, `is longer than ${MAX_PATTERN_CHARS} characters`);
  }
  const reader = new PatternReader(source, path, options.keepAssertions === true);
  const branches = reader.readAlternatives(false);
  return { branches, source };
}

class PatternReader {
  private index = 0;

  private readonly source: string;
  private readonly path: string;
  private readonly keepAssertions: boolean;

  constructor(source: string, path: string, keepAssertions: boolean) {
    this.source = source;
    this.path = path;
    this.keepAssertions = keepAssertions;
  }

  /** An assertion kept as an opaque node (see `keepAssertions`), else refused. */
  private assertion(start: number, end: number, problem: string): PatternNode {
    if (!this.keepAssertions) this.refuse(start, end, problem);
    this.index = end;
    return { kind: 'opaque', source: this.source.slice(start, end) };
  }

  refuse(from: number, to: number, problem: string): never {
    throw new ResponseTemplateError(
      this.path,
      problem,
      `\`${this.source.slice(from, Math.max(to, from + 1))}\``,
    );
  }

  readAlternatives(inGroup: boolean): PatternNode[][] {
    const branches: PatternNode[][] = [this.readSequence()];
    while (this.index < this.source.length) {
      const character = this.source[this.index];
      if (character === '|') {
        this.index++;
        branches.push(this.readSequence());
        continue;
      }
      if (character === ')') {
        if (inGroup) return branches;
        this.refuse(this.index, this.index + 1, 'is an unbalanced parenthesis');
      }
      break;
    }
    if (inGroup) this.refuse(this.source.length - 1, this.source.length, 'leaves a group open');
    return branches;
  }

  private readSequence(): PatternNode[] {
    const nodes: PatternNode[] = [];
    const source = this.source;
    while (this.index < source.length) {
      const start = this.index;
      const character = source[start] as string;
      if (character === '|' || character === ')') break;
      if (character === '*' || character === '+' || character === '?' || character === '{') {
        if (character === '{' && !this.quantifierAt(start)) {
          this.index++;
          nodes.push({ kind: 'literal', text: '{', source: '{' });
          continue;
        }
        const last = nodes.pop();
        if (last === undefined) this.refuse(start, start + 1, 'repeats nothing');
        nodes.push(this.readQuantifier(last, start));
        continue;
      }
      nodes.push(this.readAtom());
    }
    return nodes;
  }

  private readAtom(): PatternNode {
    const source = this.source;
    const start = this.index;
    const character = source[start] as string;
    if (character === '(') return this.readGroup();
    if (character === '[') return this.readClass();
    this.index++;
    if (character === '.') return { kind: 'class', source: '.' };
    if (character === '^') return { kind: 'start', source: '^' };
    if (character === '$') return { kind: 'end', source: '$' };
    if (character !== '\\') return { kind: 'literal', text: character, source: character };
    const escaped = source[this.index];
    if (escaped === undefined) this.refuse(start, start + 1, 'ends with a lone backslash');
    this.index++;
    const written = source.slice(start, this.index);
    const known = ESCAPED_CHARACTERS[escaped];
    if (known !== undefined) return { kind: 'literal', text: known, source: written };
    if (CLASS_ESCAPES.has(escaped)) return { kind: 'class', source: written };
    if (escaped === 'Z' || escaped === 'z') return { kind: 'end', source: written };
    if (escaped === 'A') return { kind: 'start', source: written };
    if (escaped === 'b' || escaped === 'B') {
      this.refuse(
        start,
        this.index,
        '(a word boundary) is not read: it tests text around a marker',
      );
    }
    if (escaped >= '0' && escaped <= '9') {
      return this.assertion(
        start,
        this.index,
        '(a back-reference) is not read: it repeats text the model wrote, which no literal marker can say',
      );
    }
    if (escaped === 'x' || escaped === 'u') {
      const digits = escaped === 'x' ? 2 : 4;
      const hex = source.slice(this.index, this.index + digits);
      if (hex.length !== digits || !/^[0-9a-fA-F]+$/.test(hex)) {
        this.refuse(start, this.index + digits, 'is not a character escape');
      }
      this.index += digits;
      return {
        kind: 'literal',
        text: String.fromCharCode(Number.parseInt(hex, 16)),
        source: source.slice(start, this.index),
      };
    }
    if (/[A-Za-z]/.test(escaped)) {
      this.refuse(start, this.index, 'is an escape toolwire does not read');
    }
    return { kind: 'literal', text: escaped, source: written };
  }

  private readGroup(): PatternNode {
    const source = this.source;
    const start = this.index;
    this.index++;
    let name: string | undefined;
    let capturing = true;
    if (source[this.index] === '?') {
      const rest = source.slice(this.index, this.index + 4);
      if (rest.startsWith('?:')) {
        capturing = false;
        this.index += 2;
      } else if (rest.startsWith('?P<') || (rest.startsWith('?<') && /^\?<[A-Za-z_]/.test(rest))) {
        const open = rest.startsWith('?P<') ? this.index + 3 : this.index + 2;
        const close = source.indexOf('>', open);
        if (close === -1) this.refuse(start, open, 'is a group name that is never closed');
        name = source.slice(open, close);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
          this.refuse(start, close + 1, 'is not a group name');
        }
        this.index = close + 1;
      } else if (rest.startsWith('?=') || rest.startsWith('?!')) {
        return this.assertion(
          start,
          this.closingParenthesis(start) + 1,
          '(a lookahead) is not read: whether it matches depends on text that has not streamed yet',
        );
      } else if (rest.startsWith('?<=') || rest.startsWith('?<!')) {
        return this.assertion(
          start,
          this.closingParenthesis(start) + 1,
          '(a lookbehind) is not read: it tests text before the marker, which has already streamed',
        );
      } else if (rest.startsWith('?P=')) {
        return this.assertion(
          start,
          this.closingParenthesis(start) + 1,
          '(a back-reference) is not read: it repeats text the model wrote, which no literal marker can say',
        );
      } else if (rest.startsWith('?>')) {
        this.refuse(start, this.closingParenthesis(start) + 1, '(an atomic group) is not read');
      } else {
        this.refuse(
          start,
          this.closingParenthesis(start) + 1,
          '(inline flags, a comment or a conditional) is not read',
        );
      }
    }
    const branches = this.readAlternatives(true);
    this.index++; // the `)`
    return { kind: 'group', name, capturing, branches, source: source.slice(start, this.index) };
  }

  /** Where the group opened at `start` closes (for quoting it), or the pattern's end. */
  private closingParenthesis(start: number): number {
    let depth = 0;
    for (let index = start; index < this.source.length; index++) {
      const character = this.source[index];
      if (character === '\\') index++;
      else if (character === '(') depth++;
      else if (character === ')' && --depth === 0) return index;
    }
    return this.source.length - 1;
  }

  private readClass(): PatternNode {
    const source = this.source;
    const start = this.index;
    let index = start + 1;
    if (source[index] === '^') index++;
    if (source[index] === ']') index++;
    while (index < source.length && source[index] !== ']') {
      index += source[index] === '\\' ? 2 : 1;
    }
    if (index >= source.length)
      this.refuse(start, source.length, 'is a character class never closed');
    this.index = index + 1;
    return { kind: 'class', source: source.slice(start, this.index) };
  }

  private quantifierAt(start: number): boolean {
    const close = this.source.indexOf('}', start);
    return close !== -1 && /^\{\d*(,\d*)?\}$/.test(this.source.slice(start, close + 1));
  }

  private readQuantifier(node: PatternNode, start: number): PatternNode {
    const source = this.source;
    let min: number;
    let max: number;
    const character = source[start];
    if (character === '{') {
      const close = source.indexOf('}', start);
      const [low = '', high] = source.slice(start + 1, close).split(',');
      min = low === '' ? 0 : Number(low);
      max = high === undefined ? min : high === '' ? Number.POSITIVE_INFINITY : Number(high);
      this.index = close + 1;
    } else {
      min = character === '+' ? 1 : 0;
      max = character === '?' ? 1 : Number.POSITIVE_INFINITY;
      this.index = start + 1;
    }
    let lazy = false;
    if (source[this.index] === '?') {
      lazy = true;
      this.index++;
    } else if (source[this.index] === '+') {
      throw new ResponseTemplateError(
        this.path,
        '(a possessive quantifier) is not read',
        `\`${node.source}${source.slice(start, this.index + 1)}\``,
      );
    }
    if (node.kind === 'repeat') {
      this.refuse(start, this.index, '(a quantifier on a quantifier) is not read');
    }
    return {
      kind: 'repeat',
      node,
      min,
      max,
      lazy,
      source: node.source + source.slice(start, this.index),
    };
  }
}

/** Whether `node` is `\s*` (white space of any length, none included). */
export function isOptionalSpace(node: PatternNode): boolean {
  return (
    node.kind === 'repeat' &&
    node.node.kind === 'class' &&
    node.node.source === '\\s' &&
    node.min === 0 &&
    node.max === Number.POSITIVE_INFINITY
  );
}

/** Whether `node` is `\s+`. */
function isRequiredSpace(node: PatternNode): boolean {
  return (
    node.kind === 'repeat' &&
    node.node.kind === 'class' &&
    node.node.source === '\\s' &&
    node.min === 1 &&
    node.max === Number.POSITIVE_INFINITY
  );
}

/** `.*?` or `.*`: any text. */
export function isAnyText(node: PatternNode): boolean {
  return (
    node.kind === 'repeat' &&
    node.node.kind === 'class' &&
    (node.node.source === '.' || node.node.source === '[\\s\\S]') &&
    node.min === 0
  );
}

/**
 * A marker read from a pattern: its literal alternatives (longest first), and whether it may
 * also be the start (`^`) or the end (`$`, `\Z`) of the output instead.
 */
export interface Marker {
  readonly literals: readonly string[];
  readonly atStart: boolean;
  readonly atEnd: boolean;
}

/**
 * The marker a pattern stands for, when it is one of the accepted shapes:
 *
 * - literal text, escapes included (`<\|im_end\|>`);
 * - `\s*` at either end (the white space stays text; transformers' text parser strips it);
 * - an optional character or group of literals (`\n?</response>`, `(?:<\|message\|>)?`),
 *   which becomes alternatives;
 * - alternatives of literals (`(?:\n|</think>)`, `a|b`);
 * - `^` or `$` / `\Z` as a whole alternative (`(?:^|<think>)`, `<\|user\|>|$`);
 * - `\s+` between literals, read as one space.
 *
 * Anything else is refused, naming the part of the pattern that holds it.
 */
export function markerOf(pattern: ParsedPattern, path: string): Marker {
  return markerOfBranches(pattern.branches, path, true);
}

/** `markerOf` for a run of nodes (a part of a pattern). */
export function markerOfNodes(nodes: readonly PatternNode[], path: string): Marker {
  return markerOfBranches([nodes], path, true);
}

function markerOfBranches(
  branches: readonly (readonly PatternNode[])[],
  path: string,
  topLevel: boolean,
): Marker {
  const literals = new Set<string>();
  let atStart = false;
  let atEnd = false;
  for (const branch of branches) {
    const nodes = trimSpace(branch);
    const only = nodes.length === 1 ? nodes[0] : undefined;
    if (only?.kind === 'group' && only.name === undefined && !only.capturing) {
      // `(?:^|<think>\s*)`: a whole pattern that is one group is its alternatives.
      const inner = markerOfBranches(only.branches, path, topLevel);
      for (const literal of inner.literals) literals.add(literal);
      atStart ||= inner.atStart;
      atEnd ||= inner.atEnd;
      continue;
    }
    if (nodes.length === 1 && nodes[0]?.kind === 'start') {
      atStart = true;
      continue;
    }
    if (nodes.length === 1 && nodes[0]?.kind === 'end') {
      atEnd = true;
      continue;
    }
    for (const literal of expandSequence(nodes, path, topLevel)) literals.add(literal);
  }
  if (literals.size > MAX_ALTERNATIVES) {
    throw new ResponseTemplateError(
      path,
      `expands to more than ${MAX_ALTERNATIVES} literal alternatives`,
    );
  }
  return {
    literals: [...literals].sort((a, b) => b.length - a.length),
    atStart,
    atEnd,
  };
}

/** The nodes without `\s*` at either end. */
export function trimSpace(nodes: readonly PatternNode[]): readonly PatternNode[] {
  let from = 0;
  let to = nodes.length;
  while (from < to && isOptionalSpace(nodes[from] as PatternNode)) from++;
  while (to > from && isOptionalSpace(nodes[to - 1] as PatternNode)) to--;
  return nodes.slice(from, to);
}

function expandSequence(nodes: readonly PatternNode[], path: string, topLevel: boolean): string[] {
  let alternatives = [''];
  for (const [position, node] of nodes.entries()) {
    let options: readonly string[];
    if (node.kind === 'literal') options = [node.text];
    else if (isRequiredSpace(node) && position > 0 && position < nodes.length - 1) options = [' '];
    else if (node.kind === 'group') options = groupLiterals(node, path);
    else if (node.kind === 'repeat' && node.min === 0 && node.max === 1) {
      options = [...repeatedLiterals(node.node, path), ''];
    } else refuseNode(node, path, topLevel);
    const next: string[] = [];
    for (const before of alternatives) for (const option of options) next.push(before + option);
    if (next.length > MAX_ALTERNATIVES) {
      throw new ResponseTemplateError(
        path,
        `expands to more than ${MAX_ALTERNATIVES} literal alternatives`,
      );
    }
    alternatives = next;
  }
  return alternatives.filter((literal) => literal !== '');
}

function groupLiterals(node: PatternNode & { kind: 'group' }, path: string): string[] {
  if (node.name !== undefined) {
    throw new ResponseTemplateError(
      path,
      '(a named group) is not read here: only a call opener may capture the tool name',
      `\`${node.source}\``,
    );
  }
  const literals: string[] = [];
  for (const branch of node.branches) {
    // `(?:,\s*|…)`: white space at an alternative's edge stays text, as at the pattern's.
    const nodes = trimSpace(branch);
    if (nodes.length === 0) {
      literals.push('');
      continue;
    }
    literals.push(...expandSequence(nodes, path, false));
  }
  return literals;
}

function repeatedLiterals(node: PatternNode, path: string): string[] {
  if (node.kind === 'literal') return [node.text];
  if (node.kind === 'group') return groupLiterals(node, path);
  return refuseNode(node, path, false);
}

/** Refuses `node` with the reason that fits its kind. */
export function refuseNode(node: PatternNode, path: string, _topLevel: boolean): never {
  const quoted = `\`${node.source}\``;
  if (node.kind === 'start' || node.kind === 'end') {
    throw new ResponseTemplateError(
      path,
      '(an anchor inside a marker) is not read: only a whole alternative may be the start or end of the output',
      quoted,
    );
  }
  if (isAnyText(node)) {
    throw new ResponseTemplateError(
      path,
      '(any text) is not read: a marker must be literal text, or a streaming parser would have to hold back text without limit',
      quoted,
    );
  }
  if (node.kind === 'repeat' && node.node.kind !== 'class') {
    throw new ResponseTemplateError(
      path,
      '(a repetition) is not read: a marker must be literal text, optional parts and alternatives of it',
      quoted,
    );
  }
  if (node.kind === 'repeat' || node.kind === 'class') {
    throw new ResponseTemplateError(
      path,
      '(a character class) is not read: a marker must be literal text, or a streaming parser would have to hold back text it cannot bound',
      quoted,
    );
  }
  throw new ResponseTemplateError(path, 'is not a literal marker', quoted);
}

/** A named group in a run of nodes: its position, or -1. */
export function namedGroupIndex(nodes: readonly PatternNode[], name: string): number {
  return nodes.findIndex((node) => node.kind === 'group' && node.name === name);
}

/** Whether a pattern holds a named group anywhere (transformers refuses those without `transform`). */
export function namedGroupsIn(pattern: ParsedPattern): string[] {
  const names: string[] = [];
  const visit = (nodes: readonly PatternNode[]): void => {
    for (const node of nodes) {
      if (node.kind === 'group') {
        if (node.name !== undefined) names.push(node.name);
        for (const branch of node.branches) visit(branch);
      } else if (node.kind === 'repeat') visit([node.node]);
    }
  };
  for (const branch of pattern.branches) visit(branch);
  return names;
}

/**
 * Whether a named group's body is a run of one character class (`\w+`, `\S+?`, `[^\n>]+`):
 * the shape of a tool name or a parameter key. Its end is then wherever the next marker starts.
 */
export function isNameRun(node: PatternNode): boolean {
  if (node.kind !== 'group' || node.branches.length !== 1) return false;
  const body = node.branches[0] as readonly PatternNode[];
  return (
    body.length === 1 &&
    body[0]?.kind === 'repeat' &&
    body[0].node.kind === 'class' &&
    body[0].min >= 1 &&
    body[0].max === Number.POSITIVE_INFINITY
  );
}
