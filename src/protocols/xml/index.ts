import type { ToolCallProtocol } from '../../core/index.ts';
import { defineFormat, type FormatHooks } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { XmlCall } from './call.ts';
import { formatXmlToolCall, formatXmlToolResponse, formatXmlTools } from './format.ts';
import { xmlToolShape } from './tool-shape.ts';

/**
 * Probe's XML protocol (the morphXml form of @ai-sdk-tool/parser): the element is the tool, its
 * children the parameters. `<attempt_completion><result>…</result></attempt_completion>` is
 * simply a call of the tool `attempt_completion` when that tool is declared. One action per turn.
 *
 * The forms are opened per declared tool: `<NAME`, and the tool's name alone on a line
 * (`\nlist_dir`), which some models write instead of the opening tag, followed by the parameter
 * tags. No codec of the spec reads an element named after its tool, so the reading is a
 * `callBody` hook: the element reader (XmlCall); the forms' `json` codec is never used.
 */
export const xmlSpec: FormatSpec = {
  spec: 1,
  name: 'xml',
  aliases: ['probe', 'cline'],
  families: "Probe's XML protocol; Cline and Roo Code style agents",
  example: '<get_weather><city>Oslo</city></get_weather>',
  actionsPerTurn: 'one',
  calls: [
    { codec: 'json', open: '<{name}', perTool: true },
    { codec: 'json', open: '\n{name}', perTool: true },
  ],
  write: { call: '<{name}>\n{arguments}\n</{name}>', join: '\n' },
  results: { each: '<tool_result tool_name="{name}">\n{output}\n</tool_result>', join: '\n' },
};

/** The element reader, and the writers the templates cannot say (values as nested elements). */
const XML_HOOKS: FormatHooks = {
  callBody: (form, context, toolName) => {
    const tool = toolName === undefined ? undefined : context.options.toolsByName.get(toolName);
    if (tool === undefined) return undefined;
    // The element reader refuses a longer tag name (`<get_weather_x`): the opener is then text.
    return new XmlCall(context, tool, xmlToolShape(tool), form.open.startsWith('\n'));
  },
  formatTools: formatXmlTools,
  formatToolCall: formatXmlToolCall,
  formatToolResponse: (results) => formatXmlToolResponse(results, true),
  formatToolResponseForAnyReader: (results) => formatXmlToolResponse(results),
};

/** Probe's XML protocol: see xmlSpec. */
export function xmlProtocol(): ToolCallProtocol {
  return defineFormat(xmlSpec, XML_HOOKS);
}
