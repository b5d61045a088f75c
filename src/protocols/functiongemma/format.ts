import type {
  JsonSchema,
  ToolCallToFormat,
  ToolDefinition,
  ToolResponseToFormat,
} from '../../core/index.ts';
import { DOT, MINUS } from '../../scan/char-codes.ts';
import { isNamePart, isNameStart } from '../codecs/python/python-call-values.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import {
  type ResultTextGuard,
  resultNameText,
  resultOutputJson,
  resultTextForPrompt,
} from '../results/result-text.ts';

const ESCAPE = '<escape>';

function isBareKey(key: string): boolean {
  if (key.length === 0) return false;
  for (let index = 0; index < key.length; index++) {
    const code = key.charCodeAt(index);
    // A bare key begins like a name: `00` would be read back as the number 0.
    const allowed =
      index === 0 ? isNameStart(code) : isNamePart(code) || code === MINUS || code === DOT;
    if (!allowed) return false;
  }
  return true;
}

function gemmaKey(key: string): string {
  return isBareKey(key) ? key : `${ESCAPE}${key}${ESCAPE}`;
}

/**
 * A value as FunctionGemma writes it: strings between `<escape>` tokens, bare numbers, booleans
 * and keys. (A string holding `<escape>` itself cannot be written: the token has no escape.)
 */
export function gemmaValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return `${ESCAPE}${value}${ESCAPE}`;
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(gemmaValue).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `{${entries.map(([key, item]) => `${gemmaKey(key)}:${gemmaValue(item)}`).join(',')}}`;
}

export function formatFunctionGemmaToolCall(calls: readonly ToolCallToFormat[]): string {
  return calls
    .map((call) => {
      const input = inputAsValue(call.input);
      const argumentsObject =
        input !== null && typeof input === 'object' && !Array.isArray(input) ? input : {};
      return `<start_function_call>call:${call.toolName}${gemmaValue(argumentsObject)}<end_function_call>`;
    })
    .join('');
}

/**
 * `<start_function_response>response:NAME{value:<escape>…<escape>}<end_function_response>` per
 * result (`error:` for an error). FunctionGemma's strings have no escapes, so a string could hold
 * `<escape>` or a bare `call:NAME{…}`: a text result is the text itself with those broken (`text`,
 * the format's guard), else the output is prompt-safe JSON text inside it, which escapes both,
 * for objects and strings alike (for a reader of every format). The name is what the model
 * called: a name that is not a plain one (markup, a special token) is a prompt-safe JSON string.
 */
export function formatFunctionGemmaToolResponse(
  results: readonly ToolResponseToFormat[],
  text?: ResultTextGuard,
): string {
  return results
    .map((result) => {
      const key = result.isError ? 'error' : 'value';
      const output = text
        ? resultTextForPrompt(result.output, text)
        : resultOutputJson(result.output);
      const body = `{${key}:${ESCAPE}${output}${ESCAPE}}`;
      return `<start_function_response>response:${resultNameText(result.toolName)}${body}<end_function_response>`;
    })
    .join('');
}

/** A schema in FunctionGemma's declaration syntax: types upper-cased, strings escaped. */
function declarationSchema(schema: JsonSchema): string {
  if (typeof schema !== 'object' || schema === null) return '{}';
  const parts: string[] = [];
  if (typeof schema.description === 'string')
    parts.push(`description:${gemmaValue(schema.description)}`);
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  if (properties && Object.keys(properties).length > 0) {
    const rendered = Object.entries(properties).map(
      ([name, property]) => `${gemmaKey(name)}:${declarationSchema(property)}`,
    );
    parts.push(`properties:{${rendered.join(',')}}`);
  }
  if (Array.isArray(schema.required) && schema.required.length > 0) {
    parts.push(`required:${gemmaValue(schema.required)}`);
  }
  if (Array.isArray(schema.enum)) parts.push(`enum:${gemmaValue(schema.enum)}`);
  if (schema.items !== undefined)
    parts.push(`items:${declarationSchema(schema.items as JsonSchema)}`);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (typeof type === 'string') parts.push(`type:${gemmaValue(type.toUpperCase())}`);
  return `{${parts.join(',')}}`;
}

/** The developer turn's tool list, as FunctionGemma's chat template declares each tool. */
export function formatFunctionGemmaTools(tools: readonly ToolDefinition[]): string {
  const declarations = tools.map(
    (tool) =>
      `<start_function_declaration>declaration:${tool.name}{description:${gemmaValue(tool.description ?? '')},parameters:${declarationSchema({ ...(tool.inputSchema as object), description: undefined })}}<end_function_declaration>`,
  );
  const example = tools[0]
    ? formatFunctionGemmaToolCall([
        { toolName: tools[0].name, input: exampleInput(tools[0].inputSchema) },
      ])
    : '<start_function_call>call:get_weather{city:<escape>Oslo<escape>}<end_function_call>';
  return [
    `You are a model that can do function calling with the following functions${declarations.join('')}`,
    '',
    `To call a function, write it as: ${example}`,
    'Each result comes back as <start_function_response>response:NAME{…}<end_function_response>, in the order of the calls.',
  ].join('\n');
}
