/**
 * GigaChat 3 and 3.1 (Sber; Lightning, Ultra): one call per turn, a JSON object after a
 * `function call` role header (GigaChat 3) or the `<|function_call|>` token (3.1), ending with
 * the turn at `</s>`. GigaChat 3.5 writes GCML (DSML's grammar) and is a format of its own.
 *
 * From the chat template (llama.cpp `models/templates/GigaChat3-10B-A1.8B.jinja`): turns are
 * `ROLE<|role_sep|>\nCONTENT<|message_sep|>\n\n`; a call ends the assistant turn and opens
 * `function call<|role_sep|>\n{"name": …, "arguments": {…}}`; a result is a `function result`
 * turn holding the text as it is; the tools are declared in a `function descriptions` turn as a
 * TypeScript namespace. Parsers: SGLang `gigachat3_detector.py`, vLLM `gigachat3_tool_parser.py`
 * (both read `function call<|role_sep|>\n` or `<|function_call|>`, then the JSON, and strip `</s>`).
 * `<|message_sep|>` and a stray `</s>` are framing and dropped.
 */
import type { FormatEntry } from '../define/format-entry.ts';
import { formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';

const END = '</s>';

export const gigachatSpec: FormatSpec = {
  spec: 1,
  name: 'gigachat',
  aliases: ['gigachat3', 'gigachat-3'],
  families: 'GigaChat 3, GigaChat 3.1 (Lightning, Ultra)',
  models: ['gigachat3-', 'gigachat3.1', 'gigachat-3-', 'gigachat-3.1', 'gigachat3_1'],
  markup: ['<|message_sep|>', END],
  calls: [
    { codec: 'json', open: '<|function_call|>', close: END },
    { codec: 'json', open: '<|message_sep|>\n\nfunction call<|role_sep|>', close: END },
    { codec: 'json', open: 'function call<|role_sep|>', close: END },
  ],
  // The call ends the turn with `</s>`, as the model writes it: what follows the call is text.
  write: { call: `<|function_call|>{"name": {name_json}, "arguments": {arguments}}${END}` },
  results: { each: '{output}', join: '\n' },
  prompt: {
    text: [
      'You can call these functions, declared in TypeScript:',
      '{typescript}',
      '',
      'To call a function, end your message with <|function_call|> and one JSON object with its name and arguments:',
      '{example}',
      '',
      'Call one function per turn. Its result comes back to you in a function result turn.',
    ].join('\n'),
  },
};

export const gigachatFormat: FormatEntry = formatEntryFromSpec(gigachatSpec);
