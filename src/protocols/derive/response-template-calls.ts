/**
 * A response template's `tool_calls` field as FormatSpec call forms and the writer that writes
 * them back. The shapes read, each from the field's markers, content parser and transform:
 *
 * - JSON call objects between literal markers (`<tool_call>{"name": …, "arguments": …}</tool_call>`,
 *   a list of them with `transform_each`), the keys taken from the transform;
 * - JSON arguments after a name captured by `open_pattern` (`to=functions.NAME<…>{…}`);
 * - the opening of a JSON call object as the opener (`\{"name":\s*"(?P<name>…)",\s*"parameters":\s*`);
 * - a JSON-like dialect (`json` with `unquoted_keys` / `string_delims`) after a captured name;
 * - parameter tags (`xml-inline`) in a block, the name in a tag (`<function=NAME>`) or right after
 *   the block's opener (`<tool_call>NAME`);
 * - Python calls in a list (`LIST[NAME(` … `)`, keyword arguments as `xml-inline` tags).
 */
import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { CallFormSpec, WriteSpec } from '../spec/types.ts';
import { ResponseTemplateError } from './response-template-error.ts';
import {
  isAnyText,
  isNameRun,
  isOptionalSpace,
  type Marker,
  markerOf,
  markerOfNodes,
  namedGroupIndex,
  type PatternNode,
  parsePattern,
  trimSpace,
} from './response-template-pattern.ts';

/** One field of a response template, as read from JSON (checked by response-template.ts). */
export interface TemplateField {
  readonly open?: string | readonly string[];
  readonly open_pattern?: string;
  readonly close?: string | readonly string[];
  readonly close_pattern?: string;
  readonly content?: string;
  readonly content_args?: Readonly<Record<string, unknown>>;
  readonly repeats?: boolean;
  readonly join?: string;
  readonly optional?: boolean;
  readonly transform?: unknown;
  readonly transform_each?: boolean;
}

/** What a `tool_calls` field gives the spec. */
export interface CallForms {
  readonly calls: readonly CallFormSpec[];
  readonly write: WriteSpec;
  /** Closer alternatives past the first: framing, dropped where they stand. */
  readonly markup: readonly string[];
}

/** The marker of a field's `open` (literals) or `open_pattern`, or undefined when it has none. */
export function openMarkerOf(field: TemplateField, path: string): Marker | undefined {
  if (field.open !== undefined) return literalMarker(field.open);
  if (field.open_pattern !== undefined) {
    return markerOf(
      parsePattern(field.open_pattern, `${path}.open_pattern`),
      `${path}.open_pattern`,
    );
  }
  return undefined;
}

/** The marker of a field's `close` or `close_pattern`, or undefined when it runs to the end. */
export function closeMarkerOf(field: TemplateField, path: string): Marker | undefined {
  if (field.close !== undefined) return literalMarker(field.close);
  if (field.close_pattern !== undefined) {
    return markerOf(
      parsePattern(field.close_pattern, `${path}.close_pattern`),
      `${path}.close_pattern`,
    );
  }
  return undefined;
}

function literalMarker(value: string | readonly string[]): Marker {
  const literals = typeof value === 'string' ? [value] : [...new Set(value)];
  return {
    literals: literals.sort((a, b) => b.length - a.length),
    atStart: false,
    atEnd: false,
  };
}

/** Where a call's name and arguments are, from the field's `transform`. */
type CallKeys =
  /** The content (or each element, `transform_each`) is an object with these keys. */
  | { readonly kind: 'object'; readonly nameKey: string; readonly argumentsKey: string }
  /** The name is `open_pattern`'s `name` group; the content is the arguments. */
  | { readonly kind: 'captured' };

function callKeysOf(field: TemplateField, path: string): CallKeys {
  const where = `${path}.transform`;
  const transform = field.transform;
  if (transform === undefined) {
    throw new ResponseTemplateError(
      path,
      'has no `transform`: which keys hold the name and the arguments is not said',
    );
  }
  if (typeof transform !== 'object' || transform === null || Array.isArray(transform)) {
    throw new ResponseTemplateError(where, 'must be an object for a tool call');
  }
  const record = transform as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (key === 'function') continue;
    if (key === 'type' && value === 'function') continue;
    if ((key === 'name' || key === 'arguments') && !('function' in record)) continue;
    throw new ResponseTemplateError(
      `${where}.${key}`,
      'is not read: a call is a name and its arguments (and `type: "function"`)',
    );
  }
  const call = 'function' in record ? record.function : record;
  const each = field.transform_each === true;
  if (call === '{content}' && !each) {
    return { kind: 'object', nameKey: 'name', argumentsKey: 'arguments' };
  }
  if (typeof call !== 'object' || call === null || Array.isArray(call)) {
    throw new ResponseTemplateError(
      `${where}.function`,
      'must be `"{content}"` or `{"name": …, "arguments": …}`',
    );
  }
  const parts = call as Record<string, unknown>;
  const name = placeholder(parts.name, `${where}.function.name`);
  const args = placeholder(parts.arguments, `${where}.function.arguments`);
  for (const key of Object.keys(parts)) {
    if (key !== 'name' && key !== 'arguments') {
      throw new ResponseTemplateError(`${where}.function.${key}`, 'is not read');
    }
  }
  if (!each && name === 'name' && args === 'content') return { kind: 'captured' };
  const nameKey = contentKey(name, each, `${where}.function.name`);
  const argumentsKey = contentKey(args, each, `${where}.function.arguments`);
  return { kind: 'object', nameKey, argumentsKey };
}

/** `"{path}"` → `path`. */
function placeholder(value: unknown, path: string): string {
  if (typeof value !== 'string' || !value.startsWith('{') || !value.endsWith('}')) {
    throw new ResponseTemplateError(path, 'must be a `{placeholder}`');
  }
  return value.slice(1, -1);
}

/** The key of the call object a transform path names (`content.name`, or `name` per element). */
function contentKey(pathText: string, each: boolean, path: string): string {
  const parts = pathText.split('.');
  if (!each) {
    if (parts[0] !== 'content' || parts.length < 2) {
      throw new ResponseTemplateError(
        path,
        `(\`{${pathText}}\`) is not read: a call's name and arguments come from the content, or the name from the opener's \`name\` group`,
      );
    }
    parts.shift();
  }
  if (parts.length !== 1 || parts[0] === '') {
    throw new ResponseTemplateError(
      path,
      `(\`{${pathText}}\`) is not read: toolwire reads a call's name and arguments from keys of the call object, not from keys nested deeper`,
    );
  }
  return parts[0] as string;
}

/** The `tool_calls` field as call forms. */
export function callFormsOf(field: TemplateField, path: string): CallForms {
  const content = field.content ?? 'text';
  if (content === 'kv-lines') {
    throw new ResponseTemplateError(
      `${path}.content`,
      '(one `key: value` per line) is not read: toolwire has no codec for it',
      '`kv-lines`',
    );
  }
  if (content !== 'json' && content !== 'xml-inline') {
    throw new ResponseTemplateError(
      `${path}.content`,
      "is not read for tool calls: a call's content must be `json` or `xml-inline`",
      `\`${content}\``,
    );
  }
  const close = closeMarkerOf(field, path);
  const closeLiteral = close?.literals[0];
  const markup = close ? close.literals.slice(1) : [];
  const keys = callKeysOf(field, path);
  if (field.open_pattern !== undefined) {
    const where = `${path}.open_pattern`;
    const pattern = parsePattern(field.open_pattern, where);
    const branch = pattern.branches.length === 1 ? (pattern.branches[0] ?? []) : undefined;
    const nameAt = branch ? namedGroupIndex(branch, 'name') : -1;
    if (branch && nameAt !== -1) {
      const opener = { before: branch.slice(0, nameAt), name: branch[nameAt] as PatternNode };
      const after = branch.slice(nameAt + 1);
      if (!isNameRun(opener.name)) {
        throw new ResponseTemplateError(
          where,
          'is not read as a name: a name is a run of one character class (`\\w+`, `[^\\n>]+`)',
          `\`${opener.name.source}\``,
        );
      }
      if (keys.kind !== 'captured') {
        throw new ResponseTemplateError(
          `${path}.transform`,
          'must take the name from `{name}` and the arguments from `{content}` when `open_pattern` captures the name',
        );
      }
      if (content === 'xml-inline' && isPythonCall(after, close)) {
        return pythonCalls(field, path, opener.before, close as Marker);
      }
      if (content === 'xml-inline') {
        return taggedWithName(field, path, opener.before, after, closeLiteral, markup);
      }
      return jsonAfterName(field, path, opener.before, after, closeLiteral, markup);
    }
  }
  const open = openMarkerOf(field, path);
  if (open === undefined || open.literals.length === 0) {
    throw new ResponseTemplateError(path, 'has no opener: a tool call needs a literal marker');
  }
  if (open.atStart) {
    throw new ResponseTemplateError(
      `${path}.open_pattern`,
      'is not read for tool calls: a call cannot start at the start of the output without a marker',
      '`^`',
    );
  }
  if (keys.kind !== 'object') {
    throw new ResponseTemplateError(
      `${path}.transform`,
      'takes `{name}`, but the opener captures no name',
    );
  }
  if (content === 'xml-inline') {
    throw new ResponseTemplateError(
      `${path}.open_pattern`,
      "captures no name: parameter tags need the tool's name from the opener",
    );
  }
  if (dialectDelimiters(field, path) !== undefined) {
    throw new ResponseTemplateError(
      `${path}.content_args`,
      "is not read without a name in the opener: the dialect is read after a call's name",
    );
  }
  const calls: CallFormSpec[] = open.literals.map((literal) => ({
    codec: 'json',
    open: literal,
    ...(closeLiteral ? { close: closeLiteral } : {}),
    nameKeys: [keys.nameKey],
    argumentKeys: [keys.argumentsKey],
  }));
  const first = open.literals[0] as string;
  const object = `{${JSON.stringify(keys.nameKey)}: {name_json}, ${JSON.stringify(keys.argumentsKey)}: {arguments}}`;
  const write: WriteSpec =
    field.transform_each === true
      ? {
          section: { open: `${first}[`, close: `]${closeLiteral ?? ''}` },
          call: object,
          join: ', ',
        }
      : { call: `${first}${object}${closeLiteral ?? ''}`, join: '\n' };
  return { calls, write, markup };
}

/** `content_args` of a JSON dialect (`unquoted_keys`, `string_delims`), or undefined for JSON. */
function dialectDelimiters(
  field: TemplateField,
  path: string,
): readonly [string, string] | undefined {
  const args = field.content_args ?? {};
  for (const key of Object.keys(args)) {
    if (key !== 'unquoted_keys' && key !== 'string_delims' && key !== 'allow_non_json') {
      throw new ResponseTemplateError(`${path}.content_args.${key}`, 'is not read');
    }
  }
  const delimiters = args.string_delims;
  if (delimiters === undefined) {
    if (args.unquoted_keys === true) {
      throw new ResponseTemplateError(
        `${path}.content_args.unquoted_keys`,
        'is read only with `string_delims` (the dialect codec needs its string delimiters)',
      );
    }
    return undefined;
  }
  if (
    !Array.isArray(delimiters) ||
    delimiters.length !== 1 ||
    !Array.isArray(delimiters[0]) ||
    delimiters[0].length !== 2 ||
    !delimiters[0].every((text: unknown) => typeof text === 'string' && text !== '')
  ) {
    throw new ResponseTemplateError(
      `${path}.content_args.string_delims`,
      'is read as one pair of non-empty delimiters only',
    );
  }
  return [delimiters[0][0], delimiters[0][1]];
}

/** The one literal a run of nodes stands for (a marker without alternatives). */
function singleLiteral(nodes: readonly PatternNode[], path: string): string {
  const marker = markerOfNodes(nodes, path);
  if (marker.literals.length !== 1 || marker.atStart || marker.atEnd) {
    throw new ResponseTemplateError(
      path,
      'must be one literal before the name (alternatives there are not read)',
    );
  }
  return marker.literals[0] as string;
}

/** JSON arguments (or a dialect object) after a name captured by the opener. */
function jsonAfterName(
  field: TemplateField,
  path: string,
  before: readonly PatternNode[],
  after: readonly PatternNode[],
  close: string | undefined,
  markup: readonly string[],
): CallForms {
  const where = `${path}.open_pattern`;
  const jsonOpening = jsonObjectOpening(before, after, where);
  if (jsonOpening) return jsonObjectCall(jsonOpening, close, markup, path);
  const open = singleLiteral(before, where);
  const delimiters = dialectDelimiters(field, path);
  if (delimiters) {
    if (trimSpace(after).length > 0) {
      throw new ResponseTemplateError(
        where,
        'is not read: in the dialect the object follows the name directly',
        `\`${after.map((node) => node.source).join('')}\``,
      );
    }
    // `<|tool_call>call:`: the special token opens; the word after it comes before the name.
    const tagEnd = open.lastIndexOf('>') + 1;
    const namePrefix = tagEnd > 0 && tagEnd < open.length ? open.slice(tagEnd) : undefined;
    return {
      calls: [
        {
          codec: 'dialect',
          open: namePrefix ? open.slice(0, tagEnd) : open,
          ...(namePrefix ? { namePrefix } : {}),
          ...(close ? { close } : {}),
          stringDelimiters: delimiters,
        },
      ],
      write: { call: `${open}{name}{arguments}${close ?? ''}`, join: '' },
      markup,
    };
  }
  const header = headerEnd(after, where);
  // `.*?<|message|>` after the name: the name is the header's first word, the rest is dropped.
  const firstWord = trimSpace(after)[0] !== undefined && isAnyText(trimSpace(after)[0]!);
  return {
    calls: [
      {
        codec: 'json',
        open,
        ...(close ? { close } : {}),
        nameHeader: { end: header, ...(firstWord ? { nameEnds: 'word' as const } : {}) },
      },
    ],
    write: { call: `${open}{name}${header}{arguments}${close ?? ''}`, join: '' },
    markup,
  };
}

/**
 * What ends the name: a literal right after the group (`<|message|>`), or after any text
 * (`.*?<\|message\|>`: the name is the header's first word).
 */
function headerEnd(after: readonly PatternNode[], path: string): string {
  const nodes = trimSpace(after);
  if (nodes.length === 0) {
    throw new ResponseTemplateError(
      path,
      'ends with the name: JSON arguments need a marker between the name and the JSON',
    );
  }
  const rest = nodes[0] && isAnyText(nodes[0]) ? nodes.slice(1) : nodes;
  return singleLiteral(rest, path);
}

/** The keys of `{"NAME_KEY": "(?P<name>…)", "ARGS_KEY": ` written as an opener (Llama 3). */
interface JsonOpening {
  readonly nameKey: string;
  readonly argumentsKey: string;
}

/**
 * Whether the opener is the start of a JSON call object: `\{"K":\s*"` before the name and
 * `",\s*"A":\s*` after it. The JSON body then reads the whole object (the opener's part too).
 */
function jsonObjectOpening(
  before: readonly PatternNode[],
  after: readonly PatternNode[],
  path: string,
): JsonOpening | undefined {
  const text = (nodes: readonly PatternNode[]): string | undefined => {
    let out = '';
    for (const node of nodes) {
      if (node.kind === 'literal') out += node.text;
      else if (!isOptionalSpace(node)) return undefined;
    }
    return out;
  };
  const head = text(before);
  const tail = text(after);
  if (head === undefined || tail === undefined || !head.startsWith('{"')) return undefined;
  const nameKey = head.slice(2, -3);
  const argumentsKey = tail.slice(3, -2);
  if (
    !head.endsWith('":"') ||
    !tail.startsWith('","') ||
    !tail.endsWith('":') ||
    nameKey === '' ||
    argumentsKey === '' ||
    nameKey.includes('"') ||
    argumentsKey.includes('"')
  ) {
    throw new ResponseTemplateError(
      path,
      'is read as the start of a JSON call object only as `\\{"KEY":\\s*"(?P<name>…)",\\s*"ARGS":\\s*`',
    );
  }
  return { nameKey, argumentsKey };
}

function jsonObjectCall(
  opening: JsonOpening,
  close: string | undefined,
  markup: readonly string[],
  path: string,
): CallForms {
  // The closer starts with the object's own `}` (`\}<\|eot_id\|>`): the JSON reader reads it.
  let closer = close;
  if (closer?.startsWith('}')) closer = closer.slice(1) || undefined;
  else if (closer !== undefined) {
    throw new ResponseTemplateError(
      `${path}.close_pattern`,
      "must begin with the object's `}` when the opener begins the object",
    );
  }
  const open = `{${JSON.stringify(opening.nameKey)}`;
  return {
    calls: [
      {
        codec: 'json',
        open,
        openHoldsJson: open,
        certainty: 'speculative',
        ...(closer ? { close: closer } : {}),
        nameKeys: [opening.nameKey],
        argumentKeys: [opening.argumentsKey],
      },
    ],
    write: {
      call: `{${JSON.stringify(opening.nameKey)}: {name_json}, ${JSON.stringify(opening.argumentsKey)}: {arguments}}${closer ?? ''}`,
      join: '',
    },
    markup: [...markup, ...(closer ? [closer] : [])],
  };
}

/** `NAME(` … `)`: the opener ends with `(` right after the name and every closer starts with `)`. */
function isPythonCall(after: readonly PatternNode[], close: Marker | undefined): boolean {
  return (
    after.length === 1 &&
    after[0]?.kind === 'literal' &&
    after[0].text === '(' &&
    close !== undefined &&
    close.literals.length > 0 &&
    close.literals.every((literal) => literal.startsWith(')'))
  );
}

/**
 * Python calls in a list (LFM2.5): the opener `(?:<\|tool_call_start\|>\[|,\s*)(?P<name>\w+)\(`
 * is the list's opener or the comma between two calls, the closer `\)(?:\]<\|tool_call_end\|>)?`
 * a call's `)` and, after the last, the list's `]` and the block's closer. The arguments
 * (`tag_pattern` `(?P<key>\w+)=(?P<value>…)`) are Python keyword arguments: the Python codec
 * reads their values as Python literals, so the value's own pattern is not needed.
 */
function pythonCalls(
  field: TemplateField,
  path: string,
  before: readonly PatternNode[],
  close: Marker,
): CallForms {
  const where = `${path}.open_pattern`;
  const tagPath = `${path}.content_args.tag_pattern`;
  const tagPattern = field.content_args?.tag_pattern;
  const tagNodes = typeof tagPattern === 'string' ? parsePattern(tagPattern, tagPath).branches : [];
  const keyword = tagNodes.length === 1 ? (tagNodes[0] ?? []) : [];
  const [key, equals, value] = keyword;
  if (
    keyword.length !== 3 ||
    key?.kind !== 'group' ||
    key.name !== 'key' ||
    !isNameRun(key) ||
    equals?.kind !== 'literal' ||
    equals.text !== '=' ||
    value?.kind !== 'group' ||
    value.name !== 'value'
  ) {
    throw new ResponseTemplateError(
      tagPath,
      'is read for Python calls only as `(?P<key>\\w+)=(?P<value>…)` (keyword arguments)',
    );
  }
  const openers = markerOfNodes(before, where).literals;
  const listOpen = openers.filter((literal) => literal.endsWith('['));
  const others = openers.filter((literal) => !literal.endsWith('['));
  if (listOpen.length !== 1 || !others.every((literal) => literal === ',')) {
    throw new ResponseTemplateError(
      where,
      'is read for Python calls only as the list opener (`…[`) or the comma between two calls',
    );
  }
  const ends = close.literals.map((literal) => literal.slice(1)).filter((end) => end !== '');
  if (ends.length !== 1 || !(ends[0] as string).startsWith(']')) {
    throw new ResponseTemplateError(
      `${path}.close_pattern`,
      "is read for Python calls only as `)` and, after the last call, the list's `]` and a closer",
    );
  }
  const open = listOpen[0] as string;
  const closer = (ends[0] as string).slice(1);
  return {
    calls: [
      {
        codec: 'python',
        open,
        listOpened: true,
        ...(closer ? { close: closer } : {}),
      },
    ],
    write: {
      section: { open, close: `]${closer}` },
      call: '{name}({arguments})',
      join: ', ',
    },
    markup: [],
  };
}

/** Parameter tags after a name captured by the opener. */
function taggedWithName(
  field: TemplateField,
  path: string,
  before: readonly PatternNode[],
  after: readonly PatternNode[],
  close: string | undefined,
  markup: readonly string[],
): CallForms {
  const where = `${path}.open_pattern`;
  if (close === undefined) {
    throw new ResponseTemplateError(
      path,
      "has no closer: parameter tags are read in a block up to the block's closer",
    );
  }
  const tags = parameterTagsOf(field, path);
  const afterText = after.map((node) => node.source).join('');
  // `<tool_call>\s*<function=(?P<name>…)>`: the block's opener, then the call's own tag.
  const spaceAt = before.findIndex((node) => isOptionalSpace(node));
  const blockNodes = spaceAt === -1 ? before : before.slice(0, spaceAt);
  const tagNodes = spaceAt === -1 ? [] : before.slice(spaceAt + 1);
  if (tagNodes.length > 0 || afterText === '>') {
    const tagOpen = tagNodes.length > 0 ? singleLiteral(tagNodes, where) : '';
    let block = singleLiteral(blockNodes, where);
    let callTag = tagOpen;
    if (callTag === '') {
      const tagAt = block.lastIndexOf('<');
      callTag = block.slice(tagAt);
      // `<tool_call>\n<function=`: the line break between is layout the reader skips.
      block = block.slice(0, tagAt).trimEnd();
    }
    const tagName = /^<([A-Za-z_][\w.:-]*)=$/.exec(callTag)?.[1];
    if (tagName === undefined || afterText !== '>' || block === '') {
      throw new ResponseTemplateError(
        where,
        'is read as a block opener, then `<TAG=` NAME `>` only',
        `\`${[...before, ...after].map((node) => node.source).join('')}\``,
      );
    }
    const syntax: ParameterTagsSyntax = {
      callOpen: `<${tagName}`,
      callClose: `</${tagName}>`,
      ...tags.syntax,
    };
    return {
      calls: [{ codec: 'tagged', open: block, close, syntax }],
      write: {
        call: `${block}\n<${tagName}={name}>\n{arguments}</${tagName}>\n${close}`,
        parameter: tags.parameter,
        join: '\n',
      },
      markup,
    };
  }
  // `<tool_call>(?P<name>\S+)\n?`: the name right after the block's opener (GLM).
  const rest = trimSpace(after);
  const lineBreakOnly =
    rest.length === 0 ||
    (rest.length === 1 &&
      rest[0]?.kind === 'repeat' &&
      rest[0].max === 1 &&
      rest[0].node.kind === 'literal' &&
      rest[0].node.text === '\n');
  if (!lineBreakOnly) {
    throw new ResponseTemplateError(
      where,
      'is not read after the name: only a line break may follow a name written after the block opener',
      `\`${afterText}\``,
    );
  }
  const block = singleLiteral(blockNodes, where);
  const syntax: ParameterTagsSyntax = { callOpen: '', callClose: '', ...tags.syntax };
  return {
    calls: [{ codec: 'tagged', open: block, close, syntax }],
    write: { call: `${block}{name}\n{arguments}${close}`, parameter: tags.parameter, join: '\n' },
    markup,
  };
}

interface ParameterTags {
  readonly syntax: Omit<ParameterTagsSyntax, 'callOpen' | 'callClose'>;
  /** The writer's template for one parameter. */
  readonly parameter: string;
}

/**
 * The parameter tags `content_args.tag_pattern` describes. Two shapes are read:
 * `<P=(?P<key>…)>\s*(?P<value>.*?)\s*</P>` (Qwen3-Coder; with `\s*` a value's edge line breaks
 * are layout) and `<K>(?P<key>…)</K>\s*<V>(?P<value>.*?)</V>` (GLM; values exact).
 */
function parameterTagsOf(field: TemplateField, path: string): ParameterTags {
  const args = field.content_args ?? {};
  const where = `${path}.content_args`;
  for (const key of Object.keys(args)) {
    if (key === 'merge_duplicates' && args[key] === true) {
      throw new ResponseTemplateError(
        `${where}.merge_duplicates`,
        "is not read: toolwire's parameter tags give one value per parameter (a repeated one is reported)",
      );
    }
    if (key !== 'tag_pattern' && key !== 'value_parser' && key !== 'merge_duplicates') {
      throw new ResponseTemplateError(`${where}.${key}`, 'is not read');
    }
  }
  checkValueParser(args.value_parser, `${where}.value_parser`);
  const source = args.tag_pattern;
  if (typeof source !== 'string') {
    throw new ResponseTemplateError(`${where}.tag_pattern`, 'missing (xml-inline needs it)');
  }
  const tagPath = `${where}.tag_pattern`;
  const pattern = parsePattern(source, tagPath);
  const nodes = pattern.branches.length === 1 ? (pattern.branches[0] ?? []) : [];
  const keyAt = namedGroupIndex(nodes, 'key');
  const valueAt = namedGroupIndex(nodes, 'value');
  const valueNode = nodes[valueAt];
  const refuse = (problem: string): never => {
    throw new ResponseTemplateError(tagPath, problem, `\`${source}\``);
  };
  if (keyAt === -1 || valueAt <= keyAt || !valueNode || valueNode.kind !== 'group') {
    refuse('is not read: a `key` group, then a `value` group, are needed');
  }
  const valueBody = (valueNode as PatternNode & { kind: 'group' }).branches;
  if (
    valueBody.length !== 1 ||
    valueBody[0]?.length !== 1 ||
    !isAnyText(valueBody[0][0] as PatternNode)
  ) {
    return refuse(
      "is not read: the value must be `.*?` (any text up to the value's closing tag); a value pattern of its own cannot be streamed",
    );
  }
  if (!isNameRun(nodes[keyAt] as PatternNode)) {
    refuse('is not read: the key must be a run of one character class (`\\w+`, `[^>\\n]+`)');
  }
  const beforeKey = nodes.slice(0, keyAt);
  // White space around the value (`\s*`, or line breaks as in `>\n(?P<value>.*?)\n</P>`)
  // is layout: the value is trimmed of it.
  let between = nodes.slice(keyAt + 1, valueAt);
  let afterValue = nodes.slice(valueAt + 1);
  let trimmedValue = false;
  while (between.length > 0 && isLayoutSpace(between[between.length - 1] as PatternNode)) {
    between = between.slice(0, -1);
    trimmedValue = true;
  }
  while (afterValue.length > 0 && isLayoutSpace(afterValue[0] as PatternNode)) {
    afterValue = afterValue.slice(1);
    trimmedValue = true;
  }
  const close = singleLiteral(trimSpace(afterValue), tagPath);
  const open = singleLiteral(beforeKey, tagPath);
  if (open.endsWith('=') && markerOfNodes(between, tagPath).literals.join('|') === '>') {
    // `<parameter=KEY>` … `</parameter>`
    const parameterOpen = open.slice(0, -1);
    return {
      syntax: { parameterOpen, parameterClose: close, layout: trimmedValue ? 'block' : 'exact' },
      parameter: `${parameterOpen}={key}>{value}${close}\n`,
    };
  }
  // `<arg_key>KEY</arg_key>` white space `<arg_value>` … `</arg_value>`
  const keyClose = splitKeyAndValueTags(between, tagPath);
  if (keyClose) {
    return {
      syntax: {
        parameterOpen: open,
        keyClose: keyClose.keyClose,
        valueOpen: keyClose.valueOpen,
        parameterClose: close,
        layout: trimmedValue ? 'inline' : 'exact',
      },
      parameter: `${open}{key}${keyClose.keyClose}\n${keyClose.valueOpen}{value}${close}\n`,
    };
  }
  return refuse(
    'is not read: parameter tags are read as `<P=KEY>VALUE</P>` or `<K>KEY</K> <V>VALUE</V>`',
  );
}

/** `\s*` or a white-space literal (`\n`). */
function isLayoutSpace(node: PatternNode): boolean {
  return isOptionalSpace(node) || (node.kind === 'literal' && node.text.trim() === '');
}

/** `</arg_key>\s*\n<arg_value>` → the key's closer and the value's opener. */
function splitKeyAndValueTags(
  between: readonly PatternNode[],
  path: string,
): { keyClose: string; valueOpen: string } | undefined {
  const spaceAt = between.findIndex((node) => isOptionalSpace(node));
  if (spaceAt <= 0) return undefined;
  const keyClose = singleLiteral(between.slice(0, spaceAt), path);
  const rest = between.slice(spaceAt + 1);
  // White space the reader skips anyway (`\n` after `\s*`).
  let from = 0;
  while (from < rest.length) {
    const node = rest[from] as PatternNode;
    if (node.kind === 'literal' && node.text.trim() === '') from++;
    else break;
  }
  const valueNodes = trimSpace(rest.slice(from));
  const valueOpen = singleLiteral(valueNodes, path);
  if (!keyClose.startsWith('</') || !valueOpen.startsWith('<')) return undefined;
  return { keyClose, valueOpen };
}

/** `value_parser`: none, or `json` (toolwire types values by the tool's schema instead). */
function checkValueParser(parser: unknown, path: string): void {
  if (parser === undefined) return;
  if (
    typeof parser !== 'object' ||
    parser === null ||
    (parser as { name?: unknown }).name !== 'json'
  ) {
    throw new ResponseTemplateError(
      path,
      'is read only as `{"name": "json"}` (values are typed by the tool\'s schema)',
    );
  }
}
