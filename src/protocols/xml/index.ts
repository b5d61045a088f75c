import { BoundedCache } from '../../core/bounded-cache.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import type { Opener } from '../../scan/opener-trie.ts';
import { defineProtocol } from '../define/define-protocol.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import { XmlCall } from './call.ts';
import { formatXmlToolCall, formatXmlToolResponse, formatXmlTools } from './format.ts';
import { xmlToolShape } from './tool-shape.ts';

/**
 * Probe's XML protocol (the morphXml form of @ai-sdk-tool/parser): the element is the tool, its children the parameters.
 * `<attempt_completion><result>…</result></attempt_completion>` is simply a call of the tool
 * `attempt_completion` when that tool is declared.
 */
export function xmlProtocol(): ToolCallProtocol {
  return defineProtocol<XmlOpener>({
    name: 'xml',
    grammar: {
      reasoningTags: THINK_TAGS,
      callOpeners: (options) => openersFor(options.tools),
      openCall: ({ name, bare }, context) => {
        const tool = context.options.toolsByName.get(name)!;
        return new XmlCall(context, tool, xmlToolShape(tool), bare);
      },
    },
    formatTools: formatXmlTools,
    formatToolCall: formatXmlToolCall,
    formatToolResponse: (results) => formatXmlToolResponse(results, true),
    formatToolResponseForAnyReader: (results) => formatXmlToolResponse(results),
  });
}

/**
 * What opens an XML call: `<name`, or the tool's name alone on a line (`\nlist_dir`), which some
 * models write instead of the opening tag, followed by the parameter tags.
 */
interface XmlOpener {
  readonly name: string;
  readonly bare: boolean;
}

/** Distinct tool lists kept; an application has a few, so this only bounds odd callers. */
const MAX_CACHED_TOOL_LISTS = 64;

/**
 * One opener array per list of tool names, so the engine compiles it once: the AI SDK hands over
 * new tool objects for every step, with the same names. The openers carry names, and a call's
 * tool is looked up in the parse's own tools, so a cached array never holds an old definition.
 */
const openersByNames = new BoundedCache<string, readonly Opener<XmlOpener>[]>(
  MAX_CACHED_TOOL_LISTS,
);

function openersFor(tools: readonly ToolDefinition[]): readonly Opener<XmlOpener>[] {
  const key = tools.map((tool) => tool.name).join('\u0000');
  let openers = openersByNames.get(key);
  if (openers === undefined) {
    openers = [
      ...tools.map((tool) => ({
        literal: `<${tool.name}`,
        delimited: true,
        data: { name: tool.name, bare: false },
      })),
      ...tools.map((tool) => ({
        literal: `\n${tool.name}`,
        delimited: true,
        data: { name: tool.name, bare: true },
      })),
    ];
    openersByNames.set(key, openers);
  }
  return openers;
}
