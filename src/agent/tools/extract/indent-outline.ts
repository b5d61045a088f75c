import { type Definition, qualify, type RawDefinition } from './outline.ts';

/**
 * The outline of a file in a language without a built-in grammar here (Python, Go, Rust, Ruby,
 * Java, …), by a documented indentation rule:
 * - a definition starts on a line whose first word, after modifiers such as `export`, `pub`,
 *   `public`, `static` or `async`, is one of def, class, func, fn, function, fun, struct, enum,
 *   trait, interface, impl, module, object, type, record, sub or proc, followed by its name
 *   (a Go receiver `func (s *Server) Name` is skipped over);
 * - it goes on over blank lines and lines indented more than it, and over lines at its own
 *   indentation that start with `)`, `]`, `}` or `end` (closing brackets, a Python signature
 *   spread over lines, Ruby's `end`); it stops at the first other line at its indentation or
 *   less; trailing blank lines are not part of it;
 * - decorators and comments (`@`, `#`, `//`, `/*`, `*`) right above it at its indentation are
 *   shown with it.
 * Code that breaks indentation (e.g. a multi-line string at column 0) can end a block early.
 */

const MODIFIERS =
  '(?:(?:export|default|pub(?:\\([^)]*\\))?|public|private|protected|internal|static|async|' +
  'abstract|final|override|virtual|unsafe|extern|inline|open|data|sealed|partial)\\s+)*';
const KEYWORDS =
  'def|class|func|fn|function|fun|struct|enum|trait|interface|impl|module|object|type|record|sub|proc';
const DEFINITION = new RegExp(
  `^(\\s*)${MODIFIERS}(${KEYWORDS})(?:<[^>]*>)?\\s+(?:\\([^)]*\\)\\s*)?([A-Za-z_$][\\w$]*)`,
);
const CLOSER = /^\s*(?:[)\]}]|end\b)/;
const LEADING = /^\s*(?:@|#|\/\/|\/\*|\*)/;

const FUNCTION_KEYWORDS = new Set(['def', 'func', 'fn', 'function', 'fun', 'sub', 'proc']);

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Index (0-based) of the last line of the block starting at `first`. */
function blockEnd(lines: readonly string[], first: number): number {
  const indent = indentOf(lines[first]!);
  let end = first;
  for (let index = first + 1; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    const lineIndent = indentOf(line);
    if (lineIndent > indent || (lineIndent === indent && CLOSER.test(line))) end = index;
    else break;
  }
  return end;
}

/** Index of the first decorator or comment line right above `first` at its indentation. */
function leadingStart(lines: readonly string[], first: number): number {
  const indent = indentOf(lines[first]!);
  let start = first;
  for (let index = first - 1; index >= 0; index -= 1) {
    const line = lines[index]!;
    const lineIndent = indentOf(line);
    // `+ 1`: the ` * ` lines of a `/** … */` comment are indented by one more space.
    if (line.trim() === '' || lineIndent < indent || lineIndent > indent + 1) break;
    if (!LEADING.test(line) || line.trimStart().startsWith('#!')) break;
    start = index;
  }
  return start;
}

export function indentOutline(lines: readonly string[]): Definition[] {
  const raw: RawDefinition[] = [];
  lines.forEach((line, index) => {
    const match = DEFINITION.exec(line);
    if (match === null) return;
    const keyword = match[2]!;
    const end = blockEnd(lines, index);
    raw.push({
      name: match[3]!,
      kind: FUNCTION_KEYWORDS.has(keyword) ? 'function' : keyword,
      start: leadingStart(lines, index) + 1,
      end: end + 1,
      coreStart: index + 1,
      coreEnd: end + 1,
    });
  });
  return qualify(raw, true);
}
