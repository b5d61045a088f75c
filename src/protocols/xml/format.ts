import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { describeToolSection } from '../prompt/describe-tool.ts';
import { exampleInput, inputAsValue } from '../prompt/example-input.ts';
import {
  type ResultTextGuard,
  resultBodyText,
  resultNameText,
  resultTextBody,
} from '../results/result-text.ts';

const XML_NAME = /^[A-Za-z_][\w.-]*$/;

/** Escapes text for an element body: `&`, `<`, `>`. */
export function escapeXmlText(text: string): string {
  return text.replace(/[&<>]/g, (character) =>
    character === '&' ? '&amp;' : character === '<' ? '&lt;' : '&gt;',
  );
}

/** Escapes text for a double-quoted attribute value. */
export function escapeXmlAttribute(text: string): string {
  return escapeXmlText(text).replace(/"/g, '&quot;');
}

/** CDATA keeps text exact (white space included); `]]>` inside is split across two sections. */
function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

function hasEdgeSpace(text: string): boolean {
  return /^\s|\s$/.test(text);
}

/** Renders one value as element content, so that parsing it back gives the same value. */
function renderValue(value: unknown, indent: string): string {
  if (typeof value === 'string') {
    // The parser trims layout white space around values; CDATA protects the white space that is
    // part of the value.
    return hasEdgeSpace(value) ? cdata(value) : escapeXmlText(value);
  }
  if (value === null || typeof value !== 'object') return escapeXmlText(String(value));
  const entries = Array.isArray(value)
    ? value.map((item) => ['item', item] as const)
    : Object.entries(value);
  if (entries.length === 0 || entries.some(([key]) => !XML_NAME.test(key))) {
    // Empty containers and keys that cannot be element names travel as JSON text.
    return escapeXmlText(JSON.stringify(value));
  }
  const inner = `${indent}  `;
  const children = entries.map(
    ([key, item]) => `${inner}<${key}>${renderValue(item, inner)}</${key}>`,
  );
  return `\n${children.join('\n')}\n${indent}`;
}

export function formatXmlToolCall(calls: readonly ToolCallToFormat[]): string {
  return calls
    .map((call) => {
      const input = inputAsValue(call.input);
      const entries =
        input !== null && typeof input === 'object' && !Array.isArray(input)
          ? Object.entries(input)
          : [];
      const body = entries.map(
        ([name, value]) => `  <${name}>${renderValue(value, '  ')}</${name}>`,
      );
      return body.length === 0
        ? `<${call.toolName}></${call.toolName}>`
        : `<${call.toolName}>\n${body.join('\n')}\n</${call.toolName}>`;
    })
    .join('\n');
}

/**
 * `<tool_result tool_name="…">…</tool_result>` as Probe's XML protocol prints it; failures start
 * with `Error:`. A text result is the text itself, XML-escaped (`asText`): with no `<` left in it,
 * nothing a tool returns opens a tag, so none is read back as a call of this format, whatever the
 * tools are called (special tokens, `[TOOL_CALLS]` too, are broken as in every text result). Other values, and every result for a reader of every format (`auto`), are
 * prompt-safe JSON, objects indented as Probe prints them (see result-text.ts).
 */
/** XML escaping leaves no tag to guard: only special tokens are broken in a text result. */
const NO_TAGS: ResultTextGuard = { tags: [] };

export function formatXmlToolResponse(
  results: readonly ToolResponseToFormat[],
  asText = false,
): string {
  return results
    .map((result) => {
      const body =
        asText && typeof result.output === 'string'
          ? resultTextBody(result, NO_TAGS)
          : resultBodyText(result, 2);
      return `<tool_result tool_name="${escapeXmlAttribute(resultNameText(result.toolName))}">\n${escapeXmlText(body)}\n</tool_result>`;
    })
    .join('\n');
}

export function formatXmlTools(tools: readonly ToolDefinition[]): string {
  const sections = tools.map((tool) =>
    describeToolSection(
      tool,
      { parameters: 'Parameters', schema: 'JSON Schema of the input' },
      (schema) => JSON.stringify(schema),
    ),
  );
  const example = tools[0]
    ? formatXmlToolCall([{ toolName: tools[0].name, input: exampleInput(tools[0].inputSchema) }])
    : '<tool_name>\n  <parameter_name>value</parameter_name>\n</tool_name>';
  return [
    '# Tools',
    '',
    'You can use the tools listed below. To use one, write an XML element named after the tool,',
    'with one child element per parameter:',
    '',
    '<tool_name>',
    '  <parameter_name>value</parameter_name>',
    '</tool_name>',
    '',
    'Rules:',
    '- Use only the tool names listed below, written exactly as shown.',
    '- Write `&lt;`, `&gt;` and `&amp;` for <, > and & inside values, or wrap a value in <![CDATA[ ... ]]>.',
    '- For an array, repeat the parameter element or put one <item> element per entry inside it.',
    '- For an object, nest one element per property.',
    '- Think inside <thinking>...</thinking> first if you need to; nothing inside it is run.',
    '- Each result comes back as <tool_result tool_name="...">...</tool_result>; a failure starts with "Error:".',
    '',
    '## Example',
    '',
    example,
    '',
    '## Available tools',
    '',
    sections.join('\n\n'),
  ].join('\n');
}
