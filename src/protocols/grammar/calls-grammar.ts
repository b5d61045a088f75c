/**
 * GBNF (llama.cpp) and EBNF (xgrammar: vLLM, SGLang) for a format's replies. Both are written in
 * the subset the two parsers share, so one text serves both; they differ in what `auto` gets:
 * GBNF a lazy grammar of the calls alone, started by a trigger word as llama.cpp's own tool
 * handling starts it, EBNF the whole reply (free text, then calls).
 *
 * The calls are the writer's: the call template with each tool's name and its arguments under
 * its schema, as the writer's codec writes them (JSON, parameter tags, Python keyword arguments,
 * a Gemma dialect; the xml format's elements); the literals around the name are shared by every
 * tool, and so are the value rules, so the grammar grows by about one rule per distinct schema
 * part, not per tool.
 */
import { ToolwireError } from '../../core/errors.ts';
import type { ToolDefinition } from '../../core/index.ts';
import { writeName } from '../codecs/tagged/parameter-tags-syntax.ts';
import { dialectSyntax } from './dialect-values.ts';
import { literal } from './gbnf-text.ts';
import { GrammarUnsupportedError } from './grammar-error.ts';
import { GrammarRules } from './grammar-rules.ts';
import { JsonValueRules, jsonLiteral } from './json-value-rules.ts';
import { PYTHON_SYNTAX, pythonKeywordArguments } from './python-values.ts';
import { isPerTool, type ReplyShape, type TemplatePart } from './reply-shape.ts';
import { TaggedArguments } from './tagged-arguments.ts';
import { textExcluding } from './text-excluding.ts';
import { jsonSyntax, type ValueSyntax } from './value-syntax.ts';
import { XmlArguments } from './xml-arguments.ts';

/** `auto`, `required`, `none`, or one tool by name. */
export type GrammarToolChoice = 'auto' | 'required' | 'none' | { readonly toolName: string };

export interface CallsGrammarRequest {
  readonly tools: readonly ToolDefinition[];
  readonly toolChoice: GrammarToolChoice;
  readonly parallelToolCalls: boolean;
}

export interface CallsGrammar {
  /** The grammar text; its start rule is `root`. */
  readonly grammar: string;
  /** Lazy: the grammar applies from the first trigger on (llama.cpp's `grammar_lazy`). */
  readonly lazy: boolean;
  /** The words that start a lazy grammar (llama.cpp `grammar_triggers` of type word). */
  readonly triggers: readonly string[];
  /** How many rules besides `root`. */
  readonly rules: number;
}

/** The tools a choice lets the model call, checked. */
export function toolsInScope(
  format: string,
  request: CallsGrammarRequest,
): readonly ToolDefinition[] {
  const { toolChoice, tools } = request;
  if (typeof toolChoice === 'object') {
    const tool = tools.find((one) => one.name === toolChoice.toolName);
    if (!tool) {
      throw new ToolwireError(
        'unknown-tool-choice',
        `tool choice names "${toolChoice.toolName}", which is not among the tools`,
      );
    }
    return [tool];
  }
  if (toolChoice !== 'none' && tools.length === 0) {
    throw new GrammarUnsupportedError(format, `tool choice "${toolChoice}" with no tools`);
  }
  return tools;
}

/** How the writer's codec writes values (a tagged format's non-string values are JSON). */
function valueSyntaxOf(shape: ReplyShape): ValueSyntax {
  const { form } = shape;
  if (form.codec === 'python') return PYTHON_SYNTAX;
  if (form.codec === 'dialect') return dialectSyntax(form);
  return jsonSyntax({ excluding: shape.stringExcludes });
}

/** The rule-building parts shared by one grammar. */
class Builder {
  readonly rules = new GrammarRules();
  readonly json: JsonValueRules;
  private readonly shape: ReplyShape;
  private tool = '';
  /** The arguments of a tagged format (parameter tags), else undefined (JSON). */
  private readonly tagged: TaggedArguments | undefined;

  private readonly refuse: (path: string, problem: string) => never;
  /** The xml format's elements (xml-arguments.ts), else undefined. */
  private readonly xml: XmlArguments | undefined;

  constructor(shape: ReplyShape) {
    this.shape = shape;
    const refuse = (path: string, problem: string): never => {
      const where = path === '' ? `tool "${this.tool}"` : `tool "${this.tool}", argument ${path}`;
      throw new GrammarUnsupportedError(shape.format, `${where}: ${problem}`);
    };
    this.refuse = refuse;
    this.json = new JsonValueRules(this.rules, refuse, valueSyntaxOf(shape));
    this.xml = shape.xmlElements ? new XmlArguments(this.rules, this.json, refuse) : undefined;
    this.tagged =
      shape.form.codec === 'tagged'
        ? new TaggedArguments(
            this.rules,
            this.json,
            shape.form,
            shape.spec.write.parameter ?? '',
            refuse,
          )
        : undefined;
  }

  /**
   * Template text as written, except that in JSON calls the spaces after a `:` or `,` may be
   * left out or be other white space (`{"name": ` and `{"name":` both read): writers and models
   * lay JSON out differently. Other spaces are markup (`to=functions.NAME <|constrain|>`).
   */
  private templateText(text: string): string {
    if (this.shape.form.codec !== 'json') return literal(text);
    const pieces: string[] = [];
    let from = 0;
    for (const match of text.matchAll(/[:,]( +)/g)) {
      const spaces = match.index + 1;
      if (spaces > from) pieces.push(literal(text.slice(from, spaces)));
      pieces.push(this.rules.define('layout', '[ \\t\\n]{0,24}'));
      from = spaces + (match[1] as string).length;
    }
    if (from < text.length || pieces.length === 0) pieces.push(literal(text.slice(from)));
    return pieces.join(' ');
  }

  private part(part: TemplatePart, tool: ToolDefinition | undefined): string {
    if (part.kind === 'text') return this.templateText(part.text);
    switch (part.name) {
      case 'name':
        // A tagged format writes the name inside markup, escaped as its reader decodes it.
        return literal(
          this.tagged ? writeName((tool as ToolDefinition).name) : (tool as ToolDefinition).name,
        );
      case 'name_json':
        return jsonLiteral((tool as ToolDefinition).name);
      case 'arguments':
        this.tool = (tool as ToolDefinition).name;
        if (this.tagged) return this.tagged.of(tool as ToolDefinition);
        if (this.shape.form.codec === 'python')
          return pythonKeywordArguments(this.json, this.rules, tool as ToolDefinition, this.refuse);
        return this.json.value((tool as ToolDefinition).inputSchema, `args-${this.tool}`, '');
      default:
        // {index}, {number}, {id}: the writer's counters; any small number reads back.
        return this.rules.define('call-number', '( "0" | [1-9] [0-9]{0,3} )');
    }
  }

  /** A tool's arguments as the format writes them. */
  argumentsOf(tool: ToolDefinition): string {
    if (this.xml) {
      this.tool = tool.name;
      return this.xml.content(tool);
    }
    return this.part({ kind: 'placeholder', name: 'arguments' }, tool);
  }

  /** One call to one of `tools`: the shared text around the tools' own parts. */
  call(tools: readonly ToolDefinition[]): string {
    const { xml } = this;
    if (xml) {
      // The element is the call: `<NAME></NAME>` with no arguments, not the template's.
      const calls = tools.map((tool) => {
        this.tool = tool.name;
        return xml.call(tool);
      });
      return this.rules.define(
        'call',
        calls.length === 1 ? (calls[0] as string) : `( ${calls.join(' | ')} )`,
      );
    }
    const parts = this.shape.call;
    const first = parts.findIndex(isPerTool);
    const last = parts.length - 1 - [...parts].reverse().findIndex(isPerTool);
    const around = (from: number, to: number) =>
      parts.slice(from, to).map((part) => this.part(part, undefined));
    const middles = tools.map((tool) =>
      this.rules.define(
        `call-${tool.name}`,
        parts
          .slice(first, last + 1)
          .map((part) => this.part(part, tool))
          .join(' '),
      ),
    );
    const body = [
      ...around(0, first),
      middles.length === 1 ? (middles[0] as string) : `( ${middles.join(' | ')} )`,
      ...around(last + 1, parts.length),
    ].join(' ');
    return this.rules.define('call', body);
  }

  /** A batch: the section around one call, or (parallel) calls joined as the writer joins them. */
  batch(tools: readonly ToolDefinition[], parallel: boolean): string {
    const call = this.call(tools);
    const join = this.shape.join === '' ? '' : `${literal(this.shape.join)} `;
    const calls = parallel ? `${call} ( ${join}${call} )*` : call;
    const { section } = this.shape;
    const body = section ? `${literal(section.open)} ${calls} ${literal(section.close)}` : calls;
    return this.rules.define('calls', body);
  }

  /**
   * Free text that holds no call opener (of `tools`, where openers name the tool), reasoning
   * opener or markup, before any of `follow`.
   */
  text(tools: readonly ToolDefinition[], follow: string | readonly string[]): string {
    // At a line start: text begins the output or follows reasoning, where a line opener reads.
    return textExcluding(
      this.rules,
      'text',
      this.shape.textExcludesFor(tools),
      follow,
      undefined,
      true,
    );
  }

  /** Reasoning's text and closer, then white space. */
  reasoningBody(): string {
    const { close } = this.shape.reasoning;
    const text = textExcluding(
      this.rules,
      'reasoning',
      [close, ...this.shape.reasoningExcludes],
      close,
    );
    const gap = this.rules.define('reasoning-gap', '[ \\t\\n]{0,4}');
    return this.rules.define('reasoning', `${text} ${literal(close)} ${gap}`);
  }

  /**
   * The batch closes the reasoning the output began in (Apriel writes its calls after
   * `[BEGIN FINAL RESPONSE]`, its reasoning's closer).
   */
  batchClosesReasoning(): boolean {
    return this.shape.startInReasoning && this.shape.trigger.startsWith(this.shape.reasoning.close);
  }

  /**
   * The output begins in reasoning and the writer's calls are read there too (Kimi K3's tools
   * element, written when the think closer was left out): the batch may come with the reasoning
   * closed or not.
   */
  callsInReasoning(): boolean {
    return (
      this.shape.startInReasoning &&
      this.shape.form.inReasoning === true &&
      !this.batchClosesReasoning()
    );
  }

  /**
   * Reasoning text before a batch read inside it: it holds no closer (and no other literal that
   * ends reasoning) and no trigger, and may end before either.
   */
  reasoningBeforeCalls(unclosedAsText: readonly string[] = []): string {
    const { close, closeAlternatives = [] } = this.shape.reasoning;
    const { trigger } = this.shape;
    return textExcluding(
      this.rules,
      'reasoning',
      [close, ...closeAlternatives, trigger, ...this.shape.reasoningExcludes, ...unclosedAsText],
      [close, trigger],
      undefined,
      unclosedAsText.length > 0,
    );
  }

  /** The reasoning a demanded call may come after: open (or already open) and closed. */
  reasoningFirst(): string {
    if (this.callsInReasoning()) {
      const gap = this.rules.define('reasoning-gap', '[ \\t\\n]{0,4}');
      return `${this.reasoningBeforeCalls()} ( ${literal(this.shape.reasoning.close)} ${gap} )?`;
    }
    if (this.batchClosesReasoning()) {
      const { close } = this.shape.reasoning;
      return textExcluding(
        this.rules,
        'reasoning',
        [close, ...this.shape.reasoningExcludes],
        close,
      );
    }
    if (this.shape.startInReasoning) return this.reasoningBody();
    return `( ${literal(this.shape.reasoning.open)} ${this.reasoningBody()} )?`;
  }
}

/**
 * The grammar of `shape`'s replies for a tool list and choice. `whole`: the whole reply even
 * under `auto` (EBNF); otherwise `auto` gets a lazy grammar of the calls from the trigger on.
 */
export function callsGrammar(
  shape: ReplyShape,
  request: CallsGrammarRequest,
  whole: boolean,
): CallsGrammar {
  const builder = new Builder(shape);
  const tools = toolsInScope(shape.format, request);
  const { toolChoice } = request;
  const triggers = shape.triggersFor(tools);
  const result = (root: string, lazy: boolean): CallsGrammar => ({
    grammar: builder.rules.render(root),
    lazy,
    triggers: lazy ? triggers : [],
    rules: builder.rules.size,
  });
  if (toolChoice === 'none') {
    // Text only: nothing that opens a call (reasoning stays, as the parser reads it).
    return result(builder.text(request.tools, ''), false);
  }
  const batch = builder.batch(tools, request.parallelToolCalls);
  if (toolChoice !== 'auto') return result(`${builder.reasoningFirst()} ${batch}`, false);
  if (triggers.length === 0 || triggers.includes('')) {
    throw new GrammarUnsupportedError(
      shape.format,
      'its calls begin with no literal text, so under tool choice "auto" nothing can tell a call from text',
    );
  }
  if (!whole) return result(batch, true);
  // Free text, then maybe calls; reasoning only first (a call inside it would be reasoning).
  const text = builder.text(request.tools, triggers);
  const rest = `${text} ( ${batch} )?`;
  if (shape.startInReasoning) {
    const { close } = shape.reasoning;
    const inReasoning = builder.callsInReasoning();
    // Reasoning the reply leaves open is read as text at its end: it keeps text's openers out.
    const asText = shape.textExcludesFor(request.tools);
    const body = inReasoning
      ? builder.reasoningBeforeCalls(asText)
      : textExcluding(
          builder.rules,
          'reasoning',
          [close, shape.trigger, ...shape.reasoningExcludes, ...asText],
          close,
          undefined,
          true,
        );
    const closed = `${literal(close)} ${rest}`;
    const batchFirst = builder.batchClosesReasoning() || inReasoning;
    return result(`${body} ( ${batchFirst ? `${batch} | ${closed}` : closed} )?`, false);
  }
  return result(`( ${literal(shape.reasoning.open)} ${builder.reasoningBody()} )? ${rest}`, false);
}

/** A grammar (start rule `root`) of one tool's arguments as the format writes them. */
export function argumentsGrammar(shape: ReplyShape, tool: ToolDefinition): string {
  const builder = new Builder(shape);
  return builder.rules.render(builder.argumentsOf(tool));
}

/**
 * A grammar (start rule `root`) of the reasoning a demanded batch may come after, where the
 * writer's calls are read inside the reasoning the output begins in: undefined elsewhere.
 */
export function reasoningBeforeCallsGrammar(shape: ReplyShape): string | undefined {
  const builder = new Builder(shape);
  if (!builder.callsInReasoning()) return undefined;
  return builder.rules.render(builder.reasoningFirst());
}
