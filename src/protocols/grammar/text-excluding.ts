/**
 * Free text that holds none of some literals (a call opener, a reasoning closer), as grammar
 * rules: one rule per state of the literals' matching automaton (Aho–Corasick), each taking one
 * character to the next state, so the text is read in one pass and no occurrence can slip in.
 *
 * Character classes stay ASCII (xgrammar's WebAssembly build reads non-ASCII class members as
 * bytes): a literal is cut at its first non-ASCII character, which excludes more text (every
 * occurrence of the prefix), never less.
 */
import { literal } from './gbnf-text.ts';
import type { GrammarRules } from './grammar-rules.ts';

interface Node {
  readonly next: Map<string, number>;
  fail: number;
  /** Lengths of the literals that end here (its own and its suffixes'). */
  ends: number[];
}

/** The part of `text` before its first non-ASCII character. */
function asciiPrefix(text: string): string {
  let end = 0;
  while (end < text.length && text.charCodeAt(end) < 0x80) end++;
  return text.slice(0, end);
}

/** A character as a member of a class: escaped where a class needs it. */
function classMember(character: string): string {
  const code = character.charCodeAt(0);
  if (character === '\\' || character === ']' || character === '[') return `\\${character}`;
  if (character === '\n') return '\\n';
  if (character === '\r') return '\\r';
  if (character === '\t') return '\\t';
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  return character;
}

function isControl(character: string): boolean {
  const code = character.charCodeAt(0);
  return code < 0x20 || code === 0x7f;
}

/**
 * A class of `characters`, and `extra` (members already written as class text, such as
 * `"\\\x00-\x1f`), in an order both parsers read alike: `-` first (plain there), then printable
 * characters, then control characters as `\xHH`, then `extra`: xgrammar reads as many hex
 * digits as follow `\x`, so a `\xHH` may never stand before a hex digit (`\x7fA`).
 */
function characterClass(characters: readonly string[], negated: boolean, extra = ''): string {
  const printable = characters.filter((one) => one !== '-' && !isControl(one)).sort();
  const controls = characters.filter(isControl).sort();
  let members = [...printable, ...controls].map(classMember).join('');
  if (!negated && members.startsWith('^'))
    members = members.length > 1 ? `${members.slice(1)}^` : '\\x5e';
  const dash = characters.includes('-') ? '-' : '';
  return `[${negated ? '^' : ''}${dash}${members}${extra}]`;
}

/**
 * The text is the inside of a quoted string (a JSON string that must keep a closer out): some
 * characters never stand in it as they are (`others`, class text such as `"\\\x00-\x1f`), and
 * an escape sequence (`escape`, an expression) stands for a character instead. An escape goes
 * back to the automaton's start (see `checkEscapesClear`).
 */
export interface QuotedText {
  readonly others: string;
  readonly escape: string;
  /** The characters an escape sequence is written with, besides its backslash. */
  readonly escapeCharacters: string;
}

function buildAutomaton(literals: readonly string[]): Node[] {
  const nodes: Node[] = [{ next: new Map(), fail: 0, ends: [] }];
  for (const text of literals) {
    let at = 0;
    for (const character of text) {
      let to = nodes[at]?.next.get(character);
      if (to === undefined) {
        to = nodes.length;
        nodes.push({ next: new Map(), fail: 0, ends: [] });
        nodes[at]?.next.set(character, to);
      }
      at = to;
    }
    (nodes[at] as Node).ends.push(text.length);
  }
  // Breadth first, so a node's failure target is known before its children's.
  const queue = [...(nodes[0] as Node).next.values()];
  for (let head = 0; head < queue.length; head++) {
    const at = queue[head] as number;
    const node = nodes[at] as Node;
    node.ends = [...node.ends, ...(nodes[node.fail] as Node).ends];
    for (const [character, to] of node.next) {
      let fail = node.fail;
      while (fail !== 0 && !(nodes[fail] as Node).next.has(character))
        fail = (nodes[fail] as Node).fail;
      const target = (nodes[fail] as Node).next.get(character);
      (nodes[to] as Node).fail = target !== undefined && target !== to ? target : 0;
      queue.push(to);
    }
  }
  return nodes;
}

/** The state after `character` from `state`. */
function step(nodes: readonly Node[], state: number, character: string): number {
  let at = state;
  for (;;) {
    const to = (nodes[at] as Node).next.get(character);
    if (to !== undefined) return to;
    if (at === 0) return 0;
    at = (nodes[at] as Node).fail;
  }
}

/**
 * Whether text may end in `state` when `follow` comes right after it: no excluded literal may
 * begin inside the text and run into `follow` (it would then stand before `follow` does).
 */
function mayEndBefore(nodes: readonly Node[], state: number, follow: string): boolean {
  let at = state;
  let index = 0;
  for (const character of follow) {
    at = step(nodes, at, character);
    index++;
    if ((nodes[at] as Node).ends.some((length) => length > index)) return false;
  }
  return true;
}

/**
 * A rule for text (possibly empty) that holds none of `excluded`; `follow` is the literal that
 * comes right after the text in the grammar, if any (several: any of them may). `atLineStart`:
 * the text begins a line, so a literal that begins with a line break (a line opener, `\nNAME(`,
 * which a parser also reads at the output's start) may not stand at its very start without it.
 * Returns the rule's name.
 */
export function textExcluding(
  rules: GrammarRules,
  hint: string,
  excluded: readonly string[],
  follow: string | readonly string[] = '',
  quoted?: QuotedText,
  atLineStart = false,
): string {
  const cut = [...new Set(excluded.map(asciiPrefix).filter((text) => text.length > 0))];
  const follows = typeof follow === 'string' ? [follow] : follow;
  // Text without a literal is without every literal that holds it (`{"name"` in `[{"name"`):
  // those add states, not exclusions. Unless a follower could finish one begun in the text.
  const runsInto = (text: string) =>
    follows.some((after) =>
      [...text].some((_, index) => index > 0 && after.startsWith(text.slice(index))),
    );
  const literals = cut.filter(
    (text) => runsInto(text) || !cut.some((other) => other !== text && text.includes(other)),
  );
  if (literals.length === 0) throw new TypeError('textExcluding: nothing ASCII to exclude');
  if (quoted) checkEscapesClear(literals, quoted);
  const nodes = buildAutomaton(literals);
  const alphabet = [...new Set(literals.join(''))];
  const live = nodes.map((node) => node.ends.length === 0);
  // Rule names by state, reserved before any body refers to them.
  const names = new Map<number, string>();
  const seen = new Set<number>([0]);
  const pending = [0];
  const order: number[] = [];
  while (pending.length > 0) {
    const state = pending.shift() as number;
    order.push(state);
    for (const character of alphabet) {
      const to = step(nodes, state, character);
      if (live[to] && !seen.has(to)) {
        seen.add(to);
        pending.push(to);
      }
    }
  }
  // At a line start the text is read as if a line break stood before it.
  const lineStart = step(nodes, 0, '\n');
  const start = atLineStart && lineStart !== 0 && live[lineStart] ? lineStart : 0;
  const key = `text-${JSON.stringify([literals, follows, quoted ?? null])}`;
  const bodies = new Map<number, string>();
  const root = rules.defineRecursive(
    key,
    (rootName) => {
      names.set(0, rootName);
      for (const state of order) {
        if (state !== 0) names.set(state, rules.reserve(`${rootName}-${state}`));
      }
      for (const state of order) {
        // Characters of the alphabet by the state they lead to; every other one leads to the root.
        const byTarget = new Map<number, string[]>();
        for (const character of alphabet) {
          const to = step(nodes, state, character);
          if (!live[to]) continue;
          const list = byTarget.get(to) ?? [];
          list.push(character);
          byTarget.set(to, list);
        }
        const toRoot = new Set(byTarget.get(0) ?? []);
        const notToRoot = alphabet.filter((character) => !toRoot.has(character));
        const choices = [`${characterClass(notToRoot, true, quoted?.others)} ${rootName}`];
        if (quoted) choices.push(`${quoted.escape} ${rootName}`);
        for (const [to, characters] of byTarget) {
          if (to === 0) continue;
          const target = names.get(to) as string;
          choices.push(
            characters.length === 1
              ? `${literal(characters[0] as string)} ${target}`
              : `${characterClass(characters, false)} ${target}`,
          );
        }
        const body = choices.join(' | ');
        const canEnd = follows.every((text) => mayEndBefore(nodes, state, text));
        bodies.set(state, canEnd ? `( ${body} )?` : `( ${body} )`);
      }
      return bodies.get(0) as string;
    },
    hint,
  );
  // The other states' rules (named after the root's rule, defined once with it).
  for (const state of order) {
    if (state === 0 || !bodies.has(state)) continue;
    rules.defineNamed(names.get(state) as string, bodies.get(state) as string);
    bodies.delete(state);
  }
  if (names.size > 0) {
    const byKey = stateNames.get(rules) ?? new Map<string, ReadonlyMap<number, string>>();
    byKey.set(key, names);
    stateNames.set(rules, byKey);
  }
  return start === 0 ? root : (stateNames.get(rules)?.get(key)?.get(start) ?? root);
}

/** Each text rule's state rules by name, per grammar, for a later text that starts elsewhere. */
const stateNames = new WeakMap<GrammarRules, Map<string, ReadonlyMap<number, string>>>();

/**
 * Inside a quoted string an escape sequence leads back to the start: right only when no literal
 * holds a quote, a backslash or a control character (none stands raw in the string) or begins
 * with a character an escape is written with (then no escape can begin or continue an
 * occurrence). A literal that does is refused rather than let through.
 */
function checkEscapesClear(literals: readonly string[], quoted: QuotedText): void {
  for (const text of literals) {
    if (/["\\\x00-\x1f\x7f]/.test(text) || quoted.escapeCharacters.includes(text[0] as string))
      throw new TypeError(
        `textExcluding: ${JSON.stringify(text)} could begin inside an escape sequence`,
      );
  }
}
