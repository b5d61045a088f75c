/**
 * Pieces of grammar text in the subset both llama.cpp's GBNF parser and xgrammar's EBNF parser
 * read: literals with only the escapes both know (`\" \\ \n \r \t \xHH`), non-ASCII written as
 * itself, rule names of `[a-z0-9-]`.
 */

/** `text` as a quoted literal (`""` for the empty text). */
export function literal(text: string): string {
  let out = '"';
  for (const character of text) {
    const code = character.codePointAt(0) as number;
    if (character === '"') out += '\\"';
    else if (character === '\\') out += '\\\\';
    else if (character === '\n') out += '\\n';
    else if (character === '\r') out += '\\r';
    else if (character === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += character;
  }
  return `${out}"`;
}

/** A rule name from any text: lower-case letters, digits and `-` only, never empty. */
export function ruleName(hint: string): string {
  const name = hint
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return name === '' ? 'r' : name.slice(0, 48);
}

/** Alternatives as one expression, grouped when there is more than one. */
export function alternatives(choices: readonly string[]): string {
  const unique = [...new Set(choices)];
  return unique.length === 1 ? (unique[0] as string) : `( ${unique.join(' | ')} )`;
}
