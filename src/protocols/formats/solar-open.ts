/**
 * Solar Open 2 (Upstage): one call per `<|tool_call:start|>` … `<|tool_call:end|>` pair, no
 * section, the name on the first line, each argument between sentinels:
 *
 * `<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>\n<|tool_call:end|>`
 *
 * Read as vLLM's `solar_open2_tool_parser.py` reads it: values are raw text typed by the tool's
 * schema; a dropped `<|tool_arg:end|>` ends at the next sentinel, a dropped `<|tool_call:end|>`
 * at the next call's `<|tool_call:start|>`. Reasoning is `<|think:start|>…<|think:end|>`; results
 * come back in `<|tool_response:start|>…<|tool_response:end|>` (the tokens of the chat format as
 * third-party ports use them; the template itself was not reached). The markdown-fence fallback
 * (```` ```get_weather ```` then sentinels) is not read.
 */

import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

const OPEN = '<|tool_call:start|>';
const CLOSE = '<|tool_call:end|>';

const SOLAR_OPEN_SYNTAX: ParameterTagsSyntax = {
  callOpen: '',
  callClose: '',
  parameterOpen: '<|tool_arg:start|>',
  keyClose: '<|tool_arg:value|>',
  // The value follows the key's closer directly.
  valueOpen: '',
  parameterClose: '<|tool_arg:end|>',
  nextBlock: OPEN,
  layout: 'exact',
};

export const solarOpenSpec: FormatSpec = {
  spec: 1,
  name: 'solar-open',
  aliases: ['solar-open2', 'solar_open2', 'solar-open-2'],
  families: 'Solar Open 2',
  models: ['solar-open2', 'solar-open-2', 'solar_open2'],
  reasoning: [
    { open: '<|think:start|>', close: '<|think:end|>' },
    // As every format reads them.
    { open: '<think>', close: '</think>' },
    { open: '<thinking>', close: '</thinking>' },
  ],
  calls: [{ codec: 'tagged', open: OPEN, close: CLOSE, syntax: SOLAR_OPEN_SYNTAX }],
  write: {
    call: `${OPEN}{name}\n{arguments}${CLOSE}`,
    join: '\n',
    parameter: '<|tool_arg:start|>{key}<|tool_arg:value|>{value}<|tool_arg:end|>\n',
  },
  results: { each: '<|tool_response:start|>{output}<|tool_response:end|>', join: '\n' },
  prompt: {
    text: [
      '# Tools',
      '',
      'You may call one or more of these functions, given as JSON:',
      '{tools}',
      '',
      'To call a function, write <|tool_call:start|> with its name on the first line, then each argument between <|tool_arg:start|>, <|tool_arg:value|> and <|tool_arg:end|> (a string as it is, anything else as JSON), then <|tool_call:end|>:',
      '{example}',
      '',
      'The results come back to you after your calls.',
    ].join('\n'),
  },
};

export const solarOpenFormat: FormatEntry = formatEntryFromSpec(solarOpenSpec, {
  toolNamesIn: (text) =>
    Array.from(
      text.matchAll(/<\|tool_call:start\|>[ \t]{0,8}([A-Za-z_][\w.-]{0,99})/g),
      (match) => match[1]!,
    ),
});
