/**
 * Arguments written as parameter tags (`<parameter=city>\nOslo\n</parameter>\n`, GLM's
 * `<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n`), as grammar: the format's parameter
 * template per property, in the schema's order (optional ones skippable), each placeholder as the
 * writer fills it:
 * - `{value}`: a string as raw text that holds none of the format's closers (in a format that
 *   reads CDATA, MiniCPM's, raw text without `<`, or CDATA sections, as its writer writes a
 *   string holding `<`), anything else as JSON under its schema, laid out as the writer lays it
 *   out (a `block` value on lines of its own);
 * - `{value_json}`: every value as JSON under its schema (GigaChat's GCML, `string="false"`);
 * - `{type}`, `{string}`: the JSON type the value is written as (Kimi K3's `type="number"`,
 *   DSML's `string="true"`), so a value whose schema allows several types gets one alternative
 *   per type, each with its own attribute.
 *
 * A value a grammar cannot write so that it reads back valid is refused: a raw string with length
 * bounds or a union of a string and another type (raw text would read as either).
 */
import type { JsonSchema, ToolDefinition } from '../../core/index.ts';
import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import { writeName, writeValueText } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { TaggedCallForm } from '../spec/types.ts';
import { alternatives, literal } from './gbnf-text.ts';
import type { GrammarRules } from './grammar-rules.ts';
import { ANNOTATIONS, allowedMembers, JsonValueRules } from './json-value-rules.ts';
import { PARAMETER_PLACEHOLDERS, type TemplatePart, templateParts } from './reply-shape.ts';
import { textExcluding } from './text-excluding.ts';
import { jsonSyntax } from './value-syntax.ts';

const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';

/** A JSON type as the writer names it in a type attribute (an integer is a `number`). */
type WrittenType = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';

const WRITTEN_TYPES: ReadonlySet<string> = new Set([
  'string',
  'number',
  'boolean',
  'null',
  'array',
  'object',
]);

/** The type the writer names for `value` (writers.ts's type attribute). */
function writtenTypeOf(value: unknown): WrittenType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  return type === 'number' || type === 'boolean' || type === 'string' ? type : 'object';
}

/** Whether a piece of a parameter template names the value's type (`{type}`, `{string}`). */
function namesType(part: TemplatePart): boolean {
  const name = part.kind === 'placeholder' ? (part.name as string) : '';
  return name === 'type' || name === 'string';
}

/** A schema narrowed to the values the writer writes with one type name. */
interface TypedSchema {
  readonly type: WrittenType;
  readonly schema: JsonSchema;
}

/** What a raw string value is: unbounded text, or one of some strings. */
function stringKind(schema: JsonSchema): 'text' | readonly string[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const fields = schema as Record<string, unknown>;
  if (typeof fields.const === 'string') return [fields.const];
  if (Array.isArray(fields.enum) && fields.enum.every((member) => typeof member === 'string'))
    return fields.enum as string[];
  return fields.type === 'string' ? 'text' : undefined;
}

/** Whether a value under `schema` might be a string (then raw text could read as it). */
function mayBeString(schema: JsonSchema): boolean {
  if (typeof schema !== 'object' || schema === null) return true;
  const fields = schema as Record<string, unknown>;
  if ('const' in fields) return typeof fields.const === 'string';
  if (Array.isArray(fields.enum)) return fields.enum.some((member) => typeof member === 'string');
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = fields[keyword];
    if (Array.isArray(branches))
      return branches.some((branch) => mayBeString(branch as JsonSchema));
  }
  const { type } = fields;
  if (typeof type === 'string') return type === 'string';
  if (Array.isArray(type)) return type.includes('string');
  return !('properties' in fields || 'items' in fields);
}

/**
 * Refuses a tagged syntax these rules cannot write. Every parameter-tag syntax is written
 * through its parameter template, which these rules follow (a JSON argument block, Kimi K3's
 * `<|open|>json…`, is read but never written; CDATA is written for a string holding `<`).
 */
export function checkTaggedSyntax(_format: string, _form: TaggedCallForm): void {}

export class TaggedArguments {
  private readonly rules: GrammarRules;
  private readonly json: JsonValueRules;
  private readonly syntax: ParameterTagsSyntax;
  private readonly parameter: readonly TemplatePart[];
  /** The template names the value's type (`{type}`, `{string}`): one alternative per type. */
  private readonly typed: boolean;
  /** What raw text may not hold. */
  private readonly tags: readonly string[];
  private readonly refuse: (path: string, problem: string) => never;

  /**
   * `_plainJson` (the builder's JSON rules) is not used: JSON inside a tag is written with its own
   * rules, whose strings hold no `<` (a raw one could begin a tag the reader ends the value at, a
   * CDATA section, or the parameter's closer); the writers write it as `\u003c`.
   */
  constructor(
    rules: GrammarRules,
    _plainJson: JsonValueRules,
    form: TaggedCallForm,
    parameterTemplate: string,
    refuse: (path: string, problem: string) => never,
  ) {
    this.rules = rules;
    this.json = new JsonValueRules(rules, refuse, jsonSyntax({ markup: true }));
    this.syntax = form.syntax;
    this.refuse = refuse;
    this.parameter = templateParts(parameterTemplate, PARAMETER_PLACEHOLDERS);
    this.typed = this.parameter.some(namesType);
    // A string is written as it is. Openers inside it read back, closers do not always (a random
    // walk found `\n</tool_call>` in a value ending the call), nor the next parameter's opener at
    // the start of a line (read as the end of a value whose closer is missing): all are kept out.
    this.tags = [
      form.syntax.parameterClose,
      form.syntax.callClose,
      form.close ?? '',
      form.syntax.parameterOpen,
    ].filter((tag) => tag !== '');
  }

  /** The text the writer puts around a value (`block`: a line break on each side). */
  private wrap(value: string): string {
    return this.syntax.layout === 'block' ? `"\\n" ${value} "\\n"` : value;
  }

  /** A string written as it is (or in CDATA), before the template's `follow` text. */
  private rawString(schema: JsonSchema, key: string, follow: string): string {
    const kind = stringKind(schema);
    if (Array.isArray(kind)) {
      // The members its sibling keywords also allow (`maxLength: 1` beside `enum: ['a', 'bbb']`).
      const allowed = (allowedMembers(schema as Record<string, unknown>, key, this.refuse) ??
        kind) as readonly string[];
      const written = allowed.map((member) => writeValueText(member, this.syntax));
      // Outside CDATA a member is written as it is: one holding a closer would not read back.
      if (!this.syntax.cdata && written.some((text) => this.tags.some((tag) => text.includes(tag))))
        this.refuse(key, 'an allowed string holds a tag of the call, so it does not read back');
      return alternatives(written.map((text) => literal(text)));
    }
    const fields = schema as Record<string, unknown>;
    for (const keyword of Object.keys(fields)) {
      if (keyword !== 'type' && !ANNOTATIONS.has(keyword))
        this.refuse(
          key,
          `"${keyword}" on a string written as raw text cannot be held by a grammar yet`,
        );
    }
    if (this.syntax.cdata) return this.cdataString();
    const before = this.syntax.layout === 'block' ? `\n${follow}` : follow;
    return this.wrap(textExcluding(this.rules, 'raw', this.tags, before));
  }

  /**
   * A string in a format that reads CDATA: raw text without `<` (no tag can begin in it), or
   * CDATA sections, each holding anything but `]]>` (the writer splits a `]]>` across two).
   */
  private cdataString(): string {
    const plain = this.rules.define('raw-plain', '[^<]*');
    const inside = textExcluding(this.rules, 'cdata-text', [CDATA_CLOSE], CDATA_CLOSE);
    const section = this.rules.define(
      'cdata',
      `${literal(CDATA_OPEN)} ${inside} ${literal(CDATA_CLOSE)}`,
    );
    return this.rules.define('cdata-value', `${plain} | ${section}+`);
  }

  /** A value as `{value}` writes it: a string raw, anything else JSON. */
  private value(schema: JsonSchema, key: string, follow: string): string {
    if (stringKind(schema) !== undefined) return this.rawString(schema, key, follow);
    if (mayBeString(schema))
      this.refuse(
        key,
        'a value that may be a string or another type cannot be told apart as raw text',
      );
    return this.wrap(this.json.value(schema, `value-${key}`, key));
  }

  /** The schema split by the type the writer names, for a template with `{type}` or `{string}`. */
  private byType(schema: JsonSchema, key: string): TypedSchema[] {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      return this.refuse(key, 'a value of any type cannot be split by the type it is written as');
    const fields = schema as Record<string, unknown>;
    if ('const' in fields) return [{ type: writtenTypeOf(fields.const), schema }];
    if (Array.isArray(fields.enum)) {
      const groups = new Map<WrittenType, unknown[]>();
      for (const member of fields.enum) {
        const type = writtenTypeOf(member);
        groups.set(type, [...(groups.get(type) ?? []), member]);
      }
      return [...groups].map(([type, members]) => ({ type, schema: { enum: members } }));
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = fields[keyword];
      if (!Array.isArray(branches)) continue;
      if (Object.keys(fields).some((name) => !ANNOTATIONS.has(name) && name !== keyword))
        this.refuse(key, `${keyword} beside other keywords cannot be held by a grammar yet`);
      const split = branches.flatMap((branch) => this.byType(branch as JsonSchema, key));
      // oneOf holds as anyOf only where no value matches two branches: distinct types.
      if (keyword === 'oneOf' && new Set(split.map((one) => one.type)).size !== split.length)
        this.refuse(key, 'oneOf is held only over branches of distinct types');
      return split;
    }
    const { type } = fields;
    const types =
      typeof type === 'string'
        ? [type]
        : Array.isArray(type)
          ? type
          : 'properties' in fields || 'additionalProperties' in fields
            ? ['object']
            : 'items' in fields
              ? ['array']
              : undefined;
    if (types === undefined)
      return this.refuse(key, 'a value of any type cannot be split by the type it is written as');
    return types.map((one) => {
      const written = one === 'integer' ? 'number' : String(one);
      if (!WRITTEN_TYPES.has(written)) this.refuse(key, `unknown type "${String(one)}"`);
      return {
        type: written as WrittenType,
        schema: types.length === 1 ? schema : { ...fields, type: one },
      };
    });
  }

  /** The template for one property, its value under `schema` (of the type `type`, if named). */
  private filled(key: string, schema: JsonSchema, type: WrittenType | undefined): string {
    const pieces = this.parameter.map((part, index) => {
      if (part.kind === 'text') return literal(part.text);
      const name = part.name as string;
      if (name === 'key') return literal(writeName(key));
      if (name === 'type' && type !== undefined) return literal(type);
      if (name === 'string' && type !== undefined) return literal(String(type === 'string'));
      if (name === 'value_json') return this.json.value(schema, `value-${key}`, key);
      if (name === 'value') {
        const next = this.parameter[index + 1];
        return this.value(schema, key, next?.kind === 'text' ? next.text : '');
      }
      return this.refuse(key, `the parameter template's {${name}} gets no grammar yet`);
    });
    return pieces.join(' ');
  }

  /** One property as the template writes it: one alternative per type it may be written as. */
  private property(key: string, schema: JsonSchema): string {
    if (!this.typed) return this.filled(key, schema, undefined);
    const split = this.byType(schema, key);
    const writesRaw = this.parameter.some(
      (part) => part.kind === 'placeholder' && (part.name as string) === 'value',
    );
    // A raw string beside another type: the reader types the text by the schema, whatever the
    // attribute says.
    if (writesRaw && split.length > 1 && split.some((one) => one.type === 'string'))
      this.refuse(
        key,
        'a value that may be a string or another type cannot be told apart as raw text',
      );
    return alternatives(split.map((one) => this.filled(key, one.schema, one.type)));
  }

  /** The arguments of a call to `tool`. */
  of(tool: ToolDefinition): string {
    const schema = tool.inputSchema;
    const fields = (typeof schema === 'object' && schema !== null ? schema : {}) as Record<
      string,
      unknown
    >;
    const properties = (fields.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(fields.required) ? (fields.required as string[]) : []);
    for (const name of required) {
      if (!Object.hasOwn(properties, name))
        this.refuse(name, 'a required argument without a schema in properties');
    }
    const items = Object.entries(properties).map(([key, property]) => {
      const body = this.property(key, property);
      return required.has(key) ? body : `( ${body} )?`;
    });
    return items.length === 0 ? '""' : this.rules.define(`args-${tool.name}`, items.join(' '));
  }
}
