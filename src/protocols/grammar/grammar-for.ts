/**
 * `grammarFor(protocol, options)`: the grammar that makes a model server write only what the
 * format's parser reads as calls to the given tools, in the syntax the server takes:
 * - `gbnf` (llama.cpp `grammar`): the whole reply when the choice demands a call; under `auto`
 *   a lazy grammar of the calls with its trigger words (`grammar_lazy`, `grammar_triggers`), or
 *   with `lazy: false` the whole reply (llama.cpp applies it from the first token);
 * - `ebnf` (vLLM `structured_outputs.grammar`, SGLang `ebnf`): the same rules, the whole reply
 *   under `auto` too (free text without a call opener, then calls);
 * - `structural-tag` (vLLM, SGLang `response_format`): xgrammar's structural tag;
 * - `json-schema` (Ollama `format`, LM Studio `response_format`): the whole reply, where the
 *   format's calls are JSON and the choice demands a call.
 * The grammar is made from the format's spec, the same data its parser is made from. A format
 * or schema the generator cannot follow exactly gets a `GrammarUnsupportedError` saying what.
 *
 * ```ts
 * const { grammar, triggers } = grammarFor(hermesProtocol(), {
 *   tools, toolChoice: 'auto', syntax: 'gbnf',
 * }) as GbnfGrammar;
 * ```
 */
import type { JsonSchema, ToolCallProtocol, ToolDefinition } from '../../core/index.ts';
import { callsGrammar, type GrammarToolChoice } from './calls-grammar.ts';
import { replyJsonSchema } from './json-schema-reply.ts';
import { replyShapeOf } from './reply-shape.ts';
import { type StructuralTag, structuralTagFor } from './structural-tag.ts';

export type { GrammarToolChoice } from './calls-grammar.ts';

export type GrammarSyntax = 'gbnf' | 'ebnf' | 'structural-tag' | 'json-schema';

/** Every syntax, for the command line's help and checks. */
export const GRAMMAR_SYNTAXES: readonly GrammarSyntax[] = [
  'gbnf',
  'ebnf',
  'structural-tag',
  'json-schema',
];

export interface GrammarOptions {
  readonly tools: readonly ToolDefinition[];
  /** Default `auto`: text, or calls. `required`: at least one call; `{ toolName }`: that tool. */
  readonly toolChoice?: GrammarToolChoice;
  /** Default true: a reply may hold several calls. False: one at most. */
  readonly parallelToolCalls?: boolean;
  readonly syntax: GrammarSyntax;
  /**
   * `gbnf` under `auto` only. Default true: a lazy grammar of the calls, applied from a trigger
   * word on. False: the whole reply (free text without a call opener, then calls), in GBNF: what
   * `ebnf` gives, written for llama.cpp, so a caller that sends llama.cpp a whole-reply grammar
   * does not rely on xgrammar's EBNF happening to be GBNF.
   */
  readonly lazy?: boolean;
}

export interface GbnfGrammar {
  readonly syntax: 'gbnf';
  /** GBNF text, start rule `root`. */
  readonly grammar: string;
  /** Apply from the first trigger word on (llama.cpp `grammar_lazy: true`). */
  readonly lazy: boolean;
  /** llama.cpp `grammar_triggers` of type word (`{"type": 1, "value": …}`). */
  readonly triggers: readonly string[];
  readonly rules: number;
}

export interface EbnfGrammar {
  readonly syntax: 'ebnf';
  /** xgrammar EBNF (GBNF-compatible), start rule `root`, for the whole reply. */
  readonly grammar: string;
  readonly rules: number;
}

export interface StructuralTagGrammar {
  readonly syntax: 'structural-tag';
  readonly structuralTag: StructuralTag;
}

export interface JsonSchemaGrammar {
  readonly syntax: 'json-schema';
  readonly schema: JsonSchema;
}

export type GeneratedGrammar = GbnfGrammar | EbnfGrammar | StructuralTagGrammar | JsonSchemaGrammar;

export function grammarFor(protocol: ToolCallProtocol, options: GrammarOptions): GeneratedGrammar {
  const shape = replyShapeOf(protocol);
  const request = {
    tools: options.tools,
    toolChoice: options.toolChoice ?? 'auto',
    parallelToolCalls: options.parallelToolCalls ?? true,
  };
  switch (options.syntax) {
    case 'gbnf': {
      const built = callsGrammar(shape, request, options.lazy === false);
      return {
        syntax: 'gbnf',
        grammar: built.grammar,
        lazy: built.lazy,
        triggers: built.triggers,
        rules: built.rules,
      };
    }
    case 'ebnf': {
      const built = callsGrammar(shape, request, true);
      return { syntax: 'ebnf', grammar: built.grammar, rules: built.rules };
    }
    case 'structural-tag':
      return { syntax: 'structural-tag', structuralTag: structuralTagFor(shape, request) };
    case 'json-schema':
      return { syntax: 'json-schema', schema: replyJsonSchema(shape, request, protocol) };
  }
}
