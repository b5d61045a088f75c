import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { formatExecuteToolResponse, formatExecuteTools } from './format.ts';

/**
 * Cogency's execute protocol: `<think>` reasoning, then `<execute>[{"name": …, "args": {…}}, …]</execute>`,
 * a batch run in order. A `</execute>` inside a JSON string does not end the block, and JSON that
 * is not valid is reported, never repaired (the protocol's rule).
 */
export const executeSpec: FormatSpec = {
  spec: 1,
  name: 'execute',
  aliases: ['cogency'],
  families: "Cogency's execute protocol",
  example: '<execute>[{"name": "get_weather", "args": {"city": "Oslo"}}]</execute>',
  calls: [
    {
      codec: 'json',
      open: '<execute>',
      close: '</execute>',
      argumentKeys: ['args', 'arguments', 'parameters'],
      strict: true,
    },
  ],
  write: {
    section: { open: '<execute>\n[\n', close: '\n]\n</execute>' },
    call: '  {"name":{name_json},"args":{arguments}}',
    join: ',\n',
    empty: '<execute>\n[]\n</execute>',
  },
  // `<results>[{tool, status, content}]</results>`: an envelope the result hook writes.
  results: { each: '{output}', output: 'json' },
};

export const executeFormat: FormatEntry = formatEntryFromSpec(executeSpec, {
  hooks: { formatTools: formatExecuteTools, formatToolResponse: formatExecuteToolResponse },
});

export function executeProtocol(): ToolCallProtocol {
  return executeFormat.create();
}
