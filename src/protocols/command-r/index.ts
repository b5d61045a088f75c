import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { COMMAND_R_THINK_TAGS } from '../engine/reasoning-tags.ts';
import { defineFormat, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec, JsonCallForm } from '../spec/types.ts';
import {
  formatCommandRToolCall,
  formatCommandRToolResponse,
  formatCommandRTools,
} from './format.ts';

export interface CommandRProtocolOptions {
  /**
   * Read the call list without its tokens (`[{"tool_call_id": "0", "tool_name": …}]`), as a
   * server that strips special tokens delivers it; only well-formed calls to declared tools
   * count. Default `true`.
   */
  readonly bareArrays?: boolean;
}

const NAME_KEYS = ['tool_name', 'name'];
const ARGUMENT_KEYS = ['parameters', 'arguments'];

const ACTION: JsonCallForm = {
  codec: 'json',
  open: '<|START_ACTION|>',
  close: '<|END_ACTION|>',
  nameKeys: NAME_KEYS,
  argumentKeys: ARGUMENT_KEYS,
  bareArrays: ['tool_call_id', 'tool_name'],
};

/**
 * Cohere Command R7B, R+ and A: `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": …,
 * "parameters": {…}}]<|END_ACTION|>`, reasoning in `<|START_THINKING|>…<|END_THINKING|>`.
 */
export const commandRSpec: FormatSpec = {
  spec: 1,
  name: 'command-r',
  aliases: ['command_r', 'command_r7b', 'command-r7b', 'cohere'],
  families: 'Cohere Command R, R+, R7B, A',
  example:
    '<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Oslo"}}]<|END_ACTION|>',
  reasoning: COMMAND_R_THINK_TAGS,
  calls: [
    ACTION,
    // Command R+ (08-2024) writes its calls as "Action: ```json [...] ```".
    {
      codec: 'json',
      open: 'Action: ```json',
      close: '```',
      certainty: 'speculative',
      nameKeys: NAME_KEYS,
      argumentKeys: ARGUMENT_KEYS,
    },
  ],
  // The answer's markers (R7B's RESPONSE, Command A's TEXT) and the turn's end are framing.
  markup: [
    '<|START_RESPONSE|>',
    '<|END_RESPONSE|>',
    '<|START_TEXT|>',
    '<|END_TEXT|>',
    '<|END_OF_TURN_TOKEN|>',
  ],
  // The list as the R7B template prints it, one call a line, indented 4: the grammar follows
  // this. The writer stays a hook only to write a caller's call id as a JSON string (`{id}` is
  // written as it is); the ids a model writes, `"0"`, `"1"`…, come out the same. The results are
  // a hook: each nests in `{tool_call_id, results: {"0": …}, is_error}`.
  write: {
    section: { open: '<|START_ACTION|>[\n    ', close: '\n]<|END_ACTION|>' },
    call: '{"tool_call_id":"{id}","tool_name":{name_json},"parameters":{arguments}}',
    join: ',\n    ',
  },
  results: { each: '{output}', output: 'json' },
};

const HOOKS = {
  formatTools: formatCommandRTools,
  formatToolCall: formatCommandRToolCall,
  formatToolResponse: formatCommandRToolResponse,
};

export const commandRFormat: FormatEntry = formatEntryFromSpec(commandRSpec, {
  models: [/command-?r/, /command-a\b/, /c4ai-command/],
  hooks: HOOKS,
});

export function commandRProtocol(options: CommandRProtocolOptions = {}): ToolCallProtocol {
  if (options.bareArrays ?? true) return commandRFormat.create();
  const { bareArrays: _bare, ...tokensOnly } = ACTION;
  return defineFormat(
    { ...commandRSpec, calls: [tokensOnly, ...commandRSpec.calls.slice(1)] },
    HOOKS,
  );
}
