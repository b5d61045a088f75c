/**
 * Calls of Probe's XML protocol (`xml`) as grammar, following its writer (`formatXmlToolCall`):
 * the tool's element, one child element per argument in the schema's order (optional ones
 * skippable), each value as the writer renders it and the element reader reads it back:
 * - a string as text with `&amp;` `&lt;` `&gt;` (and `&quot;` `&apos;`, which the reader decodes
 *   too) for its markup characters, or as CDATA sections, each without `]]>` (the writer splits
 *   a `]]>` across two, and uses CDATA for a string with white space at an edge);
 * - a number, boolean or null as its JSON text, which the reader types by the schema;
 * - an object as one element per declared property, an array as one `<item>` element per item,
 *   each on a line of its own (any indentation: the reader takes it as layout); an empty one as
 *   its JSON text (`{}`, `[]`), as the writer writes it.
 * The elements an object's keys name must be matched by their closing tags, which a grammar can
 * do only for names it knows: an object without declared properties (whose keys the writer names
 * at writing time) is refused, and so are names no XML element can have or that the reader reads
 * otherwise (`item` makes an array).
 */
import type {
  JsonSchema,
  ToolCallProtocol,
  ToolCallToFormat,
  ToolDefinition,
} from '../../core/index.ts';
import { formatXmlToolCall } from '../xml/format.ts';
import { alternatives, literal } from './gbnf-text.ts';
import type { GrammarRules } from './grammar-rules.ts';
import { allowedMembers, combinatorOf, type JsonValueRules } from './json-value-rules.ts';
import { textExcluding } from './text-excluding.ts';

/** An element name as the writer checks it (the reader's name characters include these). */
const XML_NAME = /^[A-Za-z_][\w.-]*$/;

const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';

/** Most items an array's bounds may name (llama.cpp refuses large repetitions). */
const MAX_BOUND = 1000;

/** Keywords these rules hold (a scalar's own are checked by the JSON value rules). */
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
  'anyOf',
  'oneOf',
  'minimum',
  'uniqueItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
]);

/** Calls whose writing tells the XML writer from any other (nested values, escapes, CDATA). */
const PROBE: readonly ToolCallToFormat[] = [
  {
    toolName: 'probe_tool',
    input: { text: 'a<b>&c', edge: ' x ', list: [1, 'y'], nested: { flag: true }, none: {} },
  },
  { toolName: 'other_tool', input: {} },
];

/** Whether `protocol` writes its calls as the XML protocol's writer does. */
export function writesXmlElements(protocol: ToolCallProtocol): boolean {
  return protocol.formatToolCall(PROBE) === formatXmlToolCall(PROBE);
}

/** A scalar as the writer renders it inside an element: what it writes between the tags. */
function renderedScalar(value: unknown): string {
  const written = formatXmlToolCall([{ toolName: 't', input: { v: value } }]);
  const open = '<v>';
  return written.slice(written.indexOf(open) + open.length, written.lastIndexOf('</v>'));
}

export class XmlArguments {
  private readonly rules: GrammarRules;
  private readonly json: JsonValueRules;
  private readonly refuse: (path: string, problem: string) => never;

  constructor(
    rules: GrammarRules,
    json: JsonValueRules,
    refuse: (path: string, problem: string) => never,
  ) {
    this.rules = rules;
    this.json = json;
    this.refuse = refuse;
  }

  /** A line break and the indentation before an element or a closing tag. */
  private layout(): string {
    return this.rules.define('xml-layout', '"\\n" [ \\t]{0,64}');
  }

  /** A string as element text: escaped markup characters, or CDATA sections. */
  private text(): string {
    const escaped = this.rules.define(
      'xml-text',
      '( [^<&] | "&" ( "amp" | "lt" | "gt" | "quot" | "apos" ) ";" )*',
    );
    const inside = textExcluding(this.rules, 'xml-cdata-text', [CDATA_CLOSE], CDATA_CLOSE);
    const section = this.rules.define(
      'xml-cdata',
      `${literal(CDATA_OPEN)} ${inside} ${literal(CDATA_CLOSE)}`,
    );
    return this.rules.define('xml-string', `${escaped} | ${section}+`);
  }

  /** An element's name, checked: one the writer writes and the reader reads as that key. */
  private elementName(name: string, path: string): string {
    if (!XML_NAME.test(name))
      this.refuse(path, `"${name}" cannot be written as an XML element's name`);
    if (name === 'item')
      this.refuse(path, 'a property named "item" reads as an array item, not as the property');
    return name;
  }

  /** Children elements, each on a line of its own, then the line the closing tag stands on. */
  private children(members: readonly string[], required: readonly boolean[], hint: string): string {
    const layout = this.layout();
    const item = (index: number) => {
      const written = `${layout} ${members[index]}`;
      return required[index] ? written : `( ${written} )?`;
    };
    // after(i): what may follow once a member before i was written (a chain of rules).
    const after = (from: number): string => {
      if (from >= members.length) return '';
      const rest = after(from + 1);
      return this.rules.define(`${hint}-after`, rest === '' ? item(from) : `${item(from)} ${rest}`);
    };
    const firsts: string[] = [];
    for (let index = 0; index < members.length; index++) {
      const rest = after(index + 1);
      firsts.push(`${layout} ${members[index]}${rest === '' ? '' : ` ${rest}`}`);
      if (required[index]) break;
    }
    return `${alternatives(firsts)} ${layout}`;
  }

  /** The elements of an object's declared properties (`{}` when none is required and none given). */
  private object(fields: Record<string, unknown>, hint: string, path: string): string {
    const properties = fields.properties as Record<string, JsonSchema> | undefined;
    if (
      typeof properties !== 'object' ||
      properties === null ||
      Object.keys(properties).length === 0
    )
      return this.refuse(
        path,
        'an object without declared properties has keys a grammar cannot name (the writer makes them elements)',
      );
    const names = Object.keys(properties);
    const required = new Set(Array.isArray(fields.required) ? (fields.required as string[]) : []);
    for (const name of required) {
      if (!Object.hasOwn(properties, name))
        this.refuse(path, `required "${name}" is not among the properties`);
    }
    const members = names.map((name) => {
      const where = path === '' ? name : `${path}.${name}`;
      const tag = this.elementName(name, where);
      const value = this.value(properties[name] as JsonSchema, `${hint}-${name}`, where);
      return `${literal(`<${tag}>`)} ${value} ${literal(`</${tag}>`)}`;
    });
    const children = this.children(
      members,
      names.map((name) => required.has(name)),
      hint,
    );
    const body = required.size === 0 ? `"{}" | ${children}` : children;
    return this.rules.define(hint, body);
  }

  private bound(fields: Record<string, unknown>, key: string, path: string): number | undefined {
    const value = fields[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_BOUND)
      this.refuse(path, `${key} must be an integer from 0 to ${MAX_BOUND} for a grammar`);
    return value;
  }

  /** One `<item>` element per item, or `[]`. */
  private array(fields: Record<string, unknown>, hint: string, path: string): string {
    if (fields.uniqueItems === true)
      this.refuse(path, 'uniqueItems cannot be held by a grammar yet');
    if (fields.items === undefined || typeof fields.items === 'boolean')
      this.refuse(
        path,
        'an array without an items schema may hold objects whose keys a grammar cannot name',
      );
    const min = this.bound(fields, 'minItems', path) ?? 0;
    const max = this.bound(fields, 'maxItems', path);
    if (max !== undefined && max < min) this.refuse(path, 'maxItems is below minItems');
    const item = `"<item>" ${this.value(fields.items as JsonSchema, `${hint}-item`, `${path}[]`)} "</item>"`;
    const layout = this.layout();
    const more = `( ${layout} ${item} )`;
    const count =
      max === undefined
        ? min <= 1
          ? '*'
          : `{${min - 1},}`
        : `{${Math.max(min - 1, 0)},${max - 1}}`;
    const items = `${layout} ${item} ${more}${count} ${layout}`;
    const choices = [];
    if (min === 0) choices.push('"[]"');
    if (max !== 0) choices.push(items);
    return this.rules.define(hint, choices.join(' | '));
  }

  /** A value under `schema` as element content; `hint` names its rules, `path` its errors. */
  private value(schema: JsonSchema, hint: string, path: string): string {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
      return this.refuse(
        path,
        'a value of any type may be an object whose keys a grammar cannot name',
      );
    const fields = schema as Record<string, unknown>;
    // Members its sibling keywords also allow (`{type: 'string', enum: ['a', 1]}`: only "a").
    const members = allowedMembers(fields, path, this.refuse);
    if (members !== undefined) {
      if (members.some((member) => typeof member === 'object' && member !== null))
        this.refuse(path, 'an enum of objects or arrays cannot be held by a grammar yet');
      return alternatives(members.map((member) => literal(renderedScalar(member))));
    }
    const combinator = combinatorOf(fields, HELD, path, this.refuse);
    if (combinator !== undefined) {
      const { keyword, branches } = combinator;
      const types = branches.map((branch) =>
        typeof branch === 'object' && branch !== null
          ? (branch as { type?: unknown }).type
          : undefined,
      );
      if (keyword === 'oneOf') {
        const kinds = types.map((type) => (type === 'integer' ? 'number' : type));
        if (kinds.some((kind) => typeof kind !== 'string') || new Set(kinds).size !== kinds.length)
          this.refuse(path, 'oneOf is held only over branches of distinct types');
      }
      if (types.includes('string') && types.some((type) => type !== 'string'))
        this.refuse(
          path,
          'a value that may be a string or another type cannot be told apart as text',
        );
      return alternatives(
        branches.map((branch, index) => this.value(branch, `${hint}-${index + 1}`, path)),
      );
    }
    const { type } = fields;
    const types =
      typeof type === 'string'
        ? [type]
        : Array.isArray(type)
          ? (type as unknown[])
          : 'properties' in fields || 'required' in fields
            ? ['object']
            : 'items' in fields
              ? ['array']
              : undefined;
    if (types === undefined || types.length === 0)
      return this.refuse(
        path,
        'a value of any type may be an object whose keys a grammar cannot name',
      );
    if (types.includes('string') && types.length > 1)
      this.refuse(
        path,
        'a value that may be a string or another type cannot be told apart as text',
      );
    return alternatives(
      types.map((one) => {
        const typed = types.length === 1 ? fields : { ...fields, type: one };
        switch (one) {
          case 'string':
            return this.string(typed, path);
          case 'object':
            return this.object(typed, types.length === 1 ? hint : `${hint}-object`, path);
          case 'array':
            return this.array(typed, types.length === 1 ? hint : `${hint}-array`, path);
          case 'integer':
          case 'number':
          case 'boolean':
          case 'null':
            // JSON's text of a scalar holds no markup; the reader types it by the schema.
            return this.json.value(typed as JsonSchema, `${hint}-${one}`, path);
          default:
            return this.refuse(path, `unknown type "${String(one)}"`);
        }
      }),
    );
  }

  private string(fields: Record<string, unknown>, path: string): string {
    for (const keyword of ['minLength', 'maxLength', 'pattern', 'format']) {
      if (keyword in fields)
        this.refuse(
          path,
          `"${keyword}" on a string written as element text cannot be held by a grammar yet`,
        );
    }
    return this.text();
  }

  /** What stands between a call's `<NAME>` and `</NAME>`: nothing, or a line per argument. */
  content(tool: ToolDefinition): string {
    const schema = tool.inputSchema;
    const fields = (typeof schema === 'object' && schema !== null ? schema : {}) as Record<
      string,
      unknown
    >;
    const properties = (fields.properties ?? {}) as Record<string, JsonSchema>;
    const names = Object.keys(properties);
    if (names.length === 0) return '""';
    const required = new Set(Array.isArray(fields.required) ? (fields.required as string[]) : []);
    for (const name of required) {
      if (!Object.hasOwn(properties, name))
        this.refuse(name, 'a required argument without a schema in properties');
    }
    const members = names.map((name) => {
      const tag = this.elementName(name, name);
      if (name === tool.name)
        this.refuse(name, "an argument named like its tool reads as the tool's own element");
      const value = this.value(properties[name] as JsonSchema, `xml-${tool.name}-${name}`, name);
      return `${literal(`<${tag}>`)} ${value} ${literal(`</${tag}>`)}`;
    });
    const children = this.children(
      members,
      names.map((name) => required.has(name)),
      `xml-args-${tool.name}`,
    );
    return this.rules.define(
      `xml-args-${tool.name}`,
      required.size === 0 ? `( ${children} )?` : children,
    );
  }

  /** A whole call to `tool`: its element, with its arguments. */
  call(tool: ToolDefinition): string {
    if (!XML_NAME.test(tool.name))
      this.refuse('', `the tool's name cannot be written as an XML element's name`);
    return this.rules.define(
      `xml-call-${tool.name}`,
      `${literal(`<${tool.name}>`)} ${this.content(tool)} ${literal(`</${tool.name}>`)}`,
    );
  }
}
