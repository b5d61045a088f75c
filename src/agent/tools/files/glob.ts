import { InvalidToolInputError } from '../errors.ts';

/**
 * A glob, compiled to a test on `/`-separated relative paths:
 * `*` any characters but `/`, `?` one such character, `**` any number of folders,
 * `[abc]`/`[a-z]`/`[!abc]` one character from (or not from) a set, `{a,b}` alternatives.
 * A glob without `/` is tested against file names (so `*.ts` finds every TypeScript file, at any
 * depth); a glob with `/` is tested against the whole relative path. Case-sensitive.
 */
export function compileGlob(glob: string, parameter: string): (path: string) => boolean {
  const trimmed = glob.trim().replace(/^\.\//, '');
  let regex: RegExp;
  try {
    regex = new RegExp(`^${translate(trimmed, parameter, glob)}$`);
  } catch (error) {
    if (error instanceof InvalidToolInputError) throw error;
    throw invalid(parameter, glob, 'a character set in it is malformed');
  }
  if (!trimmed.includes('/')) {
    return (path) => regex.test(path.slice(path.lastIndexOf('/') + 1));
  }
  return (path) => regex.test(path);
}

function escapeChar(char: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(char) ? `\\${char}` : char;
}

function translate(glob: string, parameter: string, original: string): string {
  let out = '';
  let braces = 0;
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index]!;
    if (char === '*') {
      if (glob[index + 1] === '*') {
        const atStart = index === 0 || glob[index - 1] === '/';
        const slashAfter = glob[index + 2] === '/';
        index += 1;
        if (atStart && slashAfter) {
          out += '(?:[^/]*/)*'; // `**/`: zero or more folders
          index += 1;
        } else {
          out += '.*';
        }
      } else {
        out += '[^/]*';
      }
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const close = glob.indexOf(']', index + 2);
      if (close === -1) throw invalid(parameter, original, 'a "[" has no closing "]"');
      let set = glob.slice(index + 1, close);
      const negated = set.startsWith('!') || set.startsWith('^');
      if (negated) set = set.slice(1);
      out += `[${negated ? '^' : ''}${set.replaceAll('\\', '\\\\').replaceAll('[', '\\[')}]`;
      index = close;
    } else if (char === '{') {
      braces += 1;
      out += '(?:';
    } else if (char === '}' && braces > 0) {
      braces -= 1;
      out += ')';
    } else if (char === ',' && braces > 0) {
      out += '|';
    } else if (char === '\\' && index + 1 < glob.length) {
      index += 1;
      out += escapeChar(glob[index]!);
    } else {
      out += escapeChar(char);
    }
  }
  if (braces > 0) throw invalid(parameter, original, 'a "{" has no closing "}"');
  return out;
}

function invalid(parameter: string, glob: string, reason: string): InvalidToolInputError {
  return new InvalidToolInputError(
    parameter,
    `${parameter} ${JSON.stringify(glob)} is not a valid glob: ${reason}.`,
  );
}
