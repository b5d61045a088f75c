/**
 * The text of a TypeScript file's string and template literals, with comments left out: what a
 * program can show a user (error messages, help texts), as opposed to what only its readers see.
 * A small scanner, not a parser: it knows quotes, templates (with `${…}` nested to any depth),
 * comments and regular-expression literals, which is all it takes to tell them apart.
 */

/** Words after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

const isWordChar = (char: string | undefined) => char !== undefined && /[\w$]/.test(char);

/** After a value (a name, a number, a literal, `)` or `]`) a `/` divides. */
function divisionMayFollow(previous: string): boolean {
  if (previous === 'literal' || previous === ')' || previous === ']') return true;
  return isWordChar(previous[0]) && !BEFORE_REGEX.has(previous);
}

export function stringLiteralsOf(source: string): string[] {
  const literals: string[] = [];
  /** For each open template expression, the brace depth at which it closes. */
  const templateExits: number[] = [];
  let depth = 0;
  /** The last thing that was not space or a comment: a punctuator, or a whole word. */
  let previous = '';
  let i = 0;

  /** Reads a template's text from `i` (just past "`" or "}") up to its end or next "${". */
  const readTemplatePart = () => {
    let text = '';
    while (i < source.length) {
      const char = source[i]!;
      if (char === '\\') {
        text += source.slice(i, i + 2);
        i += 2;
      } else if (char === '`') {
        i += 1;
        previous = 'literal';
        break;
      } else if (char === '$' && source[i + 1] === '{') {
        i += 2;
        templateExits.push(depth);
        depth += 1;
        previous = '{';
        break;
      } else {
        text += char;
        i += 1;
      }
    }
    literals.push(text);
  };

  while (i < source.length) {
    const char = source[i]!;
    const next = source[i + 1];
    if (/\s/.test(char)) {
      i += 1;
    } else if (char === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 2;
    } else if (char === '"' || char === "'") {
      let text = '';
      i += 1;
      while (i < source.length && source[i] !== char && source[i] !== '\n') {
        text += source[i] === '\\' ? source.slice(i, i + 2) : source[i];
        i += source[i] === '\\' ? 2 : 1;
      }
      i += 1;
      literals.push(text);
      previous = 'literal';
    } else if (char === '`') {
      i += 1;
      readTemplatePart();
    } else if (char === '}' && templateExits.at(-1) === depth - 1) {
      templateExits.pop();
      depth -= 1;
      i += 1;
      readTemplatePart();
    } else if (char === '/' && !divisionMayFollow(previous)) {
      // A regular expression: skip it, classes (where `/` does not end it) and escapes included.
      let inClass = false;
      i += 1;
      while (i < source.length && source[i] !== '\n') {
        const c = source[i]!;
        if (c === '\\') i += 1;
        else if (c === '[') inClass = true;
        else if (c === ']') inClass = false;
        else if (c === '/' && !inClass) break;
        i += 1;
      }
      i += 1;
      while (isWordChar(source[i])) i += 1;
      previous = 'literal';
    } else if (isWordChar(char)) {
      const start = i;
      while (isWordChar(source[i])) i += 1;
      previous = source.slice(start, i);
    } else {
      if (char === '{') depth += 1;
      if (char === '}') depth -= 1;
      previous = char;
      i += 1;
    }
  }
  return literals.filter((text) => text.length > 0);
}
