import type { ToolCallProtocol } from '../../core/index.ts';
import { JsonCallsBody } from '../codecs/json/json-calls-body.ts';
import { JSON_SPACE_CHARACTERS, type JsonLead } from '../codecs/json/json-lead.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import {
  defineFormat,
  type FormatHooks,
  type FormatReader,
  formatEntryFromSpec,
} from '../spec/define.ts';
import type { FormatSpec, JsonCallForm } from '../spec/types.ts';
import { formatLlama3ToolCall, formatLlama3ToolResponse, formatLlama3Tools } from './format.ts';

export interface Llama3ProtocolOptions {
  /**
   * The tool that receives the code Llama writes after `<|python_tag|>` when it is not a call
   * (its built-in code interpreter), as `{"code": …}`. Default `code_interpreter`; the code is
   * text when no tool of that name is declared.
   */
  readonly codeTool?: string;
}

const KEYS = { nameKeys: ['name'], argumentKeys: ['parameters', 'arguments'] } as const;

/** How a bare call object starts: `{"name"`, or `{"type": "function", "name"` (Llama 3.2). */
const SINGLE_BRACE_OPENERS = [
  '{"name"',
  '{ "name"',
  '{\n"name"',
  '{\n  "name"',
  '{\n    "name"',
  '{"type"',
  '{ "type"',
];

/** The same with every brace doubled, as a template's escaped example shows it (`{{"name": …}}`). */
const BARE_OPENERS = [
  ...SINGLE_BRACE_OPENERS,
  ...SINGLE_BRACE_OPENERS.map((opener) => `{${opener}`),
];

/**
 * Every other layout of JSON white space (`{\t"name"`, `{\n\n  "name"`, which a server's
 * JSON-Schema grammar may write): a brace (or two) and one white-space character open it, and
 * the body checks that the rest of the white space ends at a first key `name` or `type`, as the
 * literals above check for their layouts (the longest literal that matches is read).
 */
const SPACED_LEAD: JsonLead = { objectToOpen: false, keys: ['name', 'type'] };
const SPACED_READERS: readonly FormatReader[] = ['{', '{{'].flatMap((braces) =>
  JSON_SPACE_CHARACTERS.map((space): FormatReader => {
    const literal = `${braces}${space}`;
    return {
      name: 'bare call object',
      open: [literal],
      kind: 'speculative',
      read: (context) =>
        new JsonCallsBody(context, {
          shape: KEYS,
          speculative: true,
          jsonPrefix: literal,
          lead: SPACED_LEAD,
          separator: SEPARATOR,
        }),
    };
  }),
);

/** The code interpreter Llama 3.1's template names. */
const DEFAULT_CODE_TOOL = 'code_interpreter';

/** Several calls are separated by `;` (`{…}; {…}`), as the model card's prompt asks. */
const SEPARATOR = ';';

/** `<|eom_id|>` ends a message that waits for a tool's result; `<|eot_id|>` ends a turn. */
const END_OF_MESSAGE = '<|eom_id|>';
const END_OF_TURN = '<|eot_id|>';

const PYTHON_TAG = '<|python_tag|>';

/** The index of the bare JSON form the writer follows (its codec writes the arguments). */
const BARE_FORM = 2;

/**
 * Llama 3.1 and 3.3's tool calls as a spec, for a code interpreter named `codeTool`: a bare
 * `{"name": …, "parameters": {…}}` (several are separated by `;`), the same after
 * `<|python_tag|>`, a built-in tool's call there (`<|python_tag|>brave_search.call(query="…")`)
 * or code for the code interpreter; and `<function=NAME>{…}</function>` for tools defined in
 * the prompt.
 */
export function llama3Spec(codeTool = DEFAULT_CODE_TOOL): FormatSpec {
  const bare: JsonCallForm[] = BARE_OPENERS.map((literal) => ({
    codec: 'json',
    open: literal,
    openHoldsJson: literal,
    certainty: 'speculative',
    ...KEYS,
    separator: SEPARATOR,
  }));
  return {
    spec: 1,
    name: 'llama3',
    aliases: ['llama3.1', 'llama3.3', 'llama_3_x', 'llama3_json'],
    families: 'Llama 3.1 and 3.3 (JSON, <|python_tag|> built-ins)',
    example: '{"name": "get_weather", "parameters": {"city": "Oslo"}}',
    calls: [
      // One built-in call (`brave_search.call(query="…")`), JSON calls joined by `;`, or, when
      // it is neither, code for the code interpreter up to the end of the message or turn.
      {
        codec: 'python',
        open: PYTHON_TAG,
        close: END_OF_MESSAGE,
        single: true,
        nameSuffix: '.call',
        jsonFallback: true,
        separator: SEPARATOR,
        rawCode: { tools: [codeTool], closeAlternatives: [END_OF_TURN] },
      },
      {
        codec: 'json',
        open: '<function=',
        close: '</function>',
        certainty: 'speculative',
        ...KEYS,
        nameHeader: { end: '>' },
      },
      ...bare,
    ],
    write: {
      form: BARE_FORM,
      // As the hook writes a call to a tool that is no built-in: compact JSON.
      call: '{"name":{name_json},"parameters":{arguments}}',
      join: '\n',
    },
    results: { each: '{"name":{name_json},"output":{output}}', join: '\n', output: 'json' },
  };
}

/** The prompt, calls and results as Llama's template writes them (built-ins and code too). */
function llama3Hooks(codeTool: string): FormatHooks {
  return {
    formatTools: (tools) => formatLlama3Tools(tools, codeTool),
    formatToolCall: (calls) => formatLlama3ToolCall(calls, codeTool),
    formatToolResponse: formatLlama3ToolResponse,
    readers: SPACED_READERS,
  };
}

const SPEC = llama3Spec();

/** Llama 3.1 and 3.3's JSON tool calls, built-ins and code (see `llama3Spec`). */
export function llama3Protocol(options: Llama3ProtocolOptions = {}): ToolCallProtocol {
  const codeTool = options.codeTool ?? DEFAULT_CODE_TOOL;
  return codeTool === DEFAULT_CODE_TOOL
    ? llama3Format.create()
    : defineFormat(llama3Spec(codeTool), llama3Hooks(codeTool));
}

export const llama3Format: FormatEntry = formatEntryFromSpec(SPEC, {
  hooks: llama3Hooks(DEFAULT_CODE_TOOL),
  models: [/llama-?3\.[13]/, /llama-?3(?![.\d])/],
});
