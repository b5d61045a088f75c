import type { ToolCallProtocol } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import type { ResultTextGuard } from '../results/result-text.ts';
import { type FormatReader, formatEntryFromSpec } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { ForeignCallBody, type ForeignCallMarkup } from './foreign-call.ts';
import {
  formatFunctionGemmaToolCall,
  formatFunctionGemmaToolResponse,
  formatFunctionGemmaTools,
} from './format.ts';

const CALL_PREFIX = 'call:';
const CLOSER = '<end_function_call>';

const GEMMA4: ForeignCallMarkup = {
  family: 'Gemma 4',
  closer: '<tool_call|>',
  stringDelimiter: '<|"|> tokens',
};

/**
 * What a text result may not hold as it is: the `<escape>` that would end its string, the
 * response and call tags (a bare `call:` opens a call only at the output's start).
 */
const RESULT_GUARD: ResultTextGuard = {
  tags: [
    'escape',
    'start_function_response',
    'end_function_response',
    'start_function_call',
    'end_function_call',
  ],
};

/**
 * FunctionGemma's calls: `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`,
 * one block per call. Keys are bare, strings sit between `<escape>` tokens, numbers and booleans
 * are bare, objects and arrays nest; anything else (Gemma 4's `<|"|>`, quotes, other tokens)
 * fails the call. Without the tokens (a server stripped them), `call:NAME{…}` calls are read
 * only when they make up the whole output, from its first character to its end (`wholeOutput`;
 * the opener is a line opener, matched at the output's start).
 */
export const functionGemmaSpec: FormatSpec = {
  spec: 1,
  name: 'functiongemma',
  aliases: ['function-gemma', 'function_gemma'],
  families: 'FunctionGemma',
  models: ['functiongemma', 'function-gemma'],
  example: '<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>',
  calls: [
    {
      codec: 'dialect',
      open: '<start_function_call>',
      namePrefix: CALL_PREFIX,
      close: CLOSER,
      stringDelimiters: ['<escape>', '<escape>'],
      parenthesisCalls: false,
    },
    {
      codec: 'dialect',
      open: `\n${CALL_PREFIX}`,
      certainty: 'speculative',
      wholeOutput: true,
      stringDelimiters: ['<escape>', '<escape>'],
    },
  ],
  write: { call: `<start_function_call>call:{name}{arguments}${CLOSER}` },
  results: { each: '{output}' },
};

/** Gemma 4's `<|tool_call>` around a `call:NAME{…}` is another grammar: reported, never run. */
const FOREIGN_CALLS: readonly FormatReader[] = [
  {
    name: "Gemma 4's call, reported",
    open: ['<|tool_call>'],
    read: (context) => new ForeignCallBody(context, GEMMA4),
  },
];

export const functionGemmaFormat: FormatEntry = formatEntryFromSpec(functionGemmaSpec, {
  hooks: {
    readers: FOREIGN_CALLS,
    formatTools: formatFunctionGemmaTools,
    formatToolCall: formatFunctionGemmaToolCall,
    formatToolResponse: (results) => formatFunctionGemmaToolResponse(results, RESULT_GUARD),
    formatToolResponseForAnyReader: (results) => formatFunctionGemmaToolResponse(results),
  },
});

export function functionGemmaProtocol(): ToolCallProtocol {
  return functionGemmaFormat.create();
}
