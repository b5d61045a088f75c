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
import { createValidator } from '../../schema/index.ts';
import { alternatives } from './gbnf-text.ts';
import type { GrammarRules } from './grammar-rules.ts';
import { JSON_SYNTAX, type ValueSyntax } from './value-syntax.ts';

export { jsonLiteral } from './value-syntax.ts';

/**
 * Keywords that say nothing about which values are valid: every grammar's argument rules
 * (JSON values here, xml-arguments.ts, tagged-arguments.ts) pass them over.
 */
export const ANNOTATIONS: ReadonlySet<string> = new Set([
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

/**
 * Keywords a validator checks on a value, held exactly beside `const` or `enum`: the members
 * are finite, so each is kept or dropped by the whole schema (`{type: 'string', enum: ['a', 1]}`
 * allows only "a"). `$ref` and the like are not among them: refused by name.
 */
const MEMBER_CHECKED: ReadonlySet<string> = new Set([
  ...HELD,
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'pattern',
  'format',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'patternProperties',
  'contains',
  'allOf',
  'not',
]);

const memberValidator = createValidator();

/**
 * Refuses every keyword of `fields` outside `held` and the annotations, naming it; gives the
 * branches of an `anyOf` or `oneOf`, which must stand alone (beside annotations only).
 */
export function combinatorOf(
  fields: Readonly<Record<string, unknown>>,
  held: ReadonlySet<string>,
  path: string,
  refuse: (path: string, problem: string) => never,
): { readonly keyword: 'anyOf' | 'oneOf'; readonly branches: JsonSchema[] } | undefined {
  for (const key of Object.keys(fields)) {
    if (!held.has(key) && !ANNOTATIONS.has(key))
      refuse(path, `JSON Schema keyword "${key}" cannot be held by a grammar yet`);
  }
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = fields[keyword];
    if (branches === undefined) continue;
    if (!Array.isArray(branches) || branches.length === 0)
      refuse(path, `${keyword} must be a non-empty list`);
    if (Object.keys(fields).some((key) => !ANNOTATIONS.has(key) && key !== keyword))
      refuse(path, `${keyword} beside other keywords cannot be held by a grammar yet`);
    return { keyword, branches: branches as JsonSchema[] };
  }
  return undefined;
}

/**
 * The values a schema with `const` or `enum` allows: its members that its sibling keywords
 * also allow. Undefined when it has neither; refuses a sibling no validator holds, and a schema
 * no member of which is valid.
 */
export function allowedMembers(
  fields: Record<string, unknown>,
  path: string,
  refuse: (path: string, problem: string) => never,
): readonly unknown[] | undefined {
  const hasConst = 'const' in fields;
  if (!hasConst && !('enum' in fields)) return undefined;
  const members = hasConst ? [fields.const] : fields.enum;
  if (!Array.isArray(members) || members.length === 0)
    return refuse(path, 'an empty enum allows no value');
  const siblings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (ANNOTATIONS.has(key) || key === 'const' || key === 'enum') continue;
    if (!MEMBER_CHECKED.has(key))
      refuse(path, `JSON Schema keyword "${key}" cannot be held by a grammar yet`);
    siblings[key] = value;
  }
  // Both const and enum: a member must be each.
  const other = hasConst && Array.isArray(fields.enum) ? fields.enum : undefined;
  const allowed = members.filter(
    (member) =>
      memberValidator.validate(member, siblings as JsonSchema).length === 0 &&
      (other === undefined ||
        memberValidator.validate(member, { enum: other } as JsonSchema).length === 0),
  );
  if (allowed.length === 0)
    refuse(path, 'no member of the enum (or const) is valid beside its sibling keywords');
  return allowed;
}

/** Most items or characters a bounded repetition may name (llama.cpp refuses large products). */
const MAX_BOUND = 1000;
/** Objects with more members than this chain their optional members through rules. */
const MAX_INLINE_MEMBERS = 6;

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
  // A bound on numbers: other types would pass it, but a grammar may allow less, never more.
  if ('minimum' in schema) return ['number'];
  return undefined;
}

/** Pieces of a sequence, the empty ones left out. */
function sequence(...pieces: readonly string[]): string {
  return pieces.filter((piece) => piece !== '').join(' ');
}

/**
 * The members of an object as grammar: each declared one in the schema's order, the optional
 * ones skippable, written by `member` and separated by `comma`. `optional`: all may be left out.
 */
export interface ObjectMembers {
  readonly body: string;
  readonly optional: boolean;
}

export class JsonValueRules {
  private readonly rules: GrammarRules;
  /** Throws the error that names the format and tool; `path` is where in the arguments. */
  private readonly refuse: (path: string, problem: string) => never;
  /** How values are written: JSON unless the codec writes them otherwise. */
  readonly syntax: ValueSyntax;

  constructor(
    rules: GrammarRules,
    refuse: (path: string, problem: string) => never,
    syntax: ValueSyntax = JSON_SYNTAX,
  ) {
    this.rules = rules;
    this.refuse = refuse;
    this.syntax = syntax;
  }

  /** White space between JSON tokens (shared; nothing in a syntax that writes none). */
  ws(): string {
    return this.syntax.padding(this.rules);
  }

  string(): string {
    return this.syntax.string(this.rules);
  }

  /**
   * At most 15 digits: every such integer is a safe one, read back exactly wherever it stands (a
   * walk wrote 606657323029142364760 in a parameter tag, which the tagged reader keeps as text).
   */
  private integer(minimum?: 0 | 1): string {
    if (minimum === 1) return this.rules.define('json-positive', '[1-9] [0-9]{0,14}');
    if (minimum === 0) return this.rules.define('json-natural', '( "0" | [1-9] [0-9]{0,14} )');
    return this.rules.define('json-integer', '"-"? ( "0" | [1-9] [0-9]{0,14} )');
  }

  private number(): string {
    // Digits bounded so every number is finite (1e999 would read as Infinity); a small one may
    // underflow to 0 (JSON.stringify writes 5e-324). Up to 21 digits before the point, as
    // JSON.stringify writes a number below 1e21. Every syntax writes numbers as JSON does.
    const whole = this.rules.define('json-whole', '"-"? ( "0" | [1-9] [0-9]{0,20} )');
    return this.rules.define(
      'json-number',
      `${whole} ( "." [0-9]{1,24} )? ( [eE] ( "-" [0-9]{1,3} | "+"? [0-9]{1,2} ) )?`,
    );
  }

  /** A value fixed by the schema, or refused where the syntax cannot write it. */
  private fixed(value: unknown, path: string): string {
    return (
      this.syntax.literal(value) ??
      this.refuse(path, `the value ${JSON.stringify(value)} cannot be written in this format`)
    );
  }

  /** `open`, the members or items, `close`, with the syntax's padding inside. */
  private bracketed(open: string, inside: string, close: string, optional: boolean): string {
    const padding = this.ws();
    return optional
      ? sequence(`"${open}"`, padding, `( ${sequence(inside, padding)} )?`, `"${close}"`)
      : sequence(`"${open}"`, padding, inside, padding, `"${close}"`);
  }

  /** Any JSON value (shared, recursive). */
  any(): string {
    const { syntax } = this;
    return this.rules.defineRecursive(`${syntax.id}-value`, (value) => {
      const comma = syntax.comma(this.rules);
      const member = sequence(syntax.anyKey(this.rules), syntax.colon(this.rules), value);
      const object = this.rules.define(
        `${syntax.id}-object`,
        this.bracketed('{', `${member} ( ${comma} ${member} )*`, '}', true),
      );
      const array = this.rules.define(
        `${syntax.id}-array`,
        this.bracketed('[', `${value} ( ${comma} ${value} )*`, ']', true),
      );
      const { words } = syntax;
      return `${object} | ${array} | ${this.string()} | ${this.number()} | ${words.true} | ${words.false} | ${words.null}`;
    });
  }

  /** An expression for a value valid under `schema`; `hint` names its rules, `path` its errors. */
  value(schema: JsonSchema, hint: string, path: string): string {
    if (schema === true) return this.any();
    if (schema === false || typeof schema !== 'object' || schema === null || Array.isArray(schema))
      return this.refuse(path, 'the schema allows no value');
    const fields = schema as Record<string, unknown>;
    const members = allowedMembers(fields, path, this.refuse);
    if (members !== undefined)
      return alternatives(members.map((member) => this.fixed(member, path)));
    const combinator = combinatorOf(fields, HELD, path, this.refuse);
    if (combinator !== undefined) {
      const { keyword, branches } = combinator;
      if (keyword === 'oneOf') this.checkDisjoint(branches, path);
      return alternatives(
        branches.map((branch, index) => this.value(branch, `${hint}-${index + 1}`, path)),
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
        return `( ${this.syntax.words.true} | ${this.syntax.words.false} )`;
      case 'null':
        return this.syntax.words.null;
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
    return (
      this.syntax.boundedString(this.rules, min, max) ??
      this.refuse(path, 'a string with length bounds cannot be held in this format yet')
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
    const more = `( ${this.syntax.comma(this.rules)} ${item} )`;
    let body: string;
    if (max === 0) body = sequence('"["', this.ws(), '"]"');
    else {
      const rest =
        max === undefined
          ? min <= 1
            ? `${more}*`
            : `${more}{${min - 1},}`
          : `${more}{${Math.max(min - 1, 0)},${max - 1}}`;
      body = this.bracketed('[', `${item} ${rest}`, ']', min === 0);
    }
    return this.rules.define(hint, body);
  }

  private object(fields: Record<string, unknown>, hint: string, path: string): string {
    const { syntax } = this;
    const properties = (fields.properties ?? {}) as Record<string, JsonSchema>;
    const extra = fields.additionalProperties as JsonSchema | undefined;
    const comma = syntax.comma(this.rules);
    const colon = syntax.colon(this.rules);
    const declared =
      Object.keys(properties).length > 0 ||
      (Array.isArray(fields.required) && fields.required.length > 0);
    if (!declared && extra !== false) {
      // A map: any keys, each value under additionalProperties.
      const value =
        extra === undefined || extra === true
          ? this.any()
          : this.value(extra, `${hint}-value`, `${path}{}`);
      const member = sequence(syntax.anyKey(this.rules), colon, value);
      return this.rules.define(
        hint,
        this.bracketed('{', `${member} ( ${comma} ${member} )*`, '}', true),
      );
    }
    const written = this.members(
      fields,
      hint,
      path,
      (name, value) => {
        const key =
          syntax.key(name) ??
          this.refuse(
            path,
            `the property name ${JSON.stringify(name)} cannot be written in this format`,
          );
        return sequence(key, colon, value);
      },
      comma,
    );
    if (written.body === '') return this.rules.define(hint, sequence('"{"', this.ws(), '"}"'));
    return this.rules.define(hint, this.bracketed('{', written.body, '}', written.optional));
  }

  /**
   * The declared members of an object (`properties`, and `required` names without a schema), in
   * the schema's order, the optional ones skippable: each written by `member` from its name and
   * value expression, separated by `comma`. An object's braces go around them; Python's keyword
   * arguments are the same members without braces.
   */
  members(
    fields: Record<string, unknown>,
    hint: string,
    path: string,
    member: (name: string, value: string) => string,
    comma: string,
  ): ObjectMembers {
    const properties = (fields.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set(Array.isArray(fields.required) ? (fields.required as string[]) : []);
    const extra = fields.additionalProperties as JsonSchema | undefined;
    const names = Object.keys(properties);
    for (const name of required) {
      if (Object.hasOwn(properties, name)) continue;
      if (extra === false) this.refuse(path, `required "${name}" is not among the properties`);
      names.push(name);
    }
    if (names.length === 0) return { body: '', optional: true };
    const members = names.map((name) => {
      const schema = Object.hasOwn(properties, name) ? (properties[name] as JsonSchema) : true;
      const value = this.value(schema, `${hint}-${name}`, path === '' ? name : `${path}.${name}`);
      return member(name, value);
    });
    const isRequired = (index: number) => required.has(names[index] as string);
    const item = (index: number) => {
      const written = `${comma} ${members[index]}`;
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
    return { body: first, optional: !names.some((name) => required.has(name)) };
  }
}
