import { Lang, parse, type SgNode } from '../ast-grep.ts';
import { type Definition, qualify, type RawDefinition } from './outline.ts';

/** Kinds of TypeScript/JavaScript nodes that define a name, and how to call them. */
const SCRIPT_DEFINITIONS: { readonly [kind: string]: string } = {
  function_declaration: 'function',
  generator_function_declaration: 'function',
  function_signature: 'function signature',
  class_declaration: 'class',
  abstract_class_declaration: 'class',
  method_definition: 'method',
  method_signature: 'method signature',
  abstract_method_signature: 'method signature',
  interface_declaration: 'interface',
  type_alias_declaration: 'type',
  enum_declaration: 'enum',
  internal_module: 'namespace',
  module: 'module',
  variable_declarator: 'variable',
  export_statement: 'default export',
  public_field_definition: 'field',
  field_definition: 'field',
};

const FUNCTION_VALUES = new Set([
  'arrow_function',
  'function_expression',
  'function',
  'generator_function',
]);

/** Nodes shown with a definition when they sit right above it. */
const LEADING_KINDS = new Set(['comment', 'decorator']);

const HTML_ELEMENTS = ['element', 'script_element', 'style_element'];
const CSS_BLOCKS = ['rule_set', 'media_statement', 'keyframes_statement', 'supports_statement'];

const validKindsCache = new Map<Lang, readonly string[]>();

/** The kinds the grammar knows (ast-grep rejects a rule naming an unknown kind). */
function validKinds(lang: Lang, kinds: readonly string[]): readonly string[] {
  const cached = validKindsCache.get(lang);
  if (cached !== undefined) return cached;
  const empty = parse(lang, '').root();
  const valid = kinds.filter((kind) => {
    try {
      empty.findAll({ rule: { kind } });
      return true;
    } catch {
      return false;
    }
  });
  validKindsCache.set(lang, valid);
  return valid;
}

function anyKind(kinds: readonly string[]) {
  return { rule: { any: kinds.map((kind) => ({ kind })) } };
}

/** The node's kind as a plain string (the static types of the grammars are not used here). */
function kindOf(node: SgNode): string {
  return String(node.kind());
}

/** 1-based first and last line of a node, not counting white space it ends with. */
function linesOf(node: SgNode): { start: number; end: number } {
  const start = node.range().start.line + 1;
  // Some nodes (an HTML void element) take in the white space after them.
  const text = node.text().trimEnd();
  let newlines = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    newlines += 1;
  }
  return { start, end: start + newlines };
}

/** The first line of `node` counting comments and decorators right above it. */
function leadingStart(node: SgNode): number {
  let start = linesOf(node).start;
  let previous = node.prev();
  while (previous !== null && LEADING_KINDS.has(kindOf(previous))) {
    const lines = linesOf(previous);
    if (lines.end < start - 1) break;
    start = lines.start;
    previous = previous.prev();
  }
  return start;
}

/** The statement to show for a definition: with its `const`/`let` and its `export`. */
function shownNode(node: SgNode): SgNode {
  let shown = node;
  const parent = shown.parent();
  if (kindOf(node) === 'variable_declarator' && parent !== null) shown = parent;
  const outer = shown.parent();
  if (outer !== null && kindOf(outer) === 'export_statement') shown = outer;
  return shown;
}

function isTopLevel(statement: SgNode): boolean {
  const parent = statement.parent();
  if (parent === null || kindOf(parent) === 'program') return true;
  const grandparent = parent.parent();
  return (
    kindOf(parent) === 'export_statement' &&
    grandparent !== null &&
    kindOf(grandparent) === 'program'
  );
}

/** For `export default <anonymous function or class>`: "function" or "class". */
function defaultExported(statement: SgNode): string | undefined {
  const children = statement.children().filter((child) => kindOf(child) !== ';');
  if (!children.some((child) => kindOf(child) === 'default')) return undefined;
  const last = children.at(-1);
  const lastKind = last === undefined ? '' : kindOf(last);
  if (FUNCTION_VALUES.has(lastKind)) return 'function';
  return lastKind === 'class' ? 'class' : undefined;
}

function scriptOutline(lang: Lang, source: string): RawDefinition[] {
  const root = parse(lang, source).root();
  const kinds = validKinds(lang, Object.keys(SCRIPT_DEFINITIONS));
  const raw: RawDefinition[] = [];
  for (const node of root.findAll(anyKind(kinds))) {
    const nodeKind = kindOf(node);
    let kind = SCRIPT_DEFINITIONS[nodeKind] ?? 'definition';
    const value = node.field('value');
    if (nodeKind === 'variable_declarator' || nodeKind.endsWith('field_definition')) {
      const valueKind = value === null ? undefined : kindOf(value);
      if (valueKind !== undefined && FUNCTION_VALUES.has(valueKind)) kind = 'function';
      else if (valueKind === 'class') kind = 'class';
      // Plain local variables are not definitions worth naming; module-level ones are.
      else if (nodeKind === 'variable_declarator' && !isTopLevel(node.parent() ?? node)) continue;
    }
    let name: string;
    if (nodeKind === 'export_statement') {
      // Only `export default` of an anonymous function or class, which is named "default".
      const exported = defaultExported(node);
      if (exported === undefined) continue;
      kind = exported;
      name = 'default';
    } else {
      const nameNode = node.field('name') ?? node.field('property');
      if (nameNode === null) continue;
      name = nameNode.text();
    }
    const shown = shownNode(node);
    const core = linesOf(node);
    raw.push({
      name,
      kind,
      start: leadingStart(shown),
      end: linesOf(shown).end,
      coreStart: core.start,
      coreEnd: core.end,
    });
  }
  return raw;
}

/** The id of an HTML element, if it has one. */
function htmlId(element: SgNode): string | undefined {
  const tag = element.children().find((child) => kindOf(child).endsWith('tag'));
  for (const attribute of tag?.children() ?? []) {
    if (kindOf(attribute) !== 'attribute') continue;
    const parts = attribute.children();
    if (parts[0]?.text() !== 'id') continue;
    const value = parts.find((part) => kindOf(part).endsWith('attribute_value'));
    const inner = value?.children().find((part) => kindOf(part) === 'attribute_value');
    return (inner ?? value)?.text();
  }
  return undefined;
}

function htmlOutline(source: string): RawDefinition[] {
  const root = parse(Lang.Html, source).root();
  return root.findAll(anyKind(HTML_ELEMENTS)).map((element) => {
    const lines = linesOf(element);
    const tag = element.find({ rule: { kind: 'tag_name' } })?.text() ?? kindOf(element);
    // Elements without an id have no name: they only serve as enclosing blocks.
    return {
      name: htmlId(element) ?? '',
      kind: `<${tag}> element`,
      start: leadingStart(element),
      end: lines.end,
      coreStart: lines.start,
      coreEnd: lines.end,
    };
  });
}

function cssOutline(source: string): RawDefinition[] {
  const root = parse(Lang.Css, source).root();
  const raw: RawDefinition[] = [];
  for (const block of root.findAll(anyKind(CSS_BLOCKS))) {
    const lines = linesOf(block);
    const common = {
      start: leadingStart(block),
      end: lines.end,
      coreStart: lines.start,
      coreEnd: lines.end,
    };
    const selectors =
      kindOf(block) === 'rule_set' ? (block.field('selectors') ?? block.child(0)) : null;
    const names =
      selectors === null
        ? ['']
        : selectors
            .text()
            .split(',')
            .map((selector) => selector.trim().replace(/\s+/g, ' '));
    for (const name of names) raw.push({ name, kind: kindOf(block).replace('_', ' '), ...common });
  }
  return raw;
}

/** The outline of a file in a language ast-grep has a built-in grammar for. */
export function astOutline(lang: Lang, source: string): Definition[] {
  if (lang === Lang.Html) return qualify(htmlOutline(source), false);
  if (lang === Lang.Css) return qualify(cssOutline(source), false);
  return qualify(scriptOutline(lang, source), true);
}
