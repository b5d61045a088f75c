import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { defineFormat, type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { CallFormSpec, FormatSpec } from '../spec/types.ts';
import { formatApertusToolResponse, formatApertusTools } from './format.ts';

export interface ApertusProtocolOptions {
  /**
   * Read `[{"NAME": {…}}]` naming a declared tool without its `<|tools_prefix|>` token, as a
   * server that strips special tokens delivers it (only well-formed calls count). Default `true`.
   */
  readonly bareArrays?: boolean;
}

/**
 * `<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}]<|tools_suffix|>`: the call object's only
 * key is the tool's name. `languageTag` keeps every call on the streaming reader, which knows
 * the name-as-key shape (the whole-call fast path reads `{"name": …, "arguments": …}` only).
 */
const TOOLS_BLOCK: CallFormSpec = {
  codec: 'json',
  open: '<|tools_prefix|>',
  close: '<|tools_suffix|>',
  nameAsKey: true,
  languageTag: true,
};

/**
 * `[{"get_weather"`, with the white space templates print: a bare list can only be told from
 * data by the declared name it begins with, so these forms are opened per declared tool.
 */
const BARE_ARRAYS: readonly CallFormSpec[] = ['[{', '[ {', '[\n{', '[\n  {'].flatMap((start) =>
  ['', ' '].map(
    (space): CallFormSpec => ({
      codec: 'json',
      open: `${start}${space}{name_json}`,
      openHoldsJson: `${start}${space}{name_json}`,
      perTool: true,
      certainty: 'speculative',
      nameAsKey: true,
    }),
  ),
);

/** Swiss AI's Apertus: `<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}]<|tools_suffix|>`. */
export const apertusSpec: FormatSpec = {
  spec: 1,
  name: 'apertus',
  families: 'Swiss AI Apertus',
  models: ['apertus'],
  example: '<|tools_prefix|>[{"get_weather": {"city": "Oslo"}}]<|tools_suffix|>',
  // Apertus reasons between `<|inner_prefix|>` and `<|inner_suffix|>`.
  reasoning: [
    { open: '<|inner_prefix|>', close: '<|inner_suffix|>' },
    { open: '<think>', close: '</think>' },
    { open: '<thinking>', close: '</thinking>' },
  ],
  calls: [TOOLS_BLOCK, ...BARE_ARRAYS],
  write: {
    section: { open: '<|tools_prefix|>[', close: ']<|tools_suffix|>' },
    call: '{{name_json}:{arguments}}',
    join: ',',
  },
  // Overridden by the hook: one JSON list, a value per call, in the order of the calls.
  results: { section: { open: '[', close: ']' }, each: '{output}', join: ',', output: 'json' },
};

const APERTUS_HOOKS: FormatHooks = {
  // The template's system prompt with the tools as TypeScript-like signatures.
  formatTools: formatApertusTools,
  formatToolResponse: formatApertusToolResponse,
};

export const apertusFormat: FormatEntry = formatEntryFromSpec(apertusSpec, {
  hooks: APERTUS_HOOKS,
});

export function apertusProtocol(options: ApertusProtocolOptions = {}): ToolCallProtocol {
  return (options.bareArrays ?? true)
    ? apertusFormat.create()
    : defineFormat({ ...apertusSpec, calls: [TOOLS_BLOCK] }, APERTUS_HOOKS);
}
