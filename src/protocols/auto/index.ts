import { BoundedCache } from '../../core/bounded-cache.ts';
import type { ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import { isNameDelimiter, type Opener } from '../../scan/opener-trie.ts';
import { defineProtocol, formatResultsForAnyReader, grammarOf } from '../define/define-protocol.ts';
import type { ResolvedParseOptions } from '../engine/call-body.ts';
import type { CallOpener, ProtocolGrammar, ReasoningTag } from '../engine/stream-engine.ts';
import { FORMATS, formatEntry } from '../registry.ts';
import {
  type Candidate,
  type CandidateGroup,
  ChoiceBody,
  candidateGroup,
  readsLead,
} from './choice-body.ts';
import { openerCallStarts, openerKind } from './opener-kind.ts';

export interface AutoProtocolOptions {
  /**
   * The formats read, in order of precedence when one text could be read by several. Default:
   * the prompt's format, then every registered format.
   */
  readonly formats?: readonly (ToolCallProtocol | string)[];
  /**
   * The format the model is taught in (`formatTools`) and history is written in. Default `hermes`.
   * Results keep its framing, with JSON bodies: every format is read, so a result written as text
   * (`<get_weather>` in it) could read as a call of a format the prompt's does not know of.
   */
  readonly prompt?: ToolCallProtocol | string;
}

function resolve(protocol: ToolCallProtocol | string): ToolCallProtocol {
  if (typeof protocol !== 'string') return protocol;
  const entry = formatEntry(protocol);
  if (!entry) {
    const names = FORMATS.map((format) => format.name).join(', ');
    throw new TypeError(`autoProtocol: unknown format "${protocol}": expected one of ${names}`);
  }
  return entry.create();
}

/**
 * Reads every format at once, from the text alone: each opener of each format opens a call of
 * that format, and where formats share an opener (`<tool_call>`) or one's opener begins
 * another's, the formats read it side by side until one commits (see ChoiceBody). Text no format
 * reads stays text. It prompts in one format, `hermes` unless told otherwise.
 */
export function autoProtocol(options: AutoProtocolOptions = {}): ToolCallProtocol {
  const prompt = resolve(options.prompt ?? 'hermes');
  const formats = options.formats
    ? options.formats.map(resolve)
    : [
        prompt,
        ...FORMATS.filter((entry) => entry.name !== prompt.name && entry.inAuto !== false).map(
          (e) => e.create(),
        ),
      ];
  const grammars = formats.map((format) => {
    const grammar = grammarOf(format);
    if (!grammar) {
      throw new TypeError(
        `autoProtocol: the format "${format.name}" was not made with defineProtocol, so its openers cannot be combined`,
      );
    }
    return grammar;
  });
  return defineProtocol<CandidateGroup>({
    name: 'auto',
    grammar: combineGrammars(grammars),
    formatTools: (tools) => prompt.formatTools(tools),
    formatToolCall: (calls) => prompt.formatToolCall(calls),
    formatToolResponse: (results) => formatResultsForAnyReader(prompt, results),
  });
}

/**
 * Every format's reasoning tags, each once (the first format's tag wins for a shared opener),
 * kept whole: a tag's closer alternatives and suffix go with it.
 */
function unionOfReasoningTags(grammars: readonly ProtocolGrammar<unknown>[]): ReasoningTag[] {
  const byOpen = new Map<string, ReasoningTag>();
  for (const grammar of grammars) {
    for (const tag of grammar.reasoningTags) {
      if (!startsWithSpace(tag.open) && !byOpen.has(tag.open)) byOpen.set(tag.open, tag);
    }
  }
  return [...byOpen.values()];
}

function combineGrammars(
  grammars: readonly ProtocolGrammar<unknown>[],
): ProtocolGrammar<CandidateGroup> {
  const reasoningTags = unionOfReasoningTags(grammars);
  const byToolList = new WeakMap<object, readonly CallOpener<CandidateGroup>[]>();
  const byToolContent = new BoundedCache<string, readonly CallOpener<CandidateGroup>[]>(
    MAX_CACHED_COMBINATIONS,
  );
  return {
    reasoningTags,
    // The union is kept per tool list (the same array each time, so the engine compiles it once
    // too). Whether a format reads on inside a longer literal is asked of its body, which may
    // depend on the tools: a union is never shared between lists that say different things.
    callOpeners(options: ResolvedParseOptions) {
      // Formats build their openers from the tool list alone: a parser made for the same list
      // (an application's every request) does not ask the formats again.
      const known = byToolList.get(options.tools);
      if (known) return known;
      // A server hands every request new tool objects around the same tools (parsed from its
      // JSON): the union, which costs tens of milliseconds to build, is kept by what the tools
      // say as well, so a list that says the same is not combined again.
      const said = toolListContent(options.tools);
      const same = said === undefined ? undefined : byToolContent.get(said);
      if (same) {
        byToolList.set(options.tools, same);
        return same;
      }
      const parts = grammars.map((grammar) => grammar.callOpeners(options));
      const openers = combineOpeners(grammars, parts, options);
      byToolList.set(options.tools, openers);
      if (said !== undefined) byToolContent.set(said, openers);
      return openers;
    },
    openCall(group, context) {
      const only = group.ready.length === 1 ? group.ready[0]! : undefined;
      if (only && group.byNextCode.size === 0 && group.delimited.length === 0) {
        return only.grammar.openCall(only.data, context);
      }
      return new ChoiceBody(group, context);
    },
  };
}

/**
 * A literal that starts with white space (` to=` of a harmony-like header) would make every
 * space of every output a place where auto looks for a call: auto leaves such literals to the
 * format read by name. Line openers (`\nNAME`) are the engine's own and stay.
 */
function startsWithSpace(literal: string): boolean {
  return literal.startsWith(' ') || literal.startsWith('\t');
}

function isReadInReasoning(opener: Opener<unknown>): boolean {
  return (opener as CallOpener<unknown>).inReasoning === true;
}

/**
 * What a tool list says that openers can depend on: each tool's name and schema (a format's
 * openers and its bodies' decisions follow from those alone). Undefined for a schema JSON cannot
 * write (a cycle): such a list is only known by its identity.
 */
function toolListContent(tools: readonly ToolDefinition[]): string | undefined {
  let content: string;
  try {
    content = JSON.stringify(tools.map((tool) => [tool.name, tool.inputSchema]));
  } catch {
    return undefined;
  }
  // The key is kept beside its union: a list larger than this is known by identity only, so
  // requests with huge tool lists cannot make the cache hold 64 copies of them.
  return content.length > MAX_TOOL_LIST_KEY_CHARS ? undefined : content;
}

/** The longest tool list, as JSON, that auto remembers by what it says. */
export const MAX_TOOL_LIST_KEY_CHARS = 256 * 1024;

/** Distinct tool lists an application uses are few; this only bounds odd callers. */
const MAX_CACHED_COMBINATIONS = 64;

interface Sourced {
  readonly grammar: ProtocolGrammar<unknown>;
  readonly opener: Opener<unknown>;
  /** Precedence: format order, then the format's own opener order. */
  readonly order: number;
}

/**
 * One opener per distinct literal. Its candidates are every format's opener that is that
 * literal, begins with it, or is begun by it (in format order): the trie matches the longest
 * literal it can, so a shorter opener of another format reads on from inside a longer one, and
 * a longer one that does not match whole (`<tool_calls` + `_x>`) is read from the shorter.
 */
function combineOpeners(
  grammars: readonly ProtocolGrammar<unknown>[],
  parts: readonly (readonly Opener<unknown>[])[],
  options: ResolvedParseOptions,
): CallOpener<CandidateGroup>[] {
  const all: Sourced[] = [];
  parts.forEach((openers, index) => {
    for (const opener of openers) {
      if (startsWithSpace(opener.literal)) continue;
      all.push({ grammar: grammars[index]!, opener, order: all.length });
    }
  });
  const literals = new Map<string, Sourced[]>();
  for (const sourced of all) {
    const group = literals.get(sourced.opener.literal);
    if (group) group.push(sourced);
    else literals.set(sourced.opener.literal, [sourced]);
  }
  // Distinct literals in code-unit order: those a literal begins follow it, together.
  const sorted = [...literals.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const sortedAt = new Map(sorted.map((literal, at) => [literal, at]));
  const result: CallOpener<CandidateGroup>[] = [];
  for (const [literal, group] of literals) {
    const at = sortedAt.get(literal)!;
    const delimited = group.every((sourced) => sourced.opener.delimited);
    // A delimited literal matches only before a delimiter, so longer literals stay reachable.
    const sharing = delimited ? group : literalsBegunBy(sorted, at, literals);
    // Framing a format drops (Muse Glimmer's `<|start|>assistant`) yields to a format before it
    // in precedence that reads the same literal as markup of a call (gpt-oss's role header):
    // dropping it commits at once, before the call could be read. A speculative reading
    // (hermes's `<response>`, a tag that is a call only if JSON follows) does not outrank it.
    const firstExplicitCall = Math.min(
      ...sharing
        .filter(
          (sourced) => sourced.opener.literal === literal && openerKind(sourced.opener) === 'call',
        )
        .map((sourced) => sourced.order),
    );
    const sharers = sharing.filter(
      (sourced) => openerKind(sourced.opener) !== 'framing' || sourced.order < firstExplicitCall,
    );
    const ready: Candidate[] = [];
    const waiting: Candidate[] = [];
    const byNextCode = new Map<number, Candidate[]>();
    for (const { grammar, opener, order } of sharers) {
      const callStarts = openerCallStarts(opener);
      const candidate: Candidate = {
        grammar,
        data: opener.data,
        rest: opener.literal.slice(literal.length),
        delimited: opener.delimited && !delimited,
        order,
        ...(callStarts === undefined ? {} : { callStarts }),
      };
      if (candidate.rest.length > 0) {
        const code = candidate.rest.charCodeAt(0);
        const list = byNextCode.get(code);
        if (list) list.push(candidate);
        else byNextCode.set(code, [candidate]);
      } else if (candidate.delimited) waiting.push(candidate);
      else ready.push(candidate);
    }
    // The engine matches the longest literal: a format whose opener is shorter and begins this
    // one (hermes's `<function ` in MiniCPM's `<function name=`) reads the rest of it first.
    if (!delimited) {
      for (const { grammar, opener, order } of literalsBeginning(literal, literals)) {
        const short = opener.literal;
        if (opener.delimited && !isNameDelimiter(literal.charCodeAt(short.length))) continue;
        if (openerKind(opener) === 'framing') continue;
        const lead = literal.slice(short.length);
        const callStarts = openerCallStarts(opener);
        const candidate: Candidate = {
          grammar,
          data: opener.data,
          rest: '',
          lead,
          delimited: false,
          order,
          ...(callStarts === undefined ? {} : { callStarts }),
        };
        // Most shorter openers give up on the rest of the literal (`[` of a Python list on
        // `{"name"`): known once here, not asked at every call.
        if (readsLead(candidate, literal, options)) ready.push(candidate);
      }
    }
    // A literal some format declares a special token (`[TOOL_CALLS]`, Kimi's section) is read
    // inside reasoning through auto too; a shorter plain-text literal that begins it (`[`) is not.
    const inReasoning = group.some((sourced) => isReadInReasoning(sourced.opener));
    result.push({
      literal,
      delimited,
      ...(inReasoning ? { inReasoning } : {}),
      data: candidateGroup(literal, ready, byNextCode, waiting),
    });
  }
  return result;
}

/** The openers whose literal begins with `sorted[at]`, itself included, in precedence order. */
function literalsBegunBy(
  sorted: readonly string[],
  at: number,
  literals: ReadonlyMap<string, readonly Sourced[]>,
): Sourced[] {
  const literal = sorted[at]!;
  const found: Sourced[] = [];
  for (let next = at; next < sorted.length && sorted[next]!.startsWith(literal); next++)
    found.push(...literals.get(sorted[next]!)!);
  return found.sort(byOrder);
}

/** The openers whose literal is shorter than `literal` and begins it, in precedence order. */
function literalsBeginning(
  literal: string,
  literals: ReadonlyMap<string, readonly Sourced[]>,
): Sourced[] {
  const found: Sourced[] = [];
  for (let length = 1; length < literal.length; length++) {
    const group = literals.get(literal.slice(0, length));
    if (group) found.push(...group);
  }
  return found.sort(byOrder);
}

const byOrder = (a: Sourced, b: Sourced): number => a.order - b.order;
