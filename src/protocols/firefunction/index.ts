import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { defineFormat, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, JsonCallForm } from '../spec/types.ts';
import { formatFirefunctionToolResponse, formatFirefunctionTools } from './format.ts';

export interface FirefunctionProtocolOptions {
  /**
   * Also read a bare `[{"name": …, "arguments": …}]` array without the `functools` marker
   * (only well-formed calls to declared tools count). Default `true`.
   */
  readonly bareArrays?: boolean;
}

/** The marker is plain text, and the list follows it directly; nothing closes it. */
const FUNCTOOLS: JsonCallForm = {
  codec: 'json',
  open: 'functools[',
  openHoldsJson: '[',
  argumentKeys: ['arguments'],
  bareArrays: ['name'],
};

/** Fireworks' FireFunction v2 (and Phi-4-mini prompted the same way): ` functools[{…}, …]`. */
export const firefunctionSpec: FormatSpec = {
  spec: 1,
  name: 'firefunction',
  aliases: ['firefunction_v2', 'functools'],
  families: 'FireFunction v2, Phi-4-mini',
  example: ' functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]',
  calls: [FUNCTOOLS],
  // As FireFunction's template writes a turn's calls (its space before the marker is white space
  // of the turn, not part of it).
  write: {
    section: { open: 'functools[', close: ']' },
    call: '{"name":{name_json},"arguments":{arguments}}',
    join: ',',
  },
  // One `{"name", "content"}` line per result: the hook's named lines.
  results: { each: '{output}', output: 'json' },
};

const HOOKS = {
  formatTools: formatFirefunctionTools,
  formatToolResponse: formatFirefunctionToolResponse,
};

export const firefunctionFormat: FormatEntry = formatEntryFromSpec(firefunctionSpec, {
  // Phi-4-mini writes the same list (`functools[…]`, usually without the space before it).
  models: [/firefunction/, /phi-?4-?(?:mini|multimodal)/],
  hooks: HOOKS,
});

export function firefunctionProtocol(options: FirefunctionProtocolOptions = {}): ToolCallProtocol {
  if (options.bareArrays ?? true) return firefunctionFormat.create();
  const { bareArrays: _bare, ...markerOnly } = FUNCTOOLS;
  return defineFormat({ ...firefunctionSpec, calls: [markerOnly] }, HOOKS);
}
