/**
 * Gemma 4 (Google): one call per special-token pair, arguments in Gemma's JSON dialect (bare
 * keys, strings between `<|"|>` tokens with nothing escaped inside):
 *
 * `<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>,days:3}<tool_call|>`
 *
 * as vLLM's chat template writes it (`examples/tool_chat_template_gemma4.jinja`) and vLLM's,
 * SGLang's and mlx-lm's parsers read it. Reasoning is the `<|channel>thought\n…<channel|>`
 * channel; results come back in the same model turn as
 * `<|tool_response>response:NAME{value:<|"|>…<|"|>}<tool_response|>`.
 *
 * Besides the canonical call, the forms Gemma 4 is seen writing (vLLM's
 * `test_gemma4_regex_and_bare_calls.py`, vllm-mlx PR #622, Unsloth PR #11153):
 * - `<turn|>` instead of `<tool_call|>` as the closer, or no closer at the output's end;
 * - `<|tool_call>:call:NAME{…}` (a stray colon);
 * - `<call>NAME{…}` (a token split by multimodal input) and a bare `call:NAME{…}` (tokens
 *   stripped by the server, or glued to `<channel|>`): opened by text that may be prose, so read
 *   only as well-formed calls of declared tools that end the output (nothing but such calls and
 *   closers after them), and never inside inline code;
 * - the parenthesis form `<|tool_call>call:NAME(key="v")`, read as one Python call (after the
 *   token only: a bare `call:word(…)` is prose);
 * - a ```` ```tool_code ```` fence of Python calls, one after another.
 * Names may hold `-` and `.`.
 */
import type { ToolCallProtocol, ToolCallToFormat, ToolDefinition } from '../../core/index.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { exampleInput } from '../prompt/example-input.ts';
import { defineFormat, type FormatHooks, formatEntryFromSpec } from '../spec/define.ts';
import type { DialectCallForm, FormatSpec } from '../spec/types.ts';

/** Gemma 4's string delimiter, one special token on both sides. */
const QUOTE = '<|"|>';
const CALL_OPEN = '<|tool_call>';
const CALL_CLOSE = '<tool_call|>';
/** The end of the model's turn, which models also write in place of `<tool_call|>`. */
const TURN_CLOSE = '<turn|>';
const RESPONSE_OPEN = '<|tool_response>';
const RESPONSE_CLOSE = '<tool_response|>';

/** The canonical call: `<|tool_call>call:NAME{…}<tool_call|>` (or `<turn|>`). */
const CANONICAL: DialectCallForm = {
  codec: 'dialect',
  open: CALL_OPEN,
  namePrefix: 'call:',
  close: CALL_CLOSE,
  closeAlternatives: [TURN_CLOSE],
  stringDelimiters: [QUOTE, QUOTE],
  // A model that writes a JSON string is read; the writer quotes a string holding `<|"|>`.
  quotedStrings: true,
};

/**
 * Calls written without the token: read only as the rest of the output (see DialectCallBody),
 * the closers the model writes after them dropped, and the token that opens the results.
 */
const BARE: DialectCallForm = {
  codec: 'dialect',
  open: 'call:',
  close: CALL_CLOSE,
  closeAlternatives: [TURN_CLOSE, RESPONSE_OPEN],
  stringDelimiters: [QUOTE, QUOTE],
  quotedStrings: true,
  certainty: 'speculative',
};

export const gemma4Spec: FormatSpec = {
  spec: 1,
  name: 'gemma4',
  aliases: ['gemma-4', 'gemma_4'],
  families: 'Gemma 4',
  models: ['gemma-4', 'gemma4'],
  example: '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>',
  // The thought channel; and, as for every format by default, `<think>` and `<thinking>` blocks
  // (a server or client that rewrites the channel writes those).
  reasoning: [
    { open: '<|channel>thought\n', close: '<channel|>' },
    { open: '<|channel>', close: '<channel|>' },
    { open: '<think>', close: '</think>' },
    { open: '<thinking>', close: '</thinking>' },
  ],
  // The token the model ends its calls with (the template opens the results there), the end of
  // its turn, and a closer left after a call written without its opener: framing, not text.
  markup: [RESPONSE_OPEN, TURN_CLOSE, CALL_CLOSE],
  calls: [
    CANONICAL,
    { ...CANONICAL, open: `${CALL_OPEN}:` },
    { ...BARE, open: '<call>' },
    { ...BARE, open: 'call:' },
    {
      codec: 'python',
      open: '```tool_code\n',
      close: '```',
      certainty: 'speculative',
    },
  ],
  write: { call: `${CALL_OPEN}call:{name}{arguments}${CALL_CLOSE}` },
  // As the template's `format_tool_response_block` writes a tool message's content, a string
  // (an object result is its JSON text, as an API's tool message carries it). The template writes
  // a mapping's keys only for content that is a mapping, which chat APIs do not send.
  results: {
    each: `${RESPONSE_OPEN}response:{name}{value:${QUOTE}{output}${QUOTE}}${RESPONSE_CLOSE}`,
  },
};

// ── the prompt ───────────────────────────────────────────────────────────────────────────────

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A declaration value as the template's `format_argument` writes it (strings between `<|"|>`). */
function declarationValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return `${QUOTE}${value}${QUOTE}`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(declarationValue).join(',')}]`;
  const entries = Object.entries(value as Schema).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${QUOTE}${key}${QUOTE}:${declarationValue(item)}`).join(',')}}`;
}

function typeName(schema: Schema): string {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  return typeof type === 'string' ? type.toUpperCase() : 'STRING';
}

function requiredList(required: unknown): string {
  const names = Array.isArray(required) ? required.filter((name) => typeof name === 'string') : [];
  return `[${names.map((name) => `${QUOTE}${name}${QUOTE}`).join(',')}]`;
}

/** The template's `format_parameters`: each property, keys sorted, types upper-cased. */
function declarationProperties(properties: Schema): string {
  const keys = Object.keys(properties).sort();
  return keys
    .map((key) => {
      const property = isSchema(properties[key]) ? (properties[key] as Schema) : {};
      const type = typeName(property);
      const parts: string[] = [];
      if (typeof property.description === 'string' && property.description.length > 0) {
        parts.push(`description:${QUOTE}${property.description}${QUOTE}`);
      }
      if (type === 'STRING' && Array.isArray(property.enum)) {
        parts.push(`enum:${declarationValue(property.enum)}`);
      }
      if (type === 'ARRAY' && isSchema(property.items)) {
        parts.push(`items:${declarationItems(property.items)}`);
      }
      if (property.nullable === true) parts.push('nullable:true');
      if (type === 'OBJECT' && isSchema(property.properties)) {
        parts.push(`properties:{${declarationProperties(property.properties)}}`);
        if (Array.isArray(property.required) && property.required.length > 0) {
          parts.push(`required:${requiredList(property.required)}`);
        }
      }
      parts.push(`type:${QUOTE}${type}${QUOTE}`);
      return `${key}:{${parts.join(',')}}`;
    })
    .join(',');
}

function declarationItems(items: Schema): string {
  const parts: string[] = [];
  for (const key of Object.keys(items).sort()) {
    const value = items[key];
    if (value === null || value === undefined) continue;
    if (key === 'properties') {
      parts.push(`properties:{${isSchema(value) ? declarationProperties(value) : ''}}`);
    } else if (key === 'required') {
      parts.push(`required:${requiredList(value)}`);
    } else if (key === 'type') {
      parts.push(`type:${declarationValue(typeName(items))}`);
    } else {
      parts.push(`${key}:${declarationValue(value)}`);
    }
  }
  return `{${parts.join(',')}}`;
}

/** The template's `format_function_declaration`. */
function declaration(tool: ToolDefinition): string {
  const schema = isSchema(tool.inputSchema) ? tool.inputSchema : {};
  const parts: string[] = [];
  if (isSchema(schema.properties) && Object.keys(schema.properties).length > 0) {
    parts.push(`properties:{${declarationProperties(schema.properties)}}`);
  }
  if (Array.isArray(schema.required) && schema.required.length > 0) {
    parts.push(`required:${requiredList(schema.required)}`);
  }
  parts.push(`type:${QUOTE}${typeName({ type: schema.type ?? 'object' })}${QUOTE}`);
  return `<|tool>declaration:${tool.name}{description:${QUOTE}${tool.description ?? ''}${QUOTE},parameters:{${parts.join(',')}}}<tool|>`;
}

/**
 * The system turn's tool list as the chat template renders it, `<|tool>declaration:NAME{…}<tool|>`
 * per tool, then how a call (written by `formatToolCall`) and its result are written.
 */
export function formatGemma4Tools(
  tools: readonly ToolDefinition[],
  formatToolCall: (calls: readonly ToolCallToFormat[]) => string,
): string {
  if (tools.length === 0) return '';
  const first = tools[0] as ToolDefinition;
  const example = formatToolCall([
    { toolName: first.name, input: exampleInput(first.inputSchema) },
  ]);
  return [
    tools.map(declaration).join(''),
    '',
    `To call a function, write it as: ${example}`,
    `Each result comes back as ${RESPONSE_OPEN}response:NAME{…}${RESPONSE_CLOSE}, in the order of the calls.`,
  ].join('\n');
}

// ── the format ───────────────────────────────────────────────────────────────────────────────

/** What the spec's templates cannot say: the declarations in the template's own syntax. */
const GEMMA4_HOOKS: FormatHooks = { formatTools: formatGemma4Tools };

/** Gemma 4's format (see the top of this file). */
export function gemma4Protocol(): ToolCallProtocol {
  return defineFormat(gemma4Spec, GEMMA4_HOOKS);
}

export const gemma4Format: FormatEntry = formatEntryFromSpec(gemma4Spec, {
  hooks: GEMMA4_HOOKS,
  // The name after `call:` in a marked or a bare call, for telling the model which tool it made up.
  toolNamesIn: (text) =>
    Array.from(text.matchAll(/call:([A-Za-z_][\w.-]{0,99})[{(]/g), (match) => match[1]!),
});
