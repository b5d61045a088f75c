import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import { defineProtocol } from '../common/define-protocol.ts';
import { XmlCallBody } from './call-body.ts';
import { formatXmlToolCall, formatXmlToolResponse, formatXmlTools } from './format.ts';
import { xmlToolShape } from './tool-shape.ts';

/**
 * The XML protocol of seeds 000 and 004: the element is the tool, its children the parameters.
 * `<attempt_completion><result>…</result></attempt_completion>` is simply a call of the tool
 * `attempt_completion` when that tool is declared.
 */
export function xmlProtocol(): ToolCallProtocol {
  return defineProtocol<ToolDefinition>({
    name: 'xml',
    grammar: {
      callOpeners: (options) =>
        options.tools.map((tool) => ({ literal: `<${tool.name}`, delimited: true, data: tool })),
      openCall: (tool, context) => new XmlCallBody(context, tool, xmlToolShape(tool)),
    },
    formatTools: formatXmlTools,
    formatToolCall: formatXmlToolCall,
    formatToolResponse: formatXmlToolResponse,
  });
}
