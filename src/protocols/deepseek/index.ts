import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { textResultBody } from '../results/result-text.ts';
import { defineFormat, type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { CallFormSpec, FormatSpec, JsonCallForm } from '../spec/types.ts';
import { dsmlForms, dsmlToolNamesIn } from './dsml.ts';
import {
  type DeepseekVersion,
  formatDeepseekToolCall,
  formatDeepseekToolResponse,
  formatDeepseekTools,
} from './format.ts';

export interface DeepseekProtocolOptions {
  /**
   * The version whose conventions the prompt and the history follow: `v3` (V3 and R1:
   * `function<｜tool▁sep｜>NAME` and fenced JSON), `v3.1` (`NAME<｜tool▁sep｜>{…}`, also V3.2-Exp),
   * `v3.2` (DSML: `<｜DSML｜function_calls>` with parameter tags).
   * Every version is read either way, and V4's DSML (`<｜DSML｜tool_calls>`) too. Default `v3.1`.
   */
  readonly version?: DeepseekVersion;
}

/**
 * DeepSeek's special tokens, spelled with full-width bars and `▁`, and with the ASCII bars some
 * servers and chat templates put in their place (Ollama's DeepSeek template).
 */
function token(bar: string, name: string): string {
  return `<${bar}${name.replaceAll('_', '▁')}${bar}>`;
}

/**
 * The call forms of one spelling. A call is `<｜tool▁call▁begin｜>` and a header: V3 and R1 write
 * the type and the separator before the name (`function<｜tool▁sep｜>NAME\n```json\n{…}\n````),
 * V3.1 the name before it (`NAME<｜tool▁sep｜>{…}`); the longer opener tells them apart. The
 * section token (`<｜tool▁calls▁begin｜>`) is framing before a call's own opener, and opens the call
 * itself when V3 leaves that out; R1 sometimes writes `<｜tool▁calls｜>` for it, with no call
 * opener after.
 */
function callForms(bar: string): CallFormSpec[] {
  const separator = token(bar, 'tool_sep');
  const json = {
    codec: 'json',
    close: token(bar, 'tool_call_end'),
    fenced: true,
  } as const;
  const v3 = (open: string): JsonCallForm => ({
    ...json,
    open: `${open}function${separator}`,
    nameHeader: { end: '\n' },
  });
  const v31 = (open: string): JsonCallForm => ({ ...json, open, nameHeader: { end: separator } });
  const section = token(bar, 'tool_calls_begin');
  const short = token(bar, 'tool_calls');
  const call = token(bar, 'tool_call_begin');
  return [
    v3(call),
    v31(call),
    v3(section),
    { ...v31(section), framingBefore: '<' },
    v3(short),
    v31(short),
    ...dsmlForms(bar),
  ];
}

const BARS = ['｜', '|'];

/**
 * DeepSeek V3, R1 and V3.1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
 * \n```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>` (V3, R1) and
 * `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>` (V3.1), V3.2's DSML
 * (`<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="k" string="true">v…`),
 * V4's DSML (the same in `<｜DSML｜tool_calls>`), reasoning in `<think>`.
 */
export const deepseekSpec: FormatSpec = {
  spec: 1,
  name: 'deepseek',
  aliases: ['deepseek_v3', 'deepseek_r1', 'deepseek_v3_1', 'deepseek-v3', 'deepseek-r1'],
  families: 'DeepSeek V3, R1, V3.1, V3.2, V4',
  example:
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Oslo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
  markup: BARS.flatMap((bar) => [token(bar, 'tool_calls_end'), token(bar, 'end_of_sentence')]),
  calls: BARS.flatMap(callForms),
  write: {
    section: { open: token('｜', 'tool_calls_begin'), close: token('｜', 'tool_calls_end') },
    call: `${token('｜', 'tool_call_begin')}{name}${token('｜', 'tool_sep')}{arguments}${token('｜', 'tool_call_end')}`,
  },
  results: { each: '<｜tool▁output▁begin｜>{output}<｜tool▁output▁end｜>' },
};

/**
 * A text result as the templates write it, the text itself: what could open a call here (the
 * openers, special tokens all) or close V3.2's result block is broken.
 */
const RESULT_TEXT = textResultBody({
  tags: ['result', 'function_results'],
  literals: [
    ...new Set([...deepseekSpec.calls.map((form) => form.open), ...(deepseekSpec.markup ?? [])]),
  ],
});

function deepseekHooks(version: DeepseekVersion): FormatHooks {
  return {
    formatTools: (tools) => formatDeepseekTools(tools, version),
    formatToolCall: (calls) => formatDeepseekToolCall(calls, version),
    formatToolResponse: (results) => formatDeepseekToolResponse(results, version, RESULT_TEXT),
    formatToolResponseForAnyReader: (results) => formatDeepseekToolResponse(results, version),
  };
}

/** DeepSeek's format (see `deepseekSpec`), prompts and history written as `version` writes them. */
export function deepseekProtocol(options: DeepseekProtocolOptions = {}): ToolCallProtocol {
  return defineFormat(deepseekSpec, deepseekHooks(options.version ?? 'v3.1'));
}

export const deepseekFormat: FormatEntry = formatEntryFromSpec(deepseekSpec, {
  hooks: deepseekHooks('v3.1'),
  // R1's distills are Qwen and Llama models that write their base model's format.
  models: [
    /deepseek-(?:v3|v4|r1(?!-distill)|chat|reasoner)/,
    /deepseek-ai\/deepseek-(?:v3|v4|r1(?!-distill))/,
  ],
  toolNamesIn: (text) => [
    ...new Set([
      ...Array.from(
        text.matchAll(
          /<[｜|]tool▁call▁begin[｜|]>(?:function<[｜|]tool▁sep[｜|]>\s*([^\s<>{}]+)|\s*([^\s<>{}]+?)\s*<[｜|]tool▁sep[｜|]>)/g,
        ),
        (match) => (match[1] ?? match[2])!,
      ),
      ...dsmlToolNamesIn(text),
    ]),
  ],
});
