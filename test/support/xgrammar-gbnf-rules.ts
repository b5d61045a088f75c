/**
 * What llama.cpp's GBNF parser refuses and xgrammar lets through, checked on a grammar's text:
 * rule names of `[A-Za-z0-9-]`, every rule defined, no `.`, no empty alternative, ASCII-only
 * character classes, escapes both parsers know, and no left recursion (through rules that may
 * be empty, as llama.cpp's check walks them). Returns the problems found.
 */
type Item =
  | { readonly kind: 'terminal'; readonly nullable: boolean }
  | { readonly kind: 'ref'; readonly name: string }
  | { readonly kind: 'group'; readonly alternatives: Quantified[][] };

interface Quantified {
  readonly item: Item;
  readonly optional: boolean;
}

export function gbnfProblems(text: string): string[] {
  const problems: string[] = [];
  const rules = new Map<string, Quantified[][]>();
  const referred = new Set<string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^([^ ]+) ::= (.*)$/.exec(line);
    if (!match) {
      problems.push(`not a rule: ${line.slice(0, 60)}`);
      continue;
    }
    const [, name = '', body = ''] = match;
    if (!/^[A-Za-z0-9-]+$/.test(name)) problems.push(`rule name ${name}`);
    let at = 0;
    const alternatives = (): Quantified[][] => {
      const all: Quantified[][] = [[]];
      for (;;) {
        while (body[at] === ' ') at++;
        const character = body[at];
        if (character === undefined || character === ')') break;
        if (character === '|') {
          at++;
          all.push([]);
          continue;
        }
        let item: Item;
        if (character === '"') {
          let end = at + 1;
          let empty = true;
          while (body[end] !== '"') {
            if (body[end] === '\\') {
              if (!/[nrt"\\x]/.test(body[end + 1] ?? ''))
                problems.push(`escape \\${body[end + 1]}`);
              end++;
            }
            end++;
            empty = false;
          }
          at = end + 1;
          item = { kind: 'terminal', nullable: empty };
        } else if (character === '[') {
          let end = at + 1;
          while (body[end] !== ']') {
            if (body[end] === '\\') end++;
            if ((body.codePointAt(end) ?? 0) > 0x7f) problems.push('non-ASCII class member');
            end++;
          }
          at = end + 1;
          item = { kind: 'terminal', nullable: false };
        } else if (character === '(') {
          at++;
          item = { kind: 'group', alternatives: alternatives() };
          at++;
        } else if (character === '.') {
          problems.push('"." in a rule');
          at++;
          continue;
        } else {
          const word = /^[^ ()|?*+{]+/.exec(body.slice(at))?.[0] ?? '';
          if (word === '') {
            problems.push(`unexpected ${character} in ${name}`);
            at++;
            continue;
          }
          at += word.length;
          item = { kind: 'ref', name: word };
          referred.add(word);
        }
        let optional = false;
        const next = body[at];
        if (next === '?' || next === '*') {
          optional = true;
          at++;
        } else if (next === '+') at++;
        else if (next === '{') {
          const end = body.indexOf('}', at);
          const bounds = body.slice(at + 1, end);
          if (!/^\d+(,\d*)?$/.test(bounds)) problems.push(`repetition {${bounds}}`);
          optional = bounds.startsWith('0');
          at = end + 1;
        }
        (all.at(-1) as Quantified[]).push({ item, optional });
      }
      for (const one of all) if (one.length === 0) problems.push(`empty alternative in ${name}`);
      return all;
    };
    rules.set(name, alternatives());
  }
  if (!rules.has('root')) problems.push('no root rule');
  for (const name of referred) if (!rules.has(name)) problems.push(`undefined rule ${name}`);
  // Nullable rules, to a fixed point.
  const nullable = new Set<string>();
  const itemNullable = (item: Item): boolean =>
    item.kind === 'terminal'
      ? item.nullable
      : item.kind === 'ref'
        ? nullable.has(item.name)
        : item.alternatives.some((one) => one.every((q) => q.optional || itemNullable(q.item)));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, body] of rules) {
      if (nullable.has(name)) continue;
      if (body.some((one) => one.every((q) => q.optional || itemNullable(q.item)))) {
        nullable.add(name);
        changed = true;
      }
    }
  }
  // The rules each rule may begin with.
  const leftmost = new Map<string, Set<string>>();
  const collect = (sequence: readonly Quantified[], into: Set<string>) => {
    for (const { item, optional } of sequence) {
      if (item.kind === 'ref') {
        into.add(item.name);
      } else if (item.kind === 'group') for (const one of item.alternatives) collect(one, into);
      if (!optional && !itemNullable(item)) break;
    }
  };
  for (const [name, body] of rules) {
    const into = new Set<string>();
    for (const one of body) collect(one, into);
    leftmost.set(name, into);
  }
  for (const name of rules.keys()) {
    const seen = new Set<string>();
    const stack = [...(leftmost.get(name) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      if (next === name) {
        problems.push(`left recursion through ${name}`);
        break;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(leftmost.get(next) ?? []));
    }
  }
  return [...new Set(problems)];
}
