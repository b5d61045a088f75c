/**
 * xgrammar's structural tag (vLLM's and SGLang's `response_format: {type: "structural_tag"}`)
 * for a format's replies: one `tag` per tool, its `begin` the call written up to the arguments
 * with the tool's name, its content the tool's JSON Schema, its `end` what follows the
 * arguments. `auto` is `triggered_tags` on the format's opener; `required` and a named tool are
 * `tags_with_separator` with `at_least_one`; one call at most is `stop_after_first`.
 */
import type { ToolDefinition } from '../../core/index.ts';
import { type CallsGrammarRequest, toolsInScope } from './calls-grammar.ts';
import { GrammarUnsupportedError } from './grammar-error.ts';
import type { ReplyShape } from './reply-shape.ts';

/** A structural tag as vLLM and SGLang take it. */
export interface StructuralTag {
  readonly type: 'structural_tag';
  readonly format: StructuralTagFormat;
}

/** The parts of xgrammar's structural tag format this generator writes. */
export type StructuralTagFormat =
  | { readonly type: 'const_string'; readonly value: string }
  | { readonly type: 'json_schema'; readonly json_schema: unknown }
  | { readonly type: 'regex'; readonly pattern: string }
  | { readonly type: 'any_text' }
  | { readonly type: 'sequence'; readonly elements: readonly StructuralTagFormat[] }
  | { readonly type: 'or'; readonly elements: readonly StructuralTagFormat[] }
  | {
      readonly type: 'tag';
      readonly begin: string;
      readonly content: StructuralTagFormat;
      readonly end: string;
    }
  | {
      readonly type: 'triggered_tags';
      readonly triggers: readonly string[];
      readonly tags: readonly StructuralTagFormat[];
      readonly at_least_one: boolean;
      readonly stop_after_first: boolean;
    }
  | {
      readonly type: 'tags_with_separator';
      readonly tags: readonly StructuralTagFormat[];
      readonly separator: string;
      readonly at_least_one: boolean;
      readonly stop_after_first: boolean;
    };

/** Arguments no schema-valid input writes: found again in a written call. */
const MARK = '\u0001arguments\u0001';

/**
 * One tool's call as a tag, from the protocol's own writer: `begin` is a call written up to its
 * arguments (the writer's counters as it writes a batch's first call), `end` what follows them.
 */
function callTag(shape: ReplyShape, tool: ToolDefinition): StructuralTagFormat {
  let written = shape.writeCalls([{ toolName: tool.name, input: { [MARK]: 0 } }]);
  const { section } = shape;
  if (section && written.startsWith(section.open) && written.endsWith(section.close))
    written = written.slice(section.open.length, written.length - section.close.length);
  const marked = JSON.stringify({ [MARK]: 0 });
  const at = written.indexOf(marked);
  if (at <= 0 || written.indexOf(marked, at + 1) !== -1)
    throw new GrammarUnsupportedError(
      shape.format,
      'its written call does not hold its arguments once, after a literal opener',
    );
  return {
    type: 'tag',
    begin: written.slice(0, at),
    content: { type: 'json_schema', json_schema: tool.inputSchema },
    end: written.slice(at + marked.length),
  };
}

/** The structural tag of `shape`'s replies for a tool list and choice. */
export function structuralTagFor(shape: ReplyShape, request: CallsGrammarRequest): StructuralTag {
  const tools = toolsInScope(shape.format, request);
  const wrap = (format: StructuralTagFormat): StructuralTag => ({ type: 'structural_tag', format });
  if (request.toolChoice === 'none') return wrap({ type: 'any_text' });
  const tags = tools.map((tool) => callTag(shape, tool));
  const once = !request.parallelToolCalls;
  const { section, reasoning } = shape;
  const demanded = request.toolChoice !== 'auto';
  // The calls of a batch, one after another as the writer joins them.
  const calls = (atLeastOne: boolean): StructuralTagFormat =>
    tags.length === 1 && once
      ? (tags[0] as StructuralTagFormat)
      : {
          type: 'tags_with_separator',
          tags,
          separator: shape.join,
          at_least_one: atLeastOne,
          stop_after_first: once,
        };
  if (!demanded) {
    const trigger = section ? section.open : shape.trigger;
    const batchTags = section
      ? [{ type: 'tag', begin: section.open, content: calls(true), end: section.close } as const]
      : tags;
    return wrap({
      type: 'triggered_tags',
      triggers: [trigger],
      tags: batchTags,
      at_least_one: false,
      stop_after_first: once || section !== undefined,
    });
  }
  const batch: StructuralTagFormat = section
    ? {
        type: 'sequence',
        elements: [
          { type: 'const_string', value: section.open },
          calls(true),
          { type: 'const_string', value: section.close },
        ],
      }
    : calls(true);
  const thinking = (begin: string): StructuralTagFormat => ({
    type: 'tag',
    begin,
    content: { type: 'any_text' },
    end: reasoning.close,
  });
  if (shape.startInReasoning) return wrap({ type: 'sequence', elements: [thinking(''), batch] });
  return wrap({
    type: 'or',
    elements: [{ type: 'sequence', elements: [thinking(reasoning.open), batch] }, batch],
  });
}
