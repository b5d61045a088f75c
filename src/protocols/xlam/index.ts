import type { ToolCallProtocol } from '../../core/index.ts';
import type { JsonCallShape } from '../codecs/json/json-calls-body.ts';
import { JSON_SPACE_CHARACTERS } from '../codecs/json/json-lead.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import {
  defineFormat,
  type FormatHooks,
  type FormatReader,
  formatEntryFromSpec,
} from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { formatXlamToolResponse, formatXlamTools } from './format.ts';
import { GenericCallsBody, GenericLeadBody, GenericResponseBody } from './generic-bodies.ts';

export interface XlamProtocolOptions {
  /**
   * Read llama.cpp's generic JSON answers too: `{"tool_calls": […]}`, `{"tool_call": {…}}`, and
   * `{"response": "…"}` (whose string is the answer). Default `true`.
   */
  readonly genericJson?: boolean;
}

/**
 * Salesforce xLAM: a JSON list of calls, `[{"name": …, "arguments": {…}}, …]`, bare or fenced,
 * and the wrappers vLLM's xLAM parser also accepts. Only well-formed calls to declared tools
 * count. Reasoning in `<think>` is read as every format reads it (vLLM's parser leaves it in the
 * content).
 */
export const xlamSpec: FormatSpec = {
  spec: 1,
  name: 'xlam',
  aliases: ['generic', 'json-list'],
  families: 'Salesforce xLAM; llama.cpp generic JSON',
  models: ['xlam'],
  example: '[{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
  calls: [
    // xLAM's own output: the list in a Markdown fence, or alone (`bareArrays`).
    {
      codec: 'json',
      open: '```',
      close: '```',
      certainty: 'speculative',
      languageTag: true,
      bareArrays: ['name', 'arguments'],
    },
    { codec: 'json', open: '[TOOL_CALLS]', certainty: 'speculative' },
    { codec: 'json', open: '<tool_call>', close: '</tool_call>' },
  ],
  write: {
    section: { open: '[', close: ']' },
    call: '{"name":{name_json},"arguments":{arguments}}',
    join: ',',
  },
  // Overridden by the hook: one JSON object per result (the template's `ipython` turns).
  results: { each: '{output}', join: '\n', output: 'json' },
};

const XLAM_SHAPE: JsonCallShape = { nameKeys: ['name'], argumentKeys: ['arguments', 'parameters'] };

/** `{` and the white space llama.cpp's generic answers put before their one key. */
const OBJECT_STARTS = ['{', '{ ', '{\n', '{\n  ', '{\n    ', '{\n\t'];

/**
 * llama.cpp's generic format, for models without a format of their own: the whole answer is one
 * JSON object, `{"tool_calls": [{"name": …, "arguments": …}, …]}`, `{"tool_call": {…}}`, or
 * `{"response": "…"}` when no tool is called, whose string is the answer, not a call: no codec's.
 */
const GENERIC_JSON_ANSWERS: readonly FormatReader[] = [
  {
    name: 'generic JSON calls',
    open: OBJECT_STARTS.map((start) => `${start}"tool_call`),
    read: (context) => new GenericCallsBody(context, XLAM_SHAPE),
  },
  {
    name: 'generic JSON answer',
    open: OBJECT_STARTS.map((start) => `${start}"response"`),
    read: (context) => new GenericResponseBody(context),
  },
  // Every other layout of JSON white space (`{\t\t"tool_calls"`): `{` and one white-space
  // character open it, and the body reads the rest of the white space and the key.
  {
    name: 'generic JSON answer in any layout',
    open: JSON_SPACE_CHARACTERS.map((space) => `{${space}`),
    kind: 'speculative',
    read: (context) => new GenericLeadBody(context, XLAM_SHAPE),
  },
];

const XLAM_HOOKS: FormatHooks = {
  // xLAM's system instructions, and its tools as indented JSON (its chat template's layout).
  formatTools: formatXlamTools,
  formatToolResponse: formatXlamToolResponse,
};

export const xlamFormat: FormatEntry = formatEntryFromSpec(xlamSpec, {
  hooks: { ...XLAM_HOOKS, readers: GENERIC_JSON_ANSWERS },
});

export function xlamProtocol(options: XlamProtocolOptions = {}): ToolCallProtocol {
  return (options.genericJson ?? true) ? xlamFormat.create() : defineFormat(xlamSpec, XLAM_HOOKS);
}
