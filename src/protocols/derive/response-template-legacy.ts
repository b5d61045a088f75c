/**
 * A legacy `response_schema` (transformers 5.0–5.12: JSON Schema whose nodes carry `x-regex`,
 * `x-regex-iterator`, `x-regex-key-value`, `x-parser`) translated into the region template of
 * response-template.ts, which then reads it. A legacy schema is evaluated on the whole finished
 * text; toolwire reads only what a stream can follow:
 *
 * - the top-level `x-regex` is scanned, never run: the literal markers standing nearest around
 *   its `reasoning_content` (or `thinking`) group become the reasoning block, and a final
 *   `(?:LITERAL|$)` ends the content (framing, dropped);
 * - `tool_calls.x-regex-iterator` must be `OPEN\s*(.+?)\s*CLOSE`: the call's markers;
 * - each item is JSON (`x-parser: json`, with the transform `{type: 'function', function: @}`),
 *   or parameter tags (the name by `x-regex`, the arguments by `x-regex-key-value`).
 *
 * Text rewriting (`x-regex-substitutions`, `x-mapping-regex`), other JMESPath transforms and
 * other fields are refused by name.
 */
import { ResponseTemplateError } from './response-template-error.ts';
import {
  isNameRun,
  isOptionalSpace,
  markerOfNodes,
  type PatternNode,
  parsePattern,
  trimSpace,
} from './response-template-pattern.ts';

const REASONING_PROPERTIES = ['reasoning_content', 'thinking', 'reasoning'];
/** The one JMESPath transform read: the parsed call object is the call's `function`. */
const FUNCTION_TRANSFORM = "{type:'function',function:@}";

const REWRITING_KEYS: Readonly<Record<string, string>> = {
  'x-regex-substitutions':
    'rewrites the output before it is read; toolwire reads the output as the model wrote it, as it streams',
  'x-mapping-regex': 'rewrites values by regular expression after they are read',
  'x-mapping': 'renames values after they are read',
};

/** Whether `json` looks like a legacy response schema. */
export function isLegacySchema(json: Record<string, unknown>): boolean {
  return 'x-regex' in json || 'properties' in json || 'x-regex-iterator' in json;
}

/** The region template a legacy schema stands for (refusing what a stream cannot follow). */
export function templateFromLegacySchema(
  schema: Record<string, unknown>,
  prefix: string,
): Record<string, unknown> {
  refuseRewriting(schema, prefix);
  const properties = record(schema.properties);
  if (properties === undefined) {
    throw new ResponseTemplateError(`${prefix}properties`, 'missing: the message fields');
  }
  const fields: Record<string, unknown> = {};
  const topRegex = typeof schema['x-regex'] === 'string' ? schema['x-regex'] : undefined;
  const scanned =
    topRegex === undefined
      ? undefined
      : parsePattern(topRegex, `${prefix}x-regex`, { keepAssertions: true });
  for (const [key, value] of Object.entries(properties)) {
    const path = `${prefix}properties.${key}`;
    const property = record(value) ?? {};
    if (key === 'role') continue;
    refuseRewriting(property, `${path}.`);
    if (REASONING_PROPERTIES.includes(key)) {
      if (!scanned) throw new ResponseTemplateError(path, 'needs the top-level `x-regex` group');
      fields[key] = reasoningField(scanned.branches, key, `${prefix}x-regex`);
    } else if (key === 'content') {
      const close = scanned ? contentEnd(scanned.branches) : [];
      fields.content = close.length > 0 ? { close } : {};
    } else if (key === 'tool_calls') {
      fields.tool_calls = toolCallsField(property, path);
    } else {
      throw new ResponseTemplateError(
        path,
        'is not read: toolwire reads reasoning, `content` and `tool_calls`',
      );
    }
  }
  return { start_anchor_pattern: '\\A', fields };
}

function refuseRewriting(node: Record<string, unknown>, prefix: string): void {
  for (const [key, why] of Object.entries(REWRITING_KEYS)) {
    if (key in node) throw new ResponseTemplateError(`${prefix}${key}`, `is not read: it ${why}`);
  }
}

/** A node's path from the pattern's top: each level's sequence and the index in it. */
type Trail = { readonly nodes: readonly PatternNode[]; readonly index: number }[];

function findGroup(
  branches: readonly (readonly PatternNode[])[],
  name: string,
  trail: Trail,
): Trail | undefined {
  for (const nodes of branches) {
    for (const [index, node] of nodes.entries()) {
      const here = [...trail, { nodes, index }];
      if (node.kind === 'group') {
        if (node.name === name) return here;
        const found = findGroup(node.branches, name, here);
        if (found) return found;
      } else if (node.kind === 'repeat' && node.node.kind === 'group') {
        if (node.node.name === name) return here;
        const found = findGroup(node.node.branches, name, here);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/** The reasoning block around the named group: the nearest literal markers before and after. */
function reasoningField(
  branches: readonly (readonly PatternNode[])[],
  name: string,
  path: string,
): Record<string, unknown> {
  const trail = findGroup(branches, name, []);
  if (trail === undefined) {
    throw new ResponseTemplateError(path, `has no \`(?P<${name}>…)\` group for the field`);
  }
  const open = nearestMarker(trail, -1);
  const close = nearestMarker(trail, 1);
  if (open === undefined || close === undefined) {
    throw new ResponseTemplateError(
      path,
      `has no literal marker ${open === undefined ? 'before' : 'after'} the \`${name}\` group: reasoning needs literal markers`,
    );
  }
  return { open, close };
}

/** The first marker met walking from the trail's node in `direction`, level by level outward. */
function nearestMarker(trail: Trail, direction: -1 | 1): string | undefined {
  for (let level = trail.length - 1; level >= 0; level--) {
    const { nodes, index } = trail[level] as Trail[number];
    let run = '';
    for (let at = index + direction; at >= 0 && at < nodes.length; at += direction) {
      const node = nodes[at] as PatternNode;
      if (node.kind === 'literal') {
        run = direction === 1 ? run + node.text : node.text + run;
        continue;
      }
      if (run.trim() !== '') return run.trim();
      run = '';
      if (node.kind === 'repeat' && node.min === 0 && node.max === 1) {
        // An optional marker (`(?:<think>\n?)?`): its literal, the generation prompt may have written it.
        const literal = optionalMarker(node.node);
        if (literal !== undefined) return literal;
        continue;
      }
      if (isOptionalSpace(node) || node.kind === 'opaque' || node.kind === 'class') continue;
      break;
    }
    if (run.trim() !== '') return run.trim();
  }
  return undefined;
}

function optionalMarker(node: PatternNode): string | undefined {
  if (node.kind !== 'group' || node.name !== undefined) return undefined;
  try {
    const literals = markerOfNodes(node.branches.length === 1 ? (node.branches[0] ?? []) : [], '');
    const trimmed = new Set(literals.literals.map((literal) => literal.trim()));
    trimmed.delete('');
    return trimmed.size === 1 ? [...trimmed][0] : undefined;
  } catch {
    return undefined;
  }
}

/** A final `(?:LITERAL|$)` of the whole-text regex: what ends the message (framing). */
function contentEnd(branches: readonly (readonly PatternNode[])[]): string[] {
  if (branches.length !== 1) return [];
  const nodes = trimSpace(branches[0] ?? []);
  const last = nodes[nodes.length - 1];
  if (last?.kind !== 'group' || last.name !== undefined) return [];
  const literals: string[] = [];
  for (const branch of last.branches) {
    if (branch.length === 1 && branch[0]?.kind === 'end') continue;
    try {
      literals.push(...markerOfNodes(branch, '').literals);
    } catch {
      return [];
    }
  }
  return literals;
}

/** `tool_calls`: the iterator's markers, and the items as JSON calls or parameter tags. */
function toolCallsField(property: Record<string, unknown>, path: string): Record<string, unknown> {
  const iteratorPath = `${path}.x-regex-iterator`;
  const iterator = property['x-regex-iterator'];
  if (typeof iterator !== 'string') {
    throw new ResponseTemplateError(iteratorPath, 'missing: the pattern of one call');
  }
  const items = record(property.items) ?? {};
  refuseRewriting(items, `${path}.items.`);
  const { open, close } = iteratorMarkers(iterator, iteratorPath);
  if (items['x-parser'] !== undefined) {
    const parserPath = `${path}.items.x-parser`;
    if (items['x-parser'] !== 'json') {
      throw new ResponseTemplateError(parserPath, 'is read only as `json`');
    }
    const args = record(items['x-parser-args']) ?? {};
    const transform = args.transform;
    if (typeof transform !== 'string' || transform.replace(/\s+/g, '') !== FUNCTION_TRANSFORM) {
      throw new ResponseTemplateError(
        `${path}.items.x-parser-args.transform`,
        `is not read: the one JMESPath transform read is \`{type: 'function', function: @}\``,
        transform === undefined ? undefined : `\`${String(transform)}\``,
      );
    }
    return {
      open,
      close,
      content: 'json',
      transform: { type: 'function', function: '{content}' },
    };
  }
  const call = record(record(record(items.properties)?.function)?.properties);
  const name = record(call?.name);
  const args = record(call?.arguments);
  const namePattern = name?.['x-regex'];
  const keyValue = args?.['x-regex-key-value'] ?? args?.['x-regex-to-dict'];
  if (typeof namePattern !== 'string' || typeof keyValue !== 'string') {
    throw new ResponseTemplateError(
      `${path}.items`,
      'is read as JSON (`x-parser: json`) or as parameter tags (`function.name.x-regex` and `function.arguments.x-regex-key-value`)',
    );
  }
  return {
    open_pattern:
      escapeLiteral(open) +
      nameOpener(namePattern, `${path}.items.properties.function.properties.name.x-regex`),
    close,
    content: 'xml-inline',
    content_args: { tag_pattern: keyValue },
    transform: { type: 'function', function: { name: '{name}', arguments: '{content}' } },
  };
}

/** `OPEN\s*(.+?)\s*CLOSE` → the literals. */
function iteratorMarkers(source: string, path: string): { open: string; close: string } {
  const pattern = parsePattern(source, path);
  const nodes = pattern.branches.length === 1 ? (pattern.branches[0] ?? []) : [];
  const groupAt = nodes.findIndex((node) => node.kind === 'group');
  const group = nodes[groupAt];
  const body =
    group?.kind === 'group' && group.branches.length === 1 ? group.branches[0] : undefined;
  const anyText =
    body?.length === 1 &&
    body[0]?.kind === 'repeat' &&
    body[0].node.kind === 'class' &&
    (body[0].node.source === '.' || body[0].node.source === '[\\s\\S]');
  if (!anyText || groupAt <= 0 || groupAt === nodes.length - 1) {
    throw new ResponseTemplateError(
      path,
      'is read only as `OPEN\\s*(.+?)\\s*CLOSE` (literal markers outside one group of any text)',
      `\`${source}\``,
    );
  }
  const open = markerOfNodes(trimSpace(nodes.slice(0, groupAt)), path).literals;
  const close = markerOfNodes(trimSpace(nodes.slice(groupAt + 1)), path).literals;
  if (open.length !== 1 || close.length !== 1) {
    throw new ResponseTemplateError(path, 'must have one literal marker on each side');
  }
  return { open: open[0] as string, close: close[0] as string };
}

/**
 * The name's pattern as the rest of a region opener: `<function=([^\n>]+)>` → `\s*<function=
 * (?P<name>[^\n>]+)>`; `^(\S+)` (the name right after the call's opener) → `(?P<name>\S+)`.
 */
function nameOpener(source: string, path: string): string {
  const pattern = parsePattern(source, path);
  const nodes = pattern.branches.length === 1 ? (pattern.branches[0] ?? []) : [];
  const groupAt = nodes.findIndex((node) => node.kind === 'group');
  const group = nodes[groupAt];
  if (group?.kind !== 'group' || !isNameRun(group)) {
    throw new ResponseTemplateError(
      path,
      'is read only as literal markers around one group that is a run of one character class',
      `\`${source}\``,
    );
  }
  const named = `(?P<name>${group.source.slice(1, -1)})`;
  const before = nodes.slice(0, groupAt);
  const after = nodes
    .slice(groupAt + 1)
    .map((node) => node.source)
    .join('');
  if (before.length === 1 && before[0]?.kind === 'start') return named + after;
  const literal = markerOfNodes(before, path).literals;
  if (literal.length !== 1) {
    throw new ResponseTemplateError(path, 'must have one literal before the name', `\`${source}\``);
  }
  return `\\s*${escapeLiteral(literal[0] as string)}${named}${after}`;
}

function escapeLiteral(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&').replace(/\n/g, '\\n');
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
