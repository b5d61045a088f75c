/**
 * A FormatSpec's write side: `formatToolCall`, `formatToolResponse` (as the model's template
 * renders results, and in prompt-safe JSON for `auto`) and `formatTools`, all from the spec's
 * templates. Templates are filled in one pass; a `{word}` that is not a placeholder stays as it
 * is, so JSON braces in a template need no escaping.
 */

import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import { writeDialectArguments } from '../codecs/dialect/write.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { pythonLiteral } from '../codecs/python/python-call-format.ts';
import { rawCodeArgumentText } from '../codecs/raw-code/raw-code-body.ts';
import { writeName, writeValueText } from '../codecs/tagged/parameter-tags-syntax.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import { functionDeclaration, openAIToolDeclaration } from '../prompt/tool-declarations.ts';
import { typescriptNamespace } from '../prompt/typescript-tools.ts';
import {
  type ResultTextGuard,
  resultNameText,
  resultOutputJson,
  resultTextForPrompt,
} from '../results/result-text.ts';
import type { CallFormSpec, FormatSpec } from './types.ts';

/** Longest placeholder name looked for after a `{`. */
const MAX_PLACEHOLDER = 24;

/** `template` with each `{key}` of `values` replaced; anything else kept as written. */
export function fillTemplate(template: string, values: Readonly<Record<string, string>>): string {
  let out = '';
  let from = 0;
  let index = template.indexOf('{');
  // The first `}` after a `{` serves every `{` before it: each `}` is looked for once.
  let close = -1;
  while (index !== -1) {
    if (close < index) {
      close = template.indexOf('}', index + 1);
      if (close === -1) break;
    }
    if (close - index - 1 <= MAX_PLACEHOLDER) {
      const key = template.slice(index + 1, close);
      const value = Object.hasOwn(values, key) ? values[key] : undefined;
      if (value !== undefined) {
        out += template.slice(from, index) + value;
        from = close + 1;
        index = template.indexOf('{', from);
        continue;
      }
    }
    index = template.indexOf('{', index + 1);
  }
  return out + template.slice(from);
}

/** The call form the writer follows. */
export function writeFormOf(spec: FormatSpec): CallFormSpec {
  const form = spec.calls[spec.write.form ?? 0];
  if (!form) throw new TypeError(`format "${spec.name}": write.form names no call form`);
  return form;
}

/** A call's arguments as the writer's form writes them. */
function argumentsText(spec: FormatSpec, form: CallFormSpec, input: unknown): string {
  const value = inputAsValue(input);
  switch (form.codec) {
    case 'json':
      return jsonForPrompt(value ?? {});
    case 'tagged': {
      const template = spec.write.parameter ?? '';
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
      let text = '';
      for (const [key, member] of Object.entries(value)) {
        text += fillTemplate(template, {
          key: writeName(key),
          value: writeValueText(member, form.syntax),
          value_json: jsonForPrompt(member),
          type: typeName(member),
          // DSML's `string="true|false"`: whether the value is written as it is.
          string: String(typeof member === 'string'),
        });
      }
      return text;
    }
    case 'python': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
      return Object.entries(value)
        .map(([key, member]) => `${key}=${pythonLiteral(member)}`)
        .join(', ');
    }
    case 'dialect':
      return writeDialectArguments(value ?? {}, form);
    case 'raw-code':
      return rawCodeArgumentText(value, form);
  }
}

/** The JSON type of a value, as type attributes name it (`string`, `number`, `object`…). */
function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string'
    ? typeof value
    : 'object';
}

/** `formatToolCall` of a spec. */
export function callWriter(spec: FormatSpec): (calls: readonly ToolCallToFormat[]) => string {
  const form = writeFormOf(spec);
  const { section, call, join = '', empty } = spec.write;
  return (calls) => {
    if (calls.length === 0 && empty !== undefined) return empty;
    const written = calls.map((one, index) =>
      fillTemplate(call, {
        // A tagged format writes the name inside markup: escaped the way its reader decodes it.
        name: form.codec === 'tagged' ? writeName(one.toolName) : one.toolName,
        name_json: jsonForPrompt(one.toolName),
        index: String(index),
        number: String(index + 1),
        id: one.toolCallId ?? String(index),
        arguments: argumentsText(spec, form, one.input),
      }),
    );
    const body = written.join(join);
    return section ? section.open + body + section.close : body;
  };
}

/** Tag names in `literal` (`tool_response` of `<tool_response>` and `</tool_response>`). */
function tagNamesIn(literal: string): string[] {
  const names: string[] = [];
  for (let index = literal.indexOf('<'); index !== -1; index = literal.indexOf('<', index + 1)) {
    let start = index + 1;
    if (literal[start] === '/') start++;
    let end = start;
    while (end < literal.length && /[A-Za-z0-9_:.-]/.test(literal[end] ?? '')) end++;
    if (end > start && /[A-Za-z_]/.test(literal[start] ?? ''))
      names.push(literal.slice(start, end));
  }
  return names;
}

/**
 * What a text result may not hold as it is: every literal the format's parser reads (openers,
 * framing, reasoning) and the tags of the result framing, so a result can never close its block
 * early or read as a call.
 */
export function resultGuardOf(spec: FormatSpec): ResultTextGuard {
  const literals = new Set<string>();
  // A per-tool opener is a template; what it opens is a declared tool's call in any case.
  for (const form of spec.calls) if (!form.perTool) literals.add(form.open);
  for (const literal of spec.markup ?? []) literals.add(literal);
  const tags = new Set<string>();
  const framing = [
    spec.results.each,
    spec.results.section?.open ?? '',
    spec.results.section?.close ?? '',
    ...spec.calls.flatMap((form) => [form.perTool ? '' : form.open, form.close ?? '']),
  ];
  for (const form of spec.calls) {
    if (form.codec !== 'tagged') continue;
    const { callOpen, callClose, parameterOpen, parameterClose, keyClose, valueOpen } = form.syntax;
    framing.push(
      callOpen,
      callClose,
      parameterOpen,
      parameterClose,
      keyClose ?? '',
      valueOpen ?? '',
    );
  }
  for (const tag of spec.reasoning ?? []) framing.push(tag.open, tag.close);
  for (const text of framing) for (const name of tagNamesIn(text)) tags.add(name);
  for (const tag of spec.reasoning ?? []) literals.add(tag.open);
  return { tags: [...tags], literals: [...literals] };
}

/** `formatToolResponse` of a spec: text as the template renders it, or prompt-safe JSON throughout. */
export function resultWriter(
  spec: FormatSpec,
  anyReader: boolean,
): (results: readonly ToolResponseToFormat[]) => string {
  const guard = resultGuardOf(spec);
  const { section, each, join = '', output = 'text', errorPrefix = 'Error: ' } = spec.results;
  return (results) => {
    const written = results.map((result, index) => {
      const body =
        anyReader || output === 'json'
          ? resultOutputJson(result.output)
          : withoutLeadingBareCall(resultTextForPrompt(result.output, guard));
      return fillTemplate(each, {
        name: resultNameText(result.toolName),
        index: String(index),
        id: result.toolCallId ?? String(index),
        output: result.isError ? errorPrefix + body : body,
      });
    });
    const body = written.join(join);
    return section ? section.open + body + section.close : body;
  };
}

/**
 * A text result that opens with a bare `call:NAME{…}` would read as a call to FunctionGemma's
 * reader (and `auto`) wherever the template puts the result at the start of a message (InternLM,
 * Jamba, GigaChat write it with nothing before it): its `c` is written as `\u0063`, as the guard
 * breaks markup. Anywhere else in the text, `call:` is prose and stays.
 */
function withoutLeadingBareCall(text: string): string {
  let index = 0;
  while (index < text.length && isWhiteSpace(text.charCodeAt(index))) index++;
  return text.startsWith('call:', index)
    ? `${text.slice(0, index)}\\u0063${text.slice(index + 1)}`
    : text;
}

const DEFAULT_PROMPT = [
  '# Tools',
  '',
  'You may call one or more of these tools, given as JSON:',
  '{tools}',
  '',
  'To call a tool, write the call exactly like this, with its arguments:',
  '{example}',
  '',
  'Several calls may follow one another. Each result comes back to you after your calls.',
].join('\n');

/** `formatTools` of a spec: its prompt text, or a generic one, filled for the tools. */
export function toolsWriter(
  spec: FormatSpec,
  writeCalls: (calls: readonly ToolCallToFormat[]) => string,
): (tools: readonly ToolDefinition[]) => string {
  const template = spec.prompt?.text ?? DEFAULT_PROMPT;
  const callOpen = spec.calls[0]?.open ?? '';
  return (tools) => {
    if (tools.length === 0) return '';
    const declarations = tools.map((tool) => openAIToolDeclaration(tool));
    const functions = tools.map((tool) => functionDeclaration(tool));
    const first = tools[0] as ToolDefinition;
    return fillTemplate(template, {
      tools: declarations.map((declaration) => jsonForPrompt(declaration)).join('\n'),
      tool_list: jsonForPrompt(declarations),
      functions: functions.map((declaration) => jsonForPrompt(declaration)).join('\n'),
      function_list: jsonForPrompt(functions),
      typescript: typescriptNamespace(tools),
      example: writeCalls([{ toolName: first.name, input: exampleInput(first.inputSchema) }]),
      call_open: callOpen,
    });
  };
}
