import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { textResultBody } from '../results/result-text.ts';
import type { FormatReader } from '../spec/compile.ts';
import { defineFormat, type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import {
  type FunctionaryVersion,
  formatFunctionaryToolResponse,
  formatFunctionaryTools,
} from './format.ts';
import { ANSWER_RECIPIENT, CODE_TOOLS, RECIPIENT_OPENER, RecipientBody } from './recipient-body.ts';

export interface FunctionaryProtocolOptions {
  /**
   * The version whose conventions the prompt and the history follow: `v3.1` (Llama 3.1 based,
   * `<function=NAME>{…}</function>`) or `v3.2` (`>>>NAME\n{…}`). Both are read either way.
   * Default `v3.2`.
   */
  readonly version?: FunctionaryVersion;
}

const PYTHON_TAG = '<|python_tag|>';
const FUNCTION_TAG = '<function=';

/**
 * Functionary as a spec: v3.2's `>>>NAME\n{…}` (the name a header ended by the line break, JSON
 * arguments after it), the same without `>>>` at the output's start (the generation prompt
 * wrote it: a line opener per declared tool), v3.1's `<function=NAME>{…}</function>`, and
 * v3.1's raw code after `<|python_tag|>` (the raw-code codec). The writer follows `version`'s.
 */
export function functionarySpec(version: FunctionaryVersion = 'v3.2'): FormatSpec {
  return {
    spec: 1,
    name: 'functionary',
    aliases: ['functionary_v3_2', 'functionary_v3_1', 'meetkai'],
    families: 'Functionary v3.1 (Llama 3.1) and v3.2 (MeetKai)',
    models: ['functionary'],
    example: '>>>get_weather\n{"city": "Oslo"}',
    calls: [
      { codec: 'json', open: RECIPIENT_OPENER, nameHeader: { end: '\n' } },
      {
        codec: 'json',
        open: FUNCTION_TAG,
        close: '</function>',
        // Announced once its JSON begins: Qwen3-Coder writes the same tag with parameter tags.
        certainty: 'speculative',
        nameHeader: { end: '>', nameQuoted: true },
      },
      { codec: 'json', open: '\n{name}', perTool: true, argumentsOnly: true },
      // v3.1's code: raw, after `<|python_tag|>`, to the end of the message or turn.
      {
        codec: 'raw-code',
        open: PYTHON_TAG,
        tools: CODE_TOOLS,
        closeAlternatives: ['<|eom_id|>', '<|eot_id|>'],
      },
    ],
    write:
      version === 'v3.1'
        ? { form: 1, call: `${FUNCTION_TAG}{name}>{arguments}</function>` }
        : { form: 0, call: `${RECIPIENT_OPENER}{name}\n{arguments}` },
    results: {
      each: `<|start_header_id|>${version === 'v3.1' ? 'ipython' : 'tool'}<|end_header_id|>\n\n{output}<|eot_id|>`,
    },
  };
}

/** `all` at the output's start, its `>>>` written by the prompt: the answer, text. */
const FIRST_ANSWER_READER: FormatReader = {
  name: 'the answer as the first recipient',
  open: [`\n${ANSWER_RECIPIENT}`],
  read: (context) => new RecipientBody(context, ANSWER_RECIPIENT, true),
};

/**
 * A text result as the templates write it, the text itself, with the openers that stand anywhere
 * broken (a recipient line opens a call only at the output's start).
 */
const RESULT_TEXT = textResultBody({
  tags: [],
  literals: [FUNCTION_TAG, PYTHON_TAG, RECIPIENT_OPENER],
});

/**
 * What the spec cannot say yet: a recipient is `all` (the answer), a code interpreter's raw code
 * (the raw-code codec) or a tool's JSON, and is read by the recipient body, which gives up at
 * the first character no recipient has; `all` as the first recipient; the prompt as each
 * version's template writes it, and results in their turn.
 */
function functionaryHooks(version: FunctionaryVersion): FormatHooks {
  return {
    readers: [FIRST_ANSWER_READER],
    callBody: (form, context, toolName) => {
      if (form.open === RECIPIENT_OPENER) return new RecipientBody(context, '', false);
      return toolName === undefined ? undefined : new RecipientBody(context, toolName, true);
    },
    formatTools: (tools) => formatFunctionaryTools(tools, version),
    formatToolResponse: (results) => formatFunctionaryToolResponse(results, version, RESULT_TEXT),
    formatToolResponseForAnyReader: (results) => formatFunctionaryToolResponse(results, version),
  };
}

/**
 * MeetKai's Functionary: v3.1 (Llama 3.1 based) writes `<function=NAME>{…}</function>` and
 * `<|python_tag|>code`; v3.2 writes `>>>NAME\n{…}` per call and `>>>all\ntext` for its answer.
 */
export function functionaryProtocol(options: FunctionaryProtocolOptions = {}): ToolCallProtocol {
  const version = options.version ?? 'v3.2';
  return version === 'v3.2'
    ? functionaryFormat.create()
    : defineFormat(functionarySpec(version), functionaryHooks(version));
}

export const functionaryFormat: FormatEntry = formatEntryFromSpec(functionarySpec(), {
  hooks: functionaryHooks('v3.2'),
  toolNamesIn: (text) => [
    ...new Set(
      [...text.matchAll(/(?:<function=|>>>)([^\s>]+)/g)]
        .map((match) => match[1]!)
        .filter((name) => name !== ANSWER_RECIPIENT),
    ),
  ],
});
