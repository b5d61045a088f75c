/**
 * JSON values as grammar rules, following a tool's JSON Schema: types, `enum`/`const`, objects
 * with their `properties` (in the schema's order, optional ones skippable), `required` and
 * `additionalProperties`, arrays with `items` and item counts, strings with length bounds,
 * `anyOf`, and `oneOf` over distinct types. The value rules (string, number, any JSON) are
 * defined once and shared by every tool.
 *
 * A grammar may accept less than the schema (one property order, no undeclared properties), but
 * never more: a keyword it cannot hold exactly (`pattern`, `format`, `minimum`, `$ref`…) is
 * refused with an error naming it, so what the grammar lets a model write always validates.
 */
import type { JsonSchema } from '../../core/index.ts';
import { alternatives, literal } from './gbnf-text.ts';
import type { GrammarRules } from './grammar-rules.ts';

/** Keywords that say nothing about which values are valid. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$schema',
  '$id',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/** Keywords this generator holds exactly. */
const HELD = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'anyOf',
  'oneOf',
  'minimum',
  'uniqueItems',
]);

/** Most items or characters a bounded repetition may name (llama.cpp refuses large products). */
const MAX_BOUND = 1000;
/** Objects with more members than this chain their optional members through rules. */
const MAX_INLINE_MEMBERS = 6;
/** JSON white space between tokens: none, a space, or a line break and an indent. */
const WHITE_SPACE = '( " " | "\\n" [ \\t]{0,16} )?';

/** A schema without `type` that holds object or array keywords is taken as that type. */
function impliedTypes(schema: Record<string, unknown>): readonly string[] | undefined {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type))
    return type.filter((entry): entry is string => typeof entry === 'string');
  if ('properties' in schema || 'additionalProperties' in schema || 'required' in schema)
    return ['object'];
  if ('items' in schema || 'minItems' in schema || 'maxItems' in schema) return ['array'];
  if ('minLength' in schema || 'maxLength' in schema) return ['string'];
  return undefined;
}

/**
 * JSON text of `value` as a grammar expression: the text `JSON.stringify` writes, with each `<`
 * and `>` also allowed as the `\u003c`/`\u003e` escape toolwire's writers use in prompts.
 */
export function jsonLiteral(value: unknown): string {
  const text = JSON.stringify(value);
  const parts: string[] = [];
  let from = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character !== '<' && character !== '>') continue;
    if (index > from) parts.push(literal(text.slice(from, index)));
    parts.push(
      character === '<' ? `( "<" | ${literal('\\u003c')} )` : `( ">" | ${literal('\\u003e')} )`,
    );
    from = index + 1;
  }
  if (from < text.length || parts.length === 0) parts.push(literal(text.slice(from)));
  return parts.join(' ');
}

export class JsonValueRules {
  private readonly rules: GrammarRules;
  /** Throws the error that names the format and tool; `path` is where in the arguments. */
  private readonly refuse: (path: string, problem: string) => never;

  constructor(rules: GrammarRules, refuse: (path: string, problem: string) => never) {
    this.rules = rules;
    this.refuse = refuse;
  }

  /** White space between JSON tokens (shared). */
  ws(): string {
    return this.rules.define('ws', WHITE_SPACE);
  }

  private character(): string {
    // No \u escape of a surrogate: a lone one is no character, and a pair counts two for lengths.
    const hex = this.rules.define(
      'json-hex4',
      '( [0-9a-cA-Ce-fE-F] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2} )',
    );
    return this.rules.define(
      'json-char',
      `[^"\\\\\\x00-\\x1f\\x7f] | "\\\\" ( ["\\\\/bfnrt] | "u" ${hex} )`,
    );
  }

  string(): string {
    return this.rules.define('json-string', `"\\"" ${this.character()}* "\\""`);
  }

  private integer(minimum?: 0 | 1): string {
    if (minimum === 1) return this.rules.define('json-positive', '[1-9] [0-9]{0,20}');
    if (minimum === 0) return this.rules.define('json-natural', '( "0" | [1-9] [0-9]{0,20} )');
    return this.rules.define('json-integer', '"-"? ( "0" | [1-9] [0-9]{0,20} )');
  }

  private number(): string {
    // Digits bounded so every number is finite (1e999 would read as Infinity); a small one may
    // underflow to 0 (JSON.stringify writes 5e-324).
    return this.rules.define(
      'json-number',
      `${this.integer()} ( "." [0-9]{1,24} )? ( [eE] ( "-" [0-9]{1,3} | "+"? [0-9]{1,2} ) )?`,
    );
  }

  /** Any JSON value (shared, recursive). */
  any(): string {
    return this.rules.defineRecursive('json-value', (value) => {
      const ws = this.ws();
      const member = `${this.string()} ${ws} ":" ${ws} ${value}`;
      const object = this.rules.define(
        'json-object',
        `"{" ${ws} ( ${member} ( ${ws} "," ${ws} ${member} )* ${ws} )? "}"`,
      );
      const array = this.rules.define(
        'json-array',
        `"[" ${ws} ( ${value} ( ${ws} "," ${ws} ${value} )* ${ws} )? "]"`,
      );
      return `${object} | ${array} | ${this.string()} | ${this.number()} | "true" | "false" | "null"`;
    });
  }

  /** An expression for a value valid under `schema`; `hint` names its rules, `path` its errors. */
  value(schema: JsonSchema, hint: string, path: string): string {
    if (schema === true) return this.any();
    if (schema === false || typeof schema !== 'object' || schema === null || Array.isArray(schema))
      return this.refuse(path, 'the schema allows no value');
    const fields = schema as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!HELD.has(key) && !ANNOTATIONS.has(key))
        this.refuse(path, `JSON Schema keyword "${key}" cannot be held by a grammar yet`);
    }
    if ('const' in fields) return jsonLiteral(fields.const);
    if (Array.isArray(fields.enum)) {
      if (fields.enum.length === 0) this.refuse(path, 'an empty enum allows no value');
      return alternatives(fields.enum.map((member) => jsonLiteral(member)));
    }
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = fields[keyword];
      if (branches === undefined) continue;
      if (!Array.isArray(branches) || branches.length === 0)
        this.refuse(path, `${keyword} must be a non-empty list`);
      if (Object.keys(fields).some((key) => !ANNOTATIONS.has(key) && key !== keyword))
        this.refuse(path, `${keyword} beside other keywords cannot be held by a grammar yet`);
      if (keyword === 'oneOf') this.checkDisjoint(branches as JsonSchema[], path);
      return alternatives(
        (branches as JsonSchema[]).map((branch, index) =>
          this.value(branch, `${hint}-${index + 1}`, path),
        ),
      );
    }
    const types = impliedTypes(fields);
    if (types === undefined) return this.any();
    if (types.length === 0) return this.refuse(path, 'an empty type list allows no value');
    return alternatives(types.map((type) => this.typed(type, fields, hint, path)));
  }

  /** `oneOf` holds as `anyOf` only when no value can match two branches: distinct types. */
  private checkDisjoint(branches: readonly JsonSchema[], path: string): void {
    const seen = new Set<string>();
    for (const branch of branches) {
      const type =
        typeof branch === 'object' && branch !== null
          ? (branch as { type?: unknown }).type
          : undefined;
      const kind = type === 'integer' ? 'number' : type;
      if (typeof kind !== 'string' || seen.has(kind))
        this.refuse(path, 'oneOf is held only over branches of distinct types');
      seen.add(kind);
    }
  }

  private typed(type: string, fields: Record<string, unknown>, hint: string, path: string): string {
    switch (type) {
      case 'string':
        return this.boundedString(fields, path);
      case 'integer': {
        const { minimum } = fields;
        if (minimum === undefined) return this.integer();
        if (minimum === 0 || minimum === 1) return this.integer(minimum);
        return this.refuse(path, 'minimum other than 0 or 1 cannot be held by a grammar yet');
      }
      case 'number':
        if (fields.minimum !== undefined)
          this.refuse(path, 'a number minimum cannot be held by a grammar yet');
        return this.number();
      case 'boolean':
        return '( "true" | "false" )';
      case 'null':
        return '"null"';
      case 'object':
        return this.object(fields, hint, path);
      case 'array':
        return this.array(fields, hint, path);
      default:
        return this.refuse(path, `unknown type "${type}"`);
    }
  }

  private bound(fields: Record<string, unknown>, key: string, path: string): number | undefined {
    const value = fields[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_BOUND)
      this.refuse(path, `${key} must be an integer from 0 to ${MAX_BOUND} for a grammar`);
    return value;
  }

  private boundedString(fields: Record<string, unknown>, path: string): string {
    const min = this.bound(fields, 'minLength', path) ?? 0;
    const max = this.bound(fields, 'maxLength', path);
    if (min === 0 && max === undefined) return this.string();
    const count = max === undefined ? `{${min},}` : `{${min},${max}}`;
    return this.rules.define(
      `json-string-${min}-${max ?? 'n'}`,
      `"\\"" ( ${this.character()} )${count} "\\""`,
    );
  }

  private array(fields: Record<string, unknown>, hint: string, path: string): string {
    if (fields.uniqueItems === true)
      this.refuse(path, 'uniqueItems cannot be held by a grammar yet');
    const item =
      fields.items === undefined
        ? this.any()
        : this.value(fields.items as JsonSchema, `${hint}-item`, `${path}[]`);
    const min = this.bound(fields, 'minItems', path) ?? 0;
    const max = this.bound(fields, 'maxItems', path);
    if (max !== undefined && max < min) this.refuse(path, 'maxItems is below minItems');
    const ws = this.ws();
    const more = `( ${ws} "," ${ws} ${item} )`;
    let body: string;
    if (max === 0) body = `"[" ${ws} "]"`;
    else {
      const rest =
        max === undefined
          ? min <= 1
            ? `${more}*`
            : `${more}{${min - 1},}`
          : `${more}{${Math.max(min - 1, 0)},${max - 1}}`;
      const items = `${item} ${rest} ${ws}`;
      body = min === 0 ? `"[" ${ws} ( ${items} )? "]"` : `"[" ${ws} ${items} "]"`;
    }
    return this.rules.define(hint, body);
  }

  private object(fields: Record<string, unknown>, hint: string, path: string): string {
    const properties = (fields.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(fields.required) ? (fields.required as string[]) : []);
    const extra = fields.additionalProperties as JsonSchema | undefined;
    const names = Object.keys(properties);
    for (const name of required) {
      if (Object.hasOwn(properties, name)) continue;
      if (extra === false) this.refuse(path, `required "${name}" is not among the properties`);
      names.push(name);
    }
    const ws = this.ws();
    if (names.length === 0 && extra !== false) {
      // A map: any keys, each value under additionalProperties.
      const value =
        extra === undefined || extra === true
          ? this.any()
          : this.value(extra, `${hint}-value`, `${path}{}`);
      const member = `${this.string()} ${ws} ":" ${ws} ${value}`;
      return this.rules.define(
        hint,
        `"{" ${ws} ( ${member} ( ${ws} "," ${ws} ${member} )* ${ws} )? "}"`,
      );
    }
    const members = names.map((name) => {
      const schema = Object.hasOwn(properties, name) ? (properties[name] as JsonSchema) : true;
      const value = this.value(schema, `${hint}-${name}`, path === '' ? name : `${path}.${name}`);
      return `${jsonLiteral(name)} ${ws} ":" ${ws} ${value}`;
    });
    const isRequired = (index: number) => required.has(names[index] as string);
    const item = (index: number) => {
      const written = `${ws} "," ${ws} ${members[index]}`;
      return isRequired(index) ? written : `( ${written} )?`;
    };
    // after(i): what may follow once a member before i was written. Inline (a flat sequence) for
    // a small object; a chain of rules for a large one, where each optional leading member
    // below repeats it.
    const large = names.length > MAX_INLINE_MEMBERS;
    const after = (from: number): string => {
      if (from >= names.length) return '';
      if (!large)
        return names
          .map((_, index) => index)
          .slice(from)
          .map(item)
          .join(' ');
      const rest = after(from + 1);
      return this.rules.define(
        `${hint}-after-${from}`,
        rest === '' ? item(from) : `${item(from)} ${rest}`,
      );
    };
    // The first member written: the first one, or (while they are optional) a later one.
    const firsts: string[] = [];
    for (let index = 0; index < names.length; index++) {
      const rest = after(index + 1);
      firsts.push(rest === '' ? (members[index] as string) : `${members[index]} ${rest}`);
      if (isRequired(index)) break;
    }
    const first = firsts.length === 1 ? (firsts[0] as string) : `( ${firsts.join(' | ')} )`;
    const anyRequired = names.some((name) => required.has(name));
    const body = anyRequired ? `"{" ${ws} ${first} ${ws} "}"` : `"{" ${ws} ( ${first} ${ws} )? "}"`;
    return this.rules.define(hint, body);
  }
}
