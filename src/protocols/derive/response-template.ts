/**
 * A format from a Hugging Face response template: the region spec of transformers ≥ 5.13
 * (`version: 1`, `fields` with `open` / `open_pattern`, `close` / `close_pattern`, a `content`
 * parser and a `transform`), or the legacy `response_schema` (JSON Schema with `x-regex`,
 * `x-regex-iterator`, `x-parser`; see response-template-legacy.ts). Either may be given alone
 * or inside a `tokenizer_config.json` (its `response_template` / `response_schema` key).
 *
 * The template is translated into a FormatSpec as far as a streaming parser can follow it:
 * literal markers become reasoning blocks, call forms and framing; patterns are read as data
 * and accepted only in shapes that are literals in fact (response-template-pattern.ts). Every
 * other construct is refused with a `ResponseTemplateError` that names the field, the construct
 * and why. Unlike transformers' parser, which parses a region once it closes, the arguments of
 * a call stream as toolwire's parsers always stream them. docs/response-templates.md lists what
 * is read and what is refused.
 */
import type { ToolCallProtocol } from '../../core/index.ts';
import { defineFormat } from '../spec/define.ts';
import { FORMAT_SPEC_VERSION, type FormatSpec, type ReasoningSpec } from '../spec/types.ts';
import {
  type CallForms,
  callFormsOf,
  closeMarkerOf,
  openMarkerOf,
  type TemplateField,
} from './response-template-calls.ts';
import { ResponseTemplateError } from './response-template-error.ts';
import { isLegacySchema, templateFromLegacySchema } from './response-template-legacy.ts';
import { markerOf, namedGroupsIn, parsePattern } from './response-template-pattern.ts';

export { ResponseTemplateError } from './response-template-error.ts';

export interface ResponseTemplateOptions {
  /** The format's name (`--protocol` style). Default `response-template`. */
  readonly name?: string;
}

/** The fields toolwire reads reasoning from (transformers and TRL name it either way). */
const REASONING_FIELDS = new Set(['thinking', 'reasoning_content', 'reasoning']);
const TOP_LEVEL_KEYS = new Set([
  'version',
  'defaults',
  'fields',
  'start_anchor',
  'start_anchor_pattern',
]);
const FIELD_KEYS = new Set([
  'open',
  'open_pattern',
  'close',
  'close_pattern',
  'content',
  'content_args',
  'repeats',
  'join',
  'optional',
  'transform',
  'transform_each',
]);
const CONTENT_PARSERS = new Set(['text', 'int', 'float', 'bool', 'json', 'xml-inline', 'kv-lines']);

/** The protocol a response template (or legacy response schema) describes. */
export function protocolFromResponseTemplate(
  json: unknown,
  options: ResponseTemplateOptions = {},
): ToolCallProtocol {
  return defineFormat(formatSpecFromResponseTemplate(json, options));
}

/** The FormatSpec a response template (or legacy response schema) describes. */
export function formatSpecFromResponseTemplate(
  json: unknown,
  options: ResponseTemplateOptions = {},
): FormatSpec {
  const name = options.name ?? 'response-template';
  if (!isRecord(json)) throw new ResponseTemplateError('', 'must be a JSON object');
  // A tokenizer_config.json holding one.
  if (isRecord(json.response_template)) {
    return fromTemplate(json.response_template, name, 'response_template.');
  }
  if (isRecord(json.response_schema)) {
    return fromLegacy(json.response_schema, name, 'response_schema.');
  }
  if ('fields' in json) return fromTemplate(json, name, '');
  if (isLegacySchema(json)) return fromLegacy(json, name, '');
  throw new ResponseTemplateError(
    '',
    'is neither a response template (`fields`) nor a legacy response schema (`x-regex`, `properties`), nor a tokenizer_config.json holding one',
  );
}

/**
 * A legacy schema, through the region template it translates to. A refusal found in that
 * template names the template's path and says it comes from the schema.
 */
function fromLegacy(schema: Record<string, unknown>, name: string, prefix: string): FormatSpec {
  const template = templateFromLegacySchema(schema, prefix);
  try {
    return fromTemplate(template, name, '');
  } catch (error) {
    if (!(error instanceof ResponseTemplateError)) throw error;
    const problem = error.message.slice(error.message.indexOf(': ') + 2);
    throw new ResponseTemplateError(
      error.path,
      `${problem} (in the response template the legacy ${prefix === '' ? 'schema' : prefix.slice(0, -1)} translates to)`,
    );
  }
}

function fromTemplate(template: Record<string, unknown>, name: string, prefix: string): FormatSpec {
  const fields = checkTemplate(template, prefix);
  const markup = new Set<string>(anchorMarkup(template, prefix));
  const reasoning: ReasoningSpec[] = [];
  let startInReasoning = false;
  let calls: CallForms | undefined;
  for (const [fieldName, field] of Object.entries(fields)) {
    const path = `${prefix}fields.${fieldName}`;
    if (REASONING_FIELDS.has(fieldName)) {
      const read = reasoningOf(field, path);
      reasoning.push(...read.blocks);
      startInReasoning ||= read.atStart;
    } else if (fieldName === 'content') {
      for (const literal of contentMarkup(field, path)) markup.add(literal);
    } else if (fieldName === 'tool_calls') {
      calls = callFormsOf(field, path);
    } else {
      throw new ResponseTemplateError(
        path,
        'is not read: toolwire reads reasoning (`thinking`, `reasoning_content`), `content` and `tool_calls`, and a parse has no place for another field',
      );
    }
  }
  if (calls === undefined) {
    throw new ResponseTemplateError(
      `${prefix}fields`,
      'has no `tool_calls` field: there is no call to read',
    );
  }
  for (const literal of calls.markup) markup.add(literal);
  // Framing that is also an opener stays the opener's.
  for (const form of calls.calls) markup.delete(form.open);
  for (const block of reasoning) markup.delete(block.open);
  return {
    spec: FORMAT_SPEC_VERSION,
    name,
    ...(reasoning.length > 0 ? { reasoning } : {}),
    ...(startInReasoning ? { startInReasoning: true } : {}),
    ...(markup.size > 0 ? { markup: [...markup] } : {}),
    calls: calls.calls,
    write: calls.write,
    // A response template says nothing about results (the chat template renders them).
    results: { each: '<tool_response>\n{output}\n</tool_response>', join: '\n' },
  };
}

/** Checks the template as transformers does (its refusals are ours), returning its fields. */
function checkTemplate(
  template: Record<string, unknown>,
  prefix: string,
): Record<string, TemplateField> {
  for (const key of Object.keys(template)) {
    if (!TOP_LEVEL_KEYS.has(key)) {
      throw new ResponseTemplateError(`${prefix}${key}`, 'is not a response template key');
    }
  }
  if (template.version !== undefined && template.version !== 1) {
    throw new ResponseTemplateError(
      `${prefix}version`,
      'must be 1 (the only response template version)',
    );
  }
  const hasAnchor = template.start_anchor !== undefined;
  const hasAnchorPattern = template.start_anchor_pattern !== undefined;
  if (hasAnchor === hasAnchorPattern) {
    throw new ResponseTemplateError(
      prefix === '' ? '' : prefix.slice(0, -1),
      "must define 'start_anchor' or 'start_anchor_pattern' (one of them)",
    );
  }
  if (hasAnchor) literalList(template.start_anchor, `${prefix}start_anchor`);
  const fields = template.fields;
  if (!isRecord(fields) || Object.keys(fields).length === 0) {
    throw new ResponseTemplateError(`${prefix}fields`, 'must be a non-empty object');
  }
  let implicit: string | undefined;
  for (const [fieldName, field] of Object.entries(fields)) {
    const path = `${prefix}fields.${fieldName}`;
    if (!isRecord(field)) throw new ResponseTemplateError(path, 'must be an object');
    checkField(field, path);
    if (field.open === undefined && field.open_pattern === undefined) {
      if (implicit !== undefined) {
        throw new ResponseTemplateError(
          path,
          `has no opener, as \`${implicit}\` has: at most one field may be the implicit one`,
        );
      }
      implicit = fieldName;
    }
  }
  return fields as Record<string, TemplateField>;
}

function checkField(field: Record<string, unknown>, path: string): void {
  for (const key of Object.keys(field)) {
    if (!FIELD_KEYS.has(key))
      throw new ResponseTemplateError(`${path}.${key}`, 'is not a field key');
  }
  if (field.open !== undefined && field.open_pattern !== undefined) {
    throw new ResponseTemplateError(path, 'has both `open` and `open_pattern`');
  }
  if (field.close !== undefined && field.close_pattern !== undefined) {
    throw new ResponseTemplateError(path, 'has both `close` and `close_pattern`');
  }
  if (field.open !== undefined) literalList(field.open, `${path}.open`);
  if (field.close !== undefined) literalList(field.close, `${path}.close`);
  for (const key of ['open_pattern', 'close_pattern'] as const) {
    if (field[key] !== undefined && typeof field[key] !== 'string') {
      throw new ResponseTemplateError(`${path}.${key}`, 'must be a string');
    }
  }
  const content = field.content ?? 'text';
  if (typeof content !== 'string' || !CONTENT_PARSERS.has(content)) {
    throw new ResponseTemplateError(
      `${path}.content`,
      `is an unknown content parser (one of ${[...CONTENT_PARSERS].join(', ')})`,
    );
  }
  if (field.content_args !== undefined && !isRecord(field.content_args)) {
    throw new ResponseTemplateError(`${path}.content_args`, 'must be an object');
  }
  if (field.join !== undefined) {
    if (field.repeats !== true) {
      throw new ResponseTemplateError(`${path}.join`, "requires 'repeats': true");
    }
    if (typeof field.join !== 'string') {
      throw new ResponseTemplateError(`${path}.join`, 'must be a string');
    }
    if (content !== 'text') {
      throw new ResponseTemplateError(
        `${path}.join`,
        'joins text: every match must parse to a string',
      );
    }
  }
  if (field.transform_each !== undefined && field.transform === undefined) {
    throw new ResponseTemplateError(`${path}.transform_each`, 'requires `transform`');
  }
  if (field.transform !== undefined) checkTransform(field.transform, `${path}.transform`);
  else {
    for (const key of ['open_pattern', 'close_pattern'] as const) {
      const source = field[key];
      if (typeof source !== 'string') continue;
      const names = namedGroupsIn(parsePattern(source, `${path}.${key}`));
      if (names.length > 0) {
        throw new ResponseTemplateError(
          `${path}.${key}`,
          `captures ${names.map((group) => `\`${group}\``).join(', ')} but the field has no transform to put the capture in`,
        );
      }
    }
  }
}

/** A transform's strings are whole placeholders or plain literals, never both (no interpolation). */
function checkTransform(value: unknown, path: string): void {
  if (typeof value === 'string') {
    const opens = value.indexOf('{');
    if (opens !== -1 && !(opens === 0 && value.endsWith('}') && value.indexOf('{', 1) === -1)) {
      throw new ResponseTemplateError(
        path,
        `mixes a {placeholder} with literal text (\`${value}\`): string interpolation is not supported; write "{content}" alone`,
      );
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      checkTransform(item, `${path}[${index}]`);
    });
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) checkTransform(item, `${path}.${key}`);
  }
}

function literalList(value: unknown, path: string): void {
  const list = typeof value === 'string' ? [value] : value;
  if (
    !Array.isArray(list) ||
    list.length === 0 ||
    !list.every((item) => typeof item === 'string' && item !== '')
  ) {
    throw new ResponseTemplateError(path, 'must be a non-empty string or a non-empty list of them');
  }
}

/** A reasoning field as reasoning blocks: each opener with each closer. */
function reasoningOf(
  field: TemplateField,
  path: string,
): { blocks: ReasoningSpec[]; atStart: boolean } {
  if ((field.content ?? 'text') !== 'text') {
    throw new ResponseTemplateError(
      `${path}.content`,
      'is not read: reasoning is text',
      `\`${field.content}\``,
    );
  }
  const open = openMarkerOf(field, path);
  if (open === undefined) {
    throw new ResponseTemplateError(
      path,
      'has no opener: reasoning that is the implicit field cannot be told from content',
    );
  }
  const close = closeMarkerOf(field, path);
  if (close === undefined || close.literals.length === 0) {
    throw new ResponseTemplateError(
      path,
      'has no closer: a reasoning block needs a literal closer',
    );
  }
  const blocks: ReasoningSpec[] = [];
  for (const opener of open.literals) {
    for (const closer of close.literals) blocks.push({ open: opener, close: closer });
  }
  return { blocks, atStart: open.atStart };
}

/** The content field's markers: framing around text, dropped where they stand. */
function contentMarkup(field: TemplateField, path: string): string[] {
  if ((field.content ?? 'text') !== 'text') {
    throw new ResponseTemplateError(
      `${path}.content`,
      'is not read: content is text',
      `\`${field.content}\``,
    );
  }
  const open = openMarkerOf(field, path);
  const close = closeMarkerOf(field, path);
  return [...(open?.literals ?? []), ...(close?.literals ?? [])];
}

/**
 * Start anchors written as special tokens (`<|start|>assistant`): the model may write them again
 * inside its output (gpt-oss does between channels), where they are framing. An anchor of plain
 * words (`Assistant:`) stays text.
 */
function anchorMarkup(template: Record<string, unknown>, prefix: string): string[] {
  let literals: readonly string[] = [];
  if (template.start_anchor !== undefined) {
    const anchor = template.start_anchor as string | string[];
    literals = typeof anchor === 'string' ? [anchor] : anchor;
  } else if (typeof template.start_anchor_pattern === 'string') {
    const path = `${prefix}start_anchor_pattern`;
    literals = markerOf(parsePattern(template.start_anchor_pattern, path), path).literals;
  }
  return literals.filter((literal) => /<\||\|>|<｜|｜>/.test(literal));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
