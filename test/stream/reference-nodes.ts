/**
 * The reference front end's node shape (AgentNode in the conformance notes), built from toolwire's
 * document model, so the conformance cases can be compared. Only the presentation differs: the
 * reference pretty-prints a call's JSON arguments into a text child, names blocks without their
 * `content-block-` prefix and fills default names; this does the same from the decoded blocks.
 */

import { parseJsonText } from '../../src/core/parse-json.ts';
import type {
  BlockDocument,
  Citation,
  ReceivingBlock,
  ToolResultPart,
} from '../../src/stream/index.ts';

export type AgentNode =
  | { type: 'text'; content: string }
  | { type: 'element'; tagName: string; attributes: Record<string, string>; children: AgentNode[] };

const PREFIX = 'content-block-';
const RESULT_SUFFIX = '_tool_result';

function element(
  tagName: string,
  attributes: Record<string, string> = {},
  children: AgentNode[] = [],
): AgentNode {
  return { type: 'element', tagName, attributes, children };
}

function textChildren(text: string): AgentNode[] {
  return text.length > 0 ? [{ type: 'text', content: text }] : [];
}

/** The reference's name for a block tag. */
export function referenceTagName(tag: string): string {
  if (tag === `${PREFIX}tool_result`) return 'tool_result';
  if (tag.endsWith(RESULT_SUFFIX)) return 'server_tool_result';
  return tag.startsWith(PREFIX) ? tag.slice(PREFIX.length) : tag;
}

function toolType(name: string, tag: string): string {
  if (name.length > 0) return name;
  const bare = tag.startsWith(PREFIX) ? tag.slice(PREFIX.length) : tag;
  return bare.endsWith(RESULT_SUFFIX) ? bare.slice(0, -RESULT_SUFFIX.length) : bare;
}

function callNode(tagName: string, id: string, name: string, args: string): AgentNode {
  try {
    const pretty = JSON.stringify(parseJsonText(args), null, 2);
    return element(tagName, { id, name }, textChildren(pretty));
  } catch {
    return element(tagName, { id, name, arguments: args });
  }
}

function partNodes(content: string | readonly ToolResultPart[]): AgentNode[] {
  if (typeof content === 'string') return textChildren(content);
  return content.map((part) =>
    part.type === 'text'
      ? element('text', {}, textChildren(part.text))
      : element('image', { src: part.src, media_type: part.mediaType }),
  );
}

function citationNode(citation: Citation): AgentNode {
  let attributes: Record<string, string>;
  switch (citation.type) {
    case 'char_location':
      attributes = {
        type: citation.type,
        document_index: String(citation.documentIndex),
        document_title: citation.documentTitle,
        start_char_index: String(citation.startCharIndex),
        end_char_index: String(citation.endCharIndex),
      };
      break;
    case 'page_location':
      attributes = {
        type: citation.type,
        document_index: String(citation.documentIndex),
        document_title: citation.documentTitle,
        start_page_number: String(citation.startPageNumber),
        end_page_number: String(citation.endPageNumber),
      };
      break;
    case 'web_search_result_location':
      attributes = { type: citation.type, url: citation.url, title: citation.title };
      break;
    default:
      attributes = { type: citation.citationType, ...citation.attributes };
  }
  return element('citation', attributes, textChildren(citation.citedText));
}

/** Blocks the decoder gives only when complete (everything else streams or is in its tag). */
function isBuffered(tag: string): boolean {
  return (
    tag.endsWith(RESULT_SUFFIX) ||
    tag === `${PREFIX}tool_result` ||
    tag === 'citations' ||
    tag === `${PREFIX}meta_files` ||
    tag === `${PREFIX}error`
  );
}

export function referenceNodes(
  document: BlockDocument,
  receiving: ReceivingBlock | undefined,
): AgentNode[] {
  const nodes: AgentNode[] = [];
  for (const block of document.blocks) {
    switch (block.kind) {
      case 'meta-init':
        nodes.push(element('meta_init', { data: JSON.stringify(block.data) }));
        break;
      case 'meta-final':
        nodes.push(element('meta_final', { data: JSON.stringify(block.data) }));
        break;
      case 'awaiting-frontend-tools':
        nodes.push(element('awaiting_frontend_tools', { data: JSON.stringify(block.tools) }));
        break;
      case 'thinking':
        nodes.push(element('thinking', {}, textChildren(block.text)));
        break;
      case 'text':
        nodes.push(
          element(
            'text',
            {},
            block.segments.flatMap((segment) =>
              typeof segment === 'string'
                ? textChildren(segment)
                : [element(segment.name, { ...segment.attributes }, textChildren(segment.content))],
            ),
          ),
        );
        break;
      case 'tool-call':
        nodes.push(
          callNode(
            block.toolKind === 'server' ? 'server_tool_call' : 'tool_call',
            block.id,
            block.name,
            block.arguments,
          ),
        );
        break;
      case 'tool-result':
        nodes.push(
          block.toolKind === 'client'
            ? element(
                'tool_result',
                { id: block.id, name: block.name || 'tool_result' },
                partNodes(block.content),
              )
            : element(
                'server_tool_result',
                {
                  id: block.id,
                  name: block.name || 'server_tool_result',
                  toolType: toolType(block.name, block.tag ?? `${PREFIX}server${RESULT_SUFFIX}`),
                },
                partNodes(block.content),
              ),
        );
        break;
      case 'citations':
        nodes.push(element('citations', {}, block.citations.map(citationNode)));
        break;
      case 'meta-files':
        nodes.push(element('meta_files', {}, textChildren(JSON.stringify({ files: block.files }))));
        break;
      case 'error':
        nodes.push(element('error', {}, textChildren(JSON.stringify(block.error))));
        break;
      case 'stray-text':
        nodes.push({ type: 'text', content: block.text });
        break;
      case 'decode-error': {
        // The decoder keeps the tag and attributes of a block it could not read (non-JSON data).
        const { tag, attributes } = block.problem;
        if (tag !== undefined && attributes !== undefined)
          nodes.push(element(referenceTagName(tag), { ...attributes }));
        break;
      }
    }
  }
  // A buffered block still arriving: the reference shows it open, with no content yet.
  if (receiving && isBuffered(receiving.tag)) {
    const { id = '', name = '' } = receiving.attributes;
    const tagName = referenceTagName(receiving.tag);
    nodes.push(
      tagName === 'tool_result'
        ? element(tagName, { id, name: name || 'tool_result' })
        : tagName === 'server_tool_result'
          ? element(tagName, {
              id,
              name: name || 'server_tool_result',
              toolType: toolType(name, receiving.tag),
            })
          : element(tagName, { ...receiving.attributes }),
    );
  }
  return nodes;
}

const JSON_DATA_TAGS = new Set(['meta_init', 'meta_final', 'awaiting_frontend_tools']);
const JSON_BODY_TAGS = new Set(['meta_files', 'error']);

function canonicalJson(text: string): string {
  try {
    return JSON.stringify(parseJsonText(text));
  } catch {
    return text;
  }
}

/**
 * Both sides of a comparison are normalised so JSON compares as values, not as text: the
 * reference's back end wrote it with Python's separators (`", "`, `": "`), toolwire writes it
 * compactly. Applies to `data` attributes and to the bodies of meta_files and error only.
 */
export function normalizeJson(nodes: readonly AgentNode[]): AgentNode[] {
  return nodes.map((node) => {
    if (node.type === 'text') return node;
    const attributes = { ...node.attributes };
    if (JSON_DATA_TAGS.has(node.tagName) && attributes.data !== undefined)
      attributes.data = canonicalJson(attributes.data);
    const children = JSON_BODY_TAGS.has(node.tagName)
      ? node.children.map((child) =>
          child.type === 'text' ? { ...child, content: canonicalJson(child.content) } : child,
        )
      : normalizeJson(node.children);
    return { ...node, attributes, children };
  });
}
