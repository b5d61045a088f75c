/**
 * Python literals as grammar, as the python codec's writer writes them (`pythonLiteral`) and its
 * reader decodes them: strings in double quotes with the escapes `\" \\ \n \r \t \xHH \uHHHH`,
 * numbers as JSON writes them, `True`/`False`/`None`, lists `[a, b]` and dicts `{"k": v}` laid
 * out with `, ` and `: `; and a call's keyword arguments (`city="Oslo", days=3`) in the schema's
 * order, the optional ones skippable.
 */
import type { ToolDefinition } from '../../core/index.ts';
import { pythonLiteral, pythonString } from '../codecs/python/python-call-format.ts';
import { literal } from './gbnf-text.ts';
import type { GrammarRules } from './grammar-rules.ts';
import type { JsonValueRules } from './json-value-rules.ts';
import { hex4, type ValueSyntax } from './value-syntax.ts';

/** One character of a Python string: as it is, or escaped as the writer escapes it. */
function pythonCharacter(rules: GrammarRules): string {
  return rules.define(
    'py-char',
    `[^"\\\\\\x00-\\x1f\\x7f] | "\\\\" ( ["\\\\nrt] | "x" [0-9a-fA-F]{2} | "u" ${hex4(rules)} )`,
  );
}

function pythonStringRule(rules: GrammarRules): string {
  return rules.define('py-string', `"\\"" ${pythonCharacter(rules)}* "\\""`);
}

export const PYTHON_SYNTAX: ValueSyntax = {
  id: 'py',
  literal: (value) => literal(pythonLiteral(value)),
  key: (name) => literal(pythonString(name)),
  anyKey: pythonStringRule,
  string: pythonStringRule,
  boundedString: (rules, min, max) => {
    const count = max === undefined ? `{${min},}` : `{${min},${max}}`;
    return rules.define(
      `py-string-${min}-${max ?? 'n'}`,
      `"\\"" ( ${pythonCharacter(rules)} )${count} "\\""`,
    );
  },
  words: { true: '"True"', false: '"False"', null: '"None"' },
  padding: () => '',
  comma: () => '", "',
  colon: () => '": "',
};

/** A keyword argument's name as the writer writes it (as it is) and the reader reads it. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A call's keyword arguments (`values` built with `PYTHON_SYNTAX`): `name=value` per property,
 * joined with `, `. A property whose name is no identifier cannot be an argument and is refused.
 */
export function pythonKeywordArguments(
  values: JsonValueRules,
  rules: GrammarRules,
  tool: ToolDefinition,
  refuse: (path: string, problem: string) => never,
): string {
  const schema = tool.inputSchema;
  const fields = (typeof schema === 'object' && schema !== null ? schema : {}) as Record<
    string,
    unknown
  >;
  const written = values.members(
    fields,
    `args-${tool.name}`,
    '',
    (name, value) => {
      if (!IDENTIFIER.test(name))
        refuse(name, 'a keyword argument is a Python name (ASCII letters, digits and _)');
      return `${literal(`${name}=`)} ${value}`;
    },
    '", "',
  );
  if (written.body === '') return '""';
  const body = written.optional ? `( ${written.body} )?` : written.body;
  return rules.define(`args-${tool.name}`, body);
}
