/**
 * A file's outline: its named definitions (functions, classes, methods, …) with their line
 * ranges. Built structurally (ast-outline.ts) or by indentation (indent-outline.ts); `extract`
 * looks symbols and enclosing blocks up in it the same way for both.
 */

/** One named definition. Lines are 1-based and inclusive. */
export interface Definition {
  /** Its own name, e.g. `login`. */
  readonly name: string;
  /** Its name inside the definitions containing it, e.g. `AuthService.login`. */
  readonly qualified: string;
  /** What it is, in a word: function, class, method, … */
  readonly kind: string;
  /** First line shown: includes leading comments, decorators and `export`. */
  readonly start: number;
  readonly end: number;
}

/** A definition before its qualified name is known. */
export interface RawDefinition {
  readonly name: string;
  readonly kind: string;
  readonly start: number;
  readonly end: number;
  /** The lines used to decide what contains what (the definition itself, without comments). */
  readonly coreStart: number;
  readonly coreEnd: number;
}

/**
 * Names each definition after the definitions that contain it (`Outer.inner`), unless
 * `nested` is false (HTML ids and CSS selectors are names of their own).
 */
export function qualify(raw: readonly RawDefinition[], nested: boolean): Definition[] {
  if (!nested) {
    return raw.map(({ name, kind, start, end }) => ({ name, qualified: name, kind, start, end }));
  }
  // Stable: definitions on the same lines keep document order (outer first).
  const sorted = [...raw].sort((a, b) => a.coreStart - b.coreStart || b.coreEnd - a.coreEnd);
  const open: { readonly end: number; readonly qualified: string }[] = [];
  const result: Definition[] = [];
  for (const item of sorted) {
    while (open.length > 0 && open.at(-1)!.end < item.coreStart) open.pop();
    const parent = open.at(-1);
    const qualified = parent === undefined ? item.name : `${parent.qualified}.${item.name}`;
    result.push({ name: item.name, qualified, kind: item.kind, start: item.start, end: item.end });
    open.push({ end: item.coreEnd, qualified });
  }
  return result;
}

/**
 * The definitions a symbol names: those whose qualified name is the symbol, or else those whose
 * qualified name ends with it (`login` finds `AuthService.login` when nothing else is `login`).
 */
export function findSymbol(outline: readonly Definition[], symbol: string): Definition[] {
  if (symbol === '') return [];
  const exact = outline.filter((item) => item.qualified === symbol);
  if (exact.length > 0) return exact;
  return outline.filter((item) => item.qualified.endsWith(`.${symbol}`));
}

/**
 * The innermost definition of more than one line whose lines include `line` (so a line on a
 * one-line field gives its class), or else the innermost one-line definition there.
 */
export function enclosing(outline: readonly Definition[], line: number): Definition | undefined {
  let best: Definition | undefined;
  let bestOneLine: Definition | undefined;
  for (const item of outline) {
    if (item.start > line || item.end < line) continue;
    if (item.start === item.end) bestOneLine ??= item;
    else if (best === undefined || item.end - item.start < best.end - best.start) best = item;
  }
  return best ?? bestOneLine;
}

/** The symbol names to suggest when a lookup fails (first ones, in file order). */
export function symbolNames(outline: readonly Definition[], limit = 40): string[] {
  const names = [...new Set(outline.map((item) => item.qualified).filter((name) => name !== ''))];
  return names.length > limit ? [...names.slice(0, limit), '…'] : names;
}
