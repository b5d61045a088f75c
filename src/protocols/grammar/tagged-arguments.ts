/**
 * Arguments written as parameter tags (`<parameter=city>\nOslo\n</parameter>\n`, GLM's
 * `<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n`), as grammar: the format's parameter
 * template per property, in the schema's order (optional ones skippable); a string value as raw
 * text that holds none of the format's closers, anything else as JSON under its schema, laid out as
 * the format's writer lays it out (a `block` value on lines of its own).
 *
 * A value a grammar cannot write so that it reads back valid is refused: a string with length
 * bounds or a union of a string and another type (raw text would read as either).
 */
import type { JsonSchema, ToolDefinition } from '../../core/index.ts';
import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import { writeName } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { TaggedCallForm } from '../spec/types.ts';
import { alternatives, literal } from './gbnf-text.ts';
import { GrammarUnsupportedError } from './grammar-error.ts';
import type { GrammarRules } from './grammar-rules.ts';
import type { JsonValueRules } from './json-value-rules.ts';
import { PARAMETER_PLACEHOLDERS, templateParts } from './reply-shape.ts';
import { textExcluding } from './text-excluding.ts';

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

/** Refuses a tagged syntax these rules cannot write yet (CDATA values, JSON argument blocks). */
export function checkTaggedSyntax(format: string, form: TaggedCallForm): void {
  if (form.syntax.cdata || form.syntax.argumentsOpen !== undefined) {
    throw new GrammarUnsupportedError(
      format,
      'its tagged calls write CDATA or JSON argument blocks, which get no grammar yet',
    );
  }
}

export class TaggedArguments {
  private readonly rules: GrammarRules;
  private readonly json: JsonValueRules;
  private readonly syntax: ParameterTagsSyntax;
  private readonly parameter: ReturnType<typeof templateParts>;
  /** What raw text may not hold. */
  private readonly tags: readonly string[];
  private readonly refuse: (path: string, problem: string) => never;

  constructor(
    rules: GrammarRules,
    json: JsonValueRules,
    form: TaggedCallForm,
    parameterTemplate: string,
    refuse: (path: string, problem: string) => never,
  ) {
    this.rules = rules;
    this.json = json;
    this.syntax = form.syntax;
    this.refuse = refuse;
    this.parameter = templateParts(parameterTemplate, PARAMETER_PLACEHOLDERS);
    // A string is written as it is. Openers inside it read back, closers do not always (a random
    // walk found `\n</tool_call>` in a value ending the call): the closers are kept out.
    this.tags = [form.syntax.parameterClose, form.syntax.callClose, form.close ?? ''].filter(
      (tag) => tag !== '',
    );
  }

  /** The text the writer puts around a value (`block`: a line break on each side). */
  private wrap(value: string): string {
    return this.syntax.layout === 'block' ? `"\\n" ${value} "\\n"` : value;
  }

  private value(schema: JsonSchema, key: string, follow: string): string {
    const kind = stringKind(schema);
    if (Array.isArray(kind)) return this.wrap(alternatives(kind.map((member) => literal(member))));
    if (kind === 'text') {
      const fields = schema as Record<string, unknown>;
      for (const keyword of ['minLength', 'maxLength', 'pattern', 'format']) {
        if (keyword in fields)
          this.refuse(
            key,
            `"${keyword}" on a string written as raw text cannot be held by a grammar yet`,
          );
      }
      const before = this.syntax.layout === 'block' ? `\n${follow}` : follow;
      return this.wrap(textExcluding(this.rules, 'raw', this.tags, before));
    }
    if (mayBeString(schema))
      this.refuse(
        key,
        'a value that may be a string or another type cannot be told apart as raw text',
      );
    return this.wrap(this.json.value(schema, `value-${key}`, key));
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
      const pieces = this.parameter.map((part, index) => {
        if (part.kind === 'text') return literal(part.text);
        if (part.name === ('key' as string)) return literal(writeName(key));
        if (part.name === ('value' as string)) {
          const next = this.parameter[index + 1];
          return this.value(property, key, next?.kind === 'text' ? next.text : '');
        }
        return this.refuse(key, `the parameter template's {${part.name}} gets no grammar yet`);
      });
      const body = pieces.join(' ');
      return required.has(key) ? body : `( ${body} )?`;
    });
    return items.length === 0 ? '""' : this.rules.define(`args-${tool.name}`, items.join(' '));
  }
}
