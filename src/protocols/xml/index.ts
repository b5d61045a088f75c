import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { defineProtocol } from '../common/define-protocol.ts';
import { XmlCall } from './call.ts';
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
      callOpeners: (options) => openersFor(options.tools),
      openCall: (tool, context) => new XmlCall(context, tool, xmlToolShape(tool)),
    },
    formatTools: formatXmlTools,
    formatToolCall: formatXmlToolCall,
    formatToolResponse: formatXmlToolResponse,
  });
}

interface ToolOpeners {
  /** The tools the openers were made from, to notice a list changed in place. */
  readonly tools: readonly ToolDefinition[];
  readonly openers: readonly Opener<ToolDefinition>[];
}

/**
 * One opener array per tool list, so the engine compiles it once (callers usually pass the same
 * list for every response). A list changed in place gets new openers.
 */
const openersByToolList = new WeakMap<readonly ToolDefinition[], ToolOpeners>();

function openersFor(tools: readonly ToolDefinition[]): readonly Opener<ToolDefinition>[] {
  const cached = openersByToolList.get(tools);
  if (
    cached &&
    cached.tools.length === tools.length &&
    cached.tools.every((tool, index) => tool === tools[index])
  ) {
    return cached.openers;
  }
  const openers = tools.map((tool) => ({
    literal: `<${tool.name}`,
    delimited: true,
    data: tool,
  }));
  openersByToolList.set(tools, { tools: [...tools], openers });
  return openers;
}
