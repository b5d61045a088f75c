import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { pythonCall } from '../codecs/python/python-call-format.ts';
import { exampleInput } from '../prompt/example-input.ts';
import { openAIToolDeclaration } from '../prompt/tool-declarations.ts';
import { namedResultJson, resultNameText, resultOutputJson } from '../results/result-text.ts';

/**
 * Whose chat template the prompt follows: Llama 3.2 (the default; a bare list), Llama 4 (its
 * list, the same way), LFM2 (the list inside `<|tool_call_start|>…<|tool_call_end|>`), or
 * Olmo 3 (one call per line inside `<function_calls>…</function_calls>`).
 */
export type PythonicPromptStyle = 'llama3.2' | 'llama4' | 'lfm2' | 'olmo3';

function openAiTool(tool: ToolDefinition): unknown {
  return openAIToolDeclaration(tool);
}

/** The calls of one turn as the model writes them. */
export function formatPythonicToolCall(
  calls: readonly ToolCallToFormat[],
  style: PythonicPromptStyle,
): string {
  const written = calls.map((call) => pythonCall(call));
  switch (style) {
    case 'lfm2':
      return `<|tool_call_start|>[${written.join(', ')}]<|tool_call_end|>`;
    case 'olmo3':
      return `<function_calls>\n${written.join('\n')}\n</function_calls>`;
    default:
      return `[${written.join(', ')}]`;
  }
}

/**
 * Results in call order. Llama's templates give them the `ipython` role as `{"output": …}`;
 * LFM2 wraps each in `<|tool_response_start|>…<|tool_response_end|>`; Olmo 3 writes
 * `Function NAME returned:`. The name is kept in each so parallel results stay apart; outputs
 * are prompt-safe JSON, text too (see result-text.ts).
 */
export function formatPythonicToolResponse(
  results: readonly ToolResponseToFormat[],
  style: PythonicPromptStyle,
): string {
  return results
    .map((result) => {
      if (style === 'olmo3') {
        const verb = result.isError ? 'failed' : 'returned';
        const name = resultNameText(result.toolName);
        return `Function ${name} ${verb}:\n${resultOutputJson(result.output)}`;
      }
      const body = namedResultJson(result, 'output');
      return style === 'lfm2' ? `<|tool_response_start|>${body}<|tool_response_end|>` : body;
    })
    .join('\n');
}

function exampleCall(tools: readonly ToolDefinition[], style: PythonicPromptStyle): string {
  const tool = tools[0];
  if (!tool)
    return formatPythonicToolCall([{ toolName: 'get_weather', input: { city: 'Oslo' } }], style);
  return formatPythonicToolCall(
    [{ toolName: tool.name, input: exampleInput(tool.inputSchema) }],
    style,
  );
}

/** The tools section, worded as each family's chat template words it. */
export function formatPythonicTools(
  tools: readonly ToolDefinition[],
  style: PythonicPromptStyle,
): string {
  const example = exampleCall(tools, style);
  if (style === 'lfm2') {
    return [
      `List of tools: <|tool_list_start|>[${tools.map((tool) => jsonForPrompt(openAiTool(tool))).join(', ')}]<|tool_list_end|>`,
      '',
      'To call tools, write a Python list of calls with keyword arguments between <|tool_call_start|> and <|tool_call_end|>, for example:',
      example,
      'Each result comes back between <|tool_response_start|> and <|tool_response_end|>, in the order of the calls.',
    ].join('\n');
  }
  if (style === 'olmo3') {
    return [
      'You have access to the following functions. To call functions, respond with a pythonic function call wrapped in <function_calls></function_calls> XML tags.',
      '',
      'For example:',
      example,
      '',
      'You can call multiple functions by putting each call on a new line within the tags.',
      '',
      'Here are the available functions:',
      '<functions>',
      tools
        .map((tool) => jsonForPrompt((openAiTool(tool) as { function: unknown }).function))
        .join('\n'),
      '</functions>',
    ].join('\n');
  }
  const signatures = tools.map((tool) => `${jsonForPrompt(openAiTool(tool), 4)}\n\n`).join('');
  if (style === 'llama4') {
    return [
      'Here is a list of functions in JSON format that you can invoke. Use exact format: [func_name1(param1=value1, param2=value2), func_name2(...)]',
      'ONLY use functions that are listed; for a function that is not listed, answer in text. Do not add text to the function calls.',
      '',
      signatures.trimEnd(),
      '',
      'For example:',
      example,
    ].join('\n');
  }
  return [
    'You have access to the following functions. To call functions, please respond with a python list of the calls. Respond in the format [func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)] Do not use variables.',
    '',
    signatures.trimEnd(),
    '',
    'For example:',
    example,
    '',
    'Each result comes back as {"name": …, "output": …}, in the order of the calls.',
  ].join('\n');
}
