/**
 * xgrammar's structural tag (vLLM's and SGLang's `response_format: {type: "structural_tag"}`)
 * for a format's replies: one `tag` per tool, its `begin` the call written up to the arguments
 * with the tool's name, its content the tool's JSON Schema (or, for arguments that are not JSON
 * as xgrammar writes it, the same grammar the GBNF gives them), its `end` what follows the
 * arguments. `auto` is `triggered_tags` on the format's opener (each tool's, where it names it); `required` and a named tool are
 * `tags_with_separator` with `at_least_one`; one call at most is `stop_after_first`.
 */
import type { ToolDefinition } from '../../core/index.ts';
import { jsonForPrompt } from '../codecs/json/json-text.ts';
import { writeName } from '../codecs/tagged/parameter-tags-syntax.ts';
import {
  argumentsGrammar,
  type CallsGrammarRequest,
  callsGrammar,
  reasoningBeforeCallsGrammar,
  toolsInScope,
} from './calls-grammar.ts';
import { GrammarUnsupportedError } from './grammar-error.ts';
import type { ReplyShape } from './reply-shape.ts';

/**
 * A structural tag as vLLM and SGLang take it. A type (not an interface) of JSON values only, so
 * it passes as a JSON option where one is typed so (an AI SDK provider's `providerOptions`).
 */
export type StructuralTag = {
  readonly type: 'structural_tag';
  readonly format: StructuralTagFormat;
};

/** A JSON value, as a request body carries it. */
export type JsonValue =
  | null
  | string
  | number
  | boolean
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** A tool's JSON Schema as JSON (tools come as JSON; a schema holds nothing else). */
function schemaJson(tool: ToolDefinition): JsonValue {
  return tool.inputSchema as JsonValue;
}

/** The parts of xgrammar's structural tag format this generator writes. */
export type StructuralTagFormat =
  | { readonly type: 'const_string'; readonly value: string }
  | { readonly type: 'json_schema'; readonly json_schema: JsonValue }
  | { readonly type: 'regex'; readonly pattern: string }
  | { readonly type: 'grammar'; readonly grammar: string }
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

type TagFormat = Extract<StructuralTagFormat, { readonly type: 'tag' }>;

/** The writer's counters ({index}, {number}, {id}) as xgrammar reads a number. */
const COUNTER = '(0|[1-9][0-9]{0,3})';

/**
 * A call whose template numbers it before its arguments (Kimi-K2's `functions.NAME:{index}`),
 * from the template: `begin` ends before the number, the content reads the number.
 */
function numberedCallTag(shape: ReplyShape, tool: ToolDefinition): TagFormat | undefined {
  const parts = shape.call;
  const counter = parts.findIndex(
    (part) =>
      part.kind === 'placeholder' &&
      part.name !== 'name' &&
      part.name !== 'name_json' &&
      part.name !== 'arguments',
  );
  const args = parts.findIndex((part) => part.kind === 'placeholder' && part.name === 'arguments');
  if (counter === -1 || counter > args) return undefined;
  const text = (part: (typeof parts)[number]): string | undefined =>
    part.kind === 'text'
      ? part.text
      : part.name === 'name'
        ? tool.name
        : part.name === 'name_json'
          ? jsonForPrompt(tool.name)
          : undefined;
  const content: StructuralTagFormat[] = [];
  let begin = '';
  let end = '';
  for (const [index, part] of parts.entries()) {
    const written = text(part);
    if (index < counter) begin += written ?? '';
    else if (index > args) {
      if (written === undefined)
        throw new GrammarUnsupportedError(
          shape.format,
          'its call template numbers a call after its arguments',
        );
      end += written;
    } else if (index === args) content.push({ type: 'json_schema', json_schema: schemaJson(tool) });
    else
      content.push(
        written === undefined
          ? { type: 'regex', pattern: COUNTER }
          : { type: 'const_string', value: written },
      );
  }
  return { type: 'tag', begin, content: { type: 'sequence', elements: content }, end };
}

/**
 * A call whose arguments are not JSON (parameter tags, Python keyword arguments, a Gemma
 * dialect): the template around its arguments, which are the same grammar the GBNF gives them
 * (xgrammar's own parameter styles need 0.1.32 and read values otherwise than the format's
 * reader; no other content type writes Python or the dialect).
 */
function grammarCallTag(shape: ReplyShape, tool: ToolDefinition): TagFormat {
  let begin = '';
  let end = '';
  // From the first counter before the arguments (Kimi K3's `index="{index}"`) on, the parts
  // before the arguments are content: a counter is no literal text.
  let numbered: StructuralTagFormat[] | undefined;
  let seen = false;
  for (const part of shape.call) {
    let text: string;
    if (part.kind === 'text') text = part.text;
    else if (part.name === 'name')
      text = shape.form.codec === 'tagged' ? writeName(tool.name) : tool.name;
    else if (part.name === 'name_json') text = jsonForPrompt(tool.name);
    else if (part.name === 'arguments') {
      seen = true;
      continue;
    } else if (seen)
      throw new GrammarUnsupportedError(
        shape.format,
        'its call template numbers a call after its arguments',
      );
    else {
      numbered ??= [];
      numbered.push({ type: 'regex', pattern: COUNTER });
      continue;
    }
    if (seen) end += text;
    else if (numbered) numbered.push({ type: 'const_string', value: text });
    else begin += text;
  }
  if (begin === '')
    throw new GrammarUnsupportedError(
      shape.format,
      'its calls begin with no literal text, which a tag needs',
    );
  const args: StructuralTagFormat = { type: 'grammar', grammar: argumentsGrammar(shape, tool) };
  return {
    type: 'tag',
    begin,
    content: numbered ? { type: 'sequence', elements: [...numbered, args] } : args,
    end,
  };
}

/** Arguments no schema-valid input writes: found again in a written call. */
const MARK = '\u0001arguments\u0001';

/**
 * One tool's call as a tag, from the protocol's own writer: `begin` is a call written up to its
 * arguments (the writer's counters as it writes a batch's first call), `end` what follows them.
 */
function callTag(shape: ReplyShape, tool: ToolDefinition): TagFormat {
  if (shape.xmlElements)
    return {
      type: 'tag',
      begin: `<${tool.name}>`,
      content: { type: 'grammar', grammar: argumentsGrammar(shape, tool) },
      end: `</${tool.name}>`,
    };
  if (shape.form.codec !== 'json' || shape.stringExcludes.length > 0)
    return grammarCallTag(shape, tool);
  const numbered = numberedCallTag(shape, tool);
  if (numbered) return numbered;
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
    content: { type: 'json_schema', json_schema: schemaJson(tool) },
    end: written.slice(at + marked.length),
  };
}

/** The longest text every one of `texts` begins with. */
function commonPrefix(texts: readonly string[]): string {
  let prefix = texts[0] ?? '';
  for (const text of texts) while (!text.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/**
 * The calls of a batch, one after another as the writer joins them, inside a container that
 * begins with `opener` (the section's opener, or nothing) and ends with `closer`. Calls written
 * with nothing between them are separated by the text all their openers begin with, taken off
 * each (xgrammar before 0.1.30 refuses an empty separator).
 */
function batchOf(
  shape: ReplyShape,
  tags: readonly TagFormat[],
  once: boolean,
  opener: string,
  closer: string | undefined,
): StructuralTagFormat {
  let separator = shape.join;
  let members: readonly TagFormat[] = tags;
  let begin = opener;
  if (!once && separator === '') {
    let shared = commonPrefix(tags.map((tag) => tag.begin));
    // One opener holds all the others (one tool): any shorter part of it serves.
    if (tags.some((tag) => tag.begin === shared)) shared = shared.slice(0, -1);
    if (shared === '' || tags.some((tag) => tag.begin === shared))
      throw new GrammarUnsupportedError(
        shape.format,
        'its calls stand with nothing between them and begin with no shared text',
      );
    separator = shared;
    members = tags.map((tag) => ({ ...tag, begin: tag.begin.slice(shared.length) }));
    begin += shared;
  }
  const calls: StructuralTagFormat =
    members.length === 1 && once
      ? (members[0] as TagFormat)
      : once
        ? { type: 'or', elements: members }
        : {
            type: 'tags_with_separator',
            tags: members,
            separator,
            at_least_one: true,
            stop_after_first: once,
          };
  // A batch that ends with its calls (xgrammar reads a tags_with_separator only as what ends a
  // tag or the reply).
  if (closer === undefined && begin === '') return calls;
  if (closer === undefined)
    return { type: 'sequence', elements: [{ type: 'const_string', value: begin }, calls] };
  return { type: 'tag', begin, content: calls, end: closer };
}

/**
 * The structural tag of `shape`'s replies for a tool list and choice. Written so xgrammar 0.1.27
 * (the WebAssembly build the tests use) compiles it: a demanded call comes first (reasoning before
 * it only where the output begins in reasoning: an optional part cannot precede the calls there).
 */
export function structuralTagFor(shape: ReplyShape, request: CallsGrammarRequest): StructuralTag {
  const tools = toolsInScope(shape.format, request);
  const wrap = (format: StructuralTagFormat): StructuralTag => ({ type: 'structural_tag', format });
  // Text only, as the EBNF grammar writes it: `any_text` could hold an opener the parser reads.
  if (request.toolChoice === 'none')
    return wrap({ type: 'grammar', grammar: callsGrammar(shape, request, true).grammar });
  const tags = tools.map((tool) => callTag(shape, tool));
  const once = !request.parallelToolCalls;
  const { section, reasoning } = shape;
  if (request.toolChoice === 'auto') {
    if (!section) {
      return wrap({
        type: 'triggered_tags',
        triggers: shape.triggersFor(tools),
        tags,
        at_least_one: false,
        stop_after_first: once,
      });
    }
    return wrap({
      type: 'triggered_tags',
      triggers: [section.open],
      tags: [batchOf(shape, tags, once, section.open, section.close)],
      at_least_one: false,
      stop_after_first: true,
    });
  }
  if (!shape.startInReasoning)
    return wrap(batchOf(shape, tags, once, section?.open ?? '', section?.close));
  // The output begins in reasoning, and the calls are read there too (Kimi K3): the reasoning
  // text, closed or not, as grammar (no other content type keeps the trigger out of it).
  const reasoningGrammar = reasoningBeforeCallsGrammar(shape);
  if (reasoningGrammar !== undefined)
    return wrap({
      type: 'sequence',
      elements: [
        { type: 'grammar', grammar: reasoningGrammar },
        batchOf(shape, tags, once, section?.open ?? '', section?.close),
      ],
    });
  // The output begins in reasoning: its closer first (Apriel's section opener holds it).
  const closes = section?.open.startsWith(reasoning.close) === true;
  const thinking: StructuralTagFormat = {
    type: 'tag',
    begin: '',
    content: { type: 'any_text' },
    end: reasoning.close,
  };
  const opener = section ? section.open.slice(closes ? reasoning.close.length : 0) : '';
  return wrap({
    type: 'sequence',
    elements: [thinking, batchOf(shape, tags, once, opener, section?.close)],
  });
}
