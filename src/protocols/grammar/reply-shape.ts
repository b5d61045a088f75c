/**
 * What a grammar needs from a format, read from its spec: how its writer writes a batch of calls
 * (section, call template, join), the literal the calls begin with (the lazy grammar's trigger),
 * its reasoning tags, and the literals free text must not hold. A grammar follows the writer's
 * form, so every call `formatToolCall` writes is one the grammar accepts, and the parser reads
 * it back by the round-trip invariant.
 */
import type { ToolCallProtocol, ToolCallToFormat, ToolDefinition } from '../../core/index.ts';
import { grammarOf } from '../define/define-protocol.ts';
import { resolveParseOptions } from '../engine/stream-engine.ts';
import { specOf } from '../spec/define.ts';
import type { CallFormSpec, FormatSpec, ReasoningSpec } from '../spec/types.ts';
import { callWriter, writeFormOf } from '../spec/writers.ts';
import { GrammarUnsupportedError } from './grammar-error.ts';
import { checkTaggedSyntax } from './tagged-arguments.ts';
import { writesXmlElements } from './xml-arguments.ts';

/** A placeholder of a call template (see `WriteSpec.call`). */
export type Placeholder = 'name' | 'name_json' | 'arguments' | 'index' | 'number' | 'id';

const PLACEHOLDERS: ReadonlySet<string> = new Set<Placeholder>([
  'name',
  'name_json',
  'arguments',
  'index',
  'number',
  'id',
]);

/** A piece of a call template: literal text, or a placeholder. */
export type TemplatePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'placeholder'; readonly name: Placeholder };

/** Placeholders filled from the tool (the rest are numbers). */
export function isPerTool(part: TemplatePart): boolean {
  return (
    part.kind === 'placeholder' &&
    (part.name === 'name' || part.name === 'name_json' || part.name === 'arguments')
  );
}

/** The placeholders of a tagged format's parameter template (see `WriteSpec.parameter`). */
export const PARAMETER_PLACEHOLDERS: ReadonlySet<string> = new Set([
  'key',
  'value',
  'value_json',
  'type',
  'string',
]);

/** `template` cut at its placeholders (`known`), as `fillTemplate` reads them. */
export function templateParts(
  template: string,
  known: ReadonlySet<string> = PLACEHOLDERS,
): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let from = 0;
  let text = '';
  for (let open = template.indexOf('{'); open !== -1; open = template.indexOf('{', open + 1)) {
    const close = template.indexOf('}', open + 1);
    if (close === -1) break;
    const key = template.slice(open + 1, close);
    if (!known.has(key)) continue;
    text += template.slice(from, open);
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
    parts.push({ kind: 'placeholder', name: key as Placeholder });
    from = close + 1;
    open = close;
  }
  text += template.slice(from);
  if (text !== '') parts.push({ kind: 'text', text });
  return parts;
}

export interface ReplyShape {
  readonly format: string;
  readonly spec: FormatSpec;
  /** The call form the writer follows: its codec writes the arguments. */
  readonly form: CallFormSpec;
  readonly section?: { readonly open: string; readonly close: string };
  readonly call: readonly TemplatePart[];
  readonly join: string;
  /**
   * The literal every batch begins with (empty when it begins with a placeholder; the text
   * before the name where the writer's form is opened per tool).
   */
  readonly trigger: string;
  /**
   * The literals that open a call to one of `tools`: the trigger, or where the writer's form is
   * opened per tool (xml's `<NAME`) that opener for each tool.
   */
  readonly triggersFor: (tools: readonly ToolDefinition[]) => readonly string[];
  /**
   * What free text may not hold with these tools declared: `textExcludes`, and every opener the
   * parser reads with them declared (per-tool ones such as `<NAME`, `\nNAME` filled in).
   */
  readonly textExcludesFor: (tools: readonly ToolDefinition[]) => readonly string[];
  /** The xml format's writer: each call an element named after its tool (xml-arguments.ts). */
  readonly xmlElements: boolean;
  /** The reasoning tags a reply may open with (the spec's first pair). */
  readonly reasoning: ReasoningSpec;
  /** The output begins inside reasoning (the chat template opened it). */
  readonly startInReasoning: boolean;
  /**
   * Literals free text may not hold whatever the tools: every call opener the parser reads
   * (speculative ones too), reasoning opener and markup, so text stays text and a reply's calls
   * are only the ones the grammar wrote.
   */
  readonly textExcludes: readonly string[];
  /**
   * The call openers the parser also reads inside reasoning (Kimi's special tokens): reasoning
   * text may not hold them either.
   */
  readonly reasoningExcludes: readonly string[];
  /**
   * Literals a JSON string of the arguments may not hold: the form's closer where its reader ends
   * a call there even inside a string (the arrow form's `[/TOOL_CALL]`).
   */
  readonly stringExcludes: readonly string[];
  /** The protocol's own `formatToolCall`. */
  readonly writeCalls: (calls: readonly ToolCallToFormat[]) => string;
}

const DEFAULT_REASONING: readonly ReasoningSpec[] = [
  { open: '<think>', close: '</think>' },
  { open: '<thinking>', close: '</thinking>' },
];

/** Calls the writer of a spec and the protocol must write alike (else a hook writes them). */
const PROBE: readonly ToolCallToFormat[] = [
  { toolName: 'probe_tool', input: { text: 'a<b>"c\n', count: 2, list: [true, null] } },
  { toolName: 'other-tool', input: {} },
];

/**
 * Whether `written` is `template`'s text with some spaces after a `:` or `,` left out, as the
 * grammar allows (the probe's values hold none).
 */
function sameLeavingOutSpaces(template: string, written: string): boolean {
  let at = 0;
  for (let index = 0; index < template.length; index++) {
    if (template[index] === written[at]) at++;
    else if (template[index] !== ' ' || !/[:, ]/.test(template[index - 1] ?? '')) return false;
  }
  return at === written.length;
}

/**
 * Whether a JSON string argument may hold the form's closer: it may where the reader reads the
 * string whole; a reader that ends the call at the closer wherever it stands (the arrow form's
 * `[/TOOL_CALL]`) needs strings that keep it out.
 */
function closerReadsInStrings(protocol: ToolCallProtocol, close: string): boolean {
  const input = { text: `a${close}b` };
  const tools = [
    {
      name: 'probe_tool',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    },
  ];
  const written = protocol.formatToolCall([{ toolName: 'probe_tool', input }]);
  const calls = protocol
    .parseGeneratedText(written, { tools, startInReasoning: false })
    .filter((event) => event.type === 'tool-call');
  const read = calls.length === 1 && calls[0]?.type === 'tool-call' ? calls[0].input : undefined;
  return read === JSON.stringify(input);
}

/** The codecs whose arguments a grammar writes. */
const GRAMMAR_CODECS: ReadonlySet<string> = new Set(['json', 'tagged', 'python', 'dialect']);

/** The longest literal text a template begins with. */
function leadingText(parts: readonly TemplatePart[]): string {
  const first = parts[0];
  return first?.kind === 'text' ? first.text : '';
}

/**
 * Every literal the parser reads as a call's opener with `tools` declared: explicit and
 * speculative forms alike (a fence, `{"name"`, hermes' `<function=`), per-tool forms filled with
 * each tool, and the openers a format's hooks read. Free text must hold none of them, or a reply
 * the grammar accepts could carry a call the grammar never checked. (A line opener, `\nNAME(`,
 * also matches at the output's start: text there is built as if after a line break.)
 */
function parserOpeners(
  protocol: ToolCallProtocol,
  tools: readonly ToolDefinition[],
  inReasoning = false,
): string[] {
  const grammar = grammarOf(protocol);
  if (!grammar) return [];
  return grammar
    .callOpeners(resolveParseOptions({ tools }))
    .filter((one) => one.kind !== 'framing' && (!inReasoning || one.inReasoning === true))
    .map((one) => one.literal);
}

/** The shape of `protocol`'s replies, or a `GrammarUnsupportedError` saying what is missing. */
export function replyShapeOf(protocol: ToolCallProtocol): ReplyShape {
  const spec = specOf(protocol);
  const format = spec?.name ?? protocol.name;
  if (!spec) {
    throw new GrammarUnsupportedError(
      format,
      'it is written by hand, not as a format spec, and grammars are made from specs',
    );
  }
  // A writer hook that only lays the JSON out otherwise (Hermes' `{"name":…` for the template's
  // `{"name": …`) writes the same calls: the grammar lets JSON's white space vary. The xml
  // format's hook writes elements, which xml-arguments.ts follows.
  const xmlElements = writesXmlElements(protocol);
  if (
    !xmlElements &&
    !sameLeavingOutSpaces(callWriter(spec)(PROBE), protocol.formatToolCall(PROBE))
  ) {
    throw new GrammarUnsupportedError(
      format,
      'its calls are written by code of its own (a writer hook), which a grammar cannot follow yet',
    );
  }
  const form = writeFormOf(spec);
  if (!xmlElements && !GRAMMAR_CODECS.has(form.codec)) {
    throw new GrammarUnsupportedError(
      format,
      `its calls are written in the ${form.codec} codec, which gets no grammar yet (${[...GRAMMAR_CODECS].join(', ')} do)`,
    );
  }
  if (form.codec === 'tagged') checkTaggedSyntax(format, form);
  const stringExcludes =
    !xmlElements &&
    form.codec === 'json' &&
    form.close !== undefined &&
    !closerReadsInStrings(protocol, form.close)
      ? [form.close]
      : [];
  const call = templateParts(spec.write.call);
  if (!call.some((part) => part.kind === 'placeholder' && part.name === 'arguments')) {
    throw new GrammarUnsupportedError(format, 'its call template writes no {arguments}');
  }
  const section = spec.write.section;
  const written = section ? section.open : leadingText(call);
  // The form's own opener is the shorter, surer trigger where the writing begins with it.
  const trigger = written.startsWith(form.open) ? form.open : written;
  const reasoning = spec.reasoning ?? DEFAULT_REASONING;
  const textExcludes = new Set<string>();
  if (trigger !== '' && !form.perTool) textExcludes.add(trigger);
  for (const tag of reasoning) textExcludes.add(tag.open);
  for (const text of spec.markup ?? []) textExcludes.add(text);
  for (const text of parserOpeners(protocol, [])) textExcludes.add(text);
  const opener = (template: string, tool: ToolDefinition) =>
    template.split('{name}').join(tool.name);
  return {
    format,
    spec,
    form,
    ...(section ? { section } : {}),
    call,
    join: spec.write.join ?? '',
    trigger,
    triggersFor: (tools) =>
      form.perTool ? [...new Set(tools.map((tool) => opener(form.open, tool)))] : [trigger],
    textExcludesFor: (tools) => [...new Set([...textExcludes, ...parserOpeners(protocol, tools)])],
    xmlElements,
    reasoning: reasoning[0] ?? (DEFAULT_REASONING[0] as ReasoningSpec),
    startInReasoning: spec.startInReasoning === true,
    textExcludes: [...textExcludes],
    reasoningExcludes: parserOpeners(protocol, [], true),
    stringExcludes,
    writeCalls: (calls) => protocol.formatToolCall(calls),
  };
}
