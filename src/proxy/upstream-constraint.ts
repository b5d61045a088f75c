/**
 * Constrained decoding upstream: the request body fields that make a model server write only
 * what the format's parser reads as calls to the request's tools, for each kind of server, from
 * the grammars of `grammarFor`. The proxy sends no `tools` upstream (it renders them into the
 * prompt), which is what lets a grammar go with a chat completions request at all.
 *
 * What each server takes, as its source says (read 2026-11-28):
 * - llama.cpp, `tools/server/server-common.cpp` `oaicompat_chat_params_parse`: `grammar` (GBNF)
 *   is taken on chat completions; with `tools` (and `tool_choice` not none) it is a 400 "Cannot
 *   use custom grammar constraints with tools.". `grammar_lazy`, `grammar_triggers` and
 *   `preserved_tokens` are set from the chat template's own result and a body field is copied
 *   only when that key is not set yet, so a client's lazy grammar is overwritten there (it is
 *   read only by `/completion`, `server-task.cpp` `params_from_json_cmpl`). So a demanded call
 *   gets the whole-reply GBNF, and `auto` the whole-reply grammar (free text, then calls).
 * - vLLM, `vllm/entrypoints/openai/protocol.py`: `response_format` is `ResponseFormat |
 *   StructuralTagResponseFormat {type: "structural_tag", format} | LegacyStructuralTag…`;
 *   `structured_outputs` (`StructuredOutputsParams`: json, regex, choice, grammar,
 *   structural_tag) from 0.10.2; the `guided_*` fields were removed in 0.12.0, and unknown fields
 *   are ignored with a 200, so the version decides: before 0.12 `guided_grammar` (EBNF). The
 *   `format` structural tag was proposed in vllm-project/vllm#24708 (September 2025); which
 *   release first took it is not checked here. A server that does not take it refuses it (a
 *   pydantic model: 400/422), as does one whose structured-outputs backend is not xgrammar
 *   (vllm#55153), and the proxy then goes on without it.
 * - SGLang, `python/sglang/srt/entrypoints/openai/protocol.py`: `response_format` is
 *   `ResponseFormat | LegacyStructuralTagResponseFormat | xgrammar.StructuralTag`, and `ebnf` is
 *   a request field (for what a structural tag cannot express).
 * - Ollama, `openai/openai.go` `ChatCompletionRequest`/`FromChatRequest`: `response_format`
 *   `json_schema` becomes the native `format` (the schema of the whole reply); the OpenAI
 *   endpoint has no `format` field and no `tool_choice`. So only a demanded call of a format whose
 *   calls are bare JSON can be enforced. `json_schema` is read from v0.5.0 (commit 630e7dc6f,
 *   "api: structured outputs - chat endpoint", ollama#7900, 2024-12-04); before it only
 *   `json_object` was read and any other type ignored with a 200, so an older Ollama gets none.
 * - LM Studio (closed source; docs lmstudio.ai/docs/advanced/structured-output): `response_format`
 *   `json_schema` as OpenAI's (`name`, `strict`, `schema`), no grammar field.
 * - `openai`: a server that takes no grammar; nothing is sent, the corrective retry stays.
 *
 * A kind may take more than one field (vLLM and SGLang: a structural tag, else a grammar): the
 * fields come as options, best first, and the proxy steps down to the next when the server
 * refuses one. A request that carries any field of the kind's own that constrains output
 * (`CLIENT_CONSTRAINT_FIELDS`) gets none of the proxy's: the two would clash or stack.
 */
import type { ToolCallProtocol, ToolDefinition } from '../core/index.ts';
import {
  type GrammarSyntax,
  type GrammarToolChoice,
  GrammarUnsupportedError,
  grammarFor,
} from '../protocols/grammar/index.ts';
import type { UpstreamKind } from './upstream-kind.ts';

/**
 * When the proxy constrains the model server: `off` never; `demanded` when `tool_choice` is
 * `required` or names a tool, or a tool is `strict: true`; `always` also under `auto` (the
 * grammar then lets text through until a call starts).
 */
export type ConstrainMode = 'off' | 'demanded' | 'always';

export const CONSTRAIN_MODES: readonly ConstrainMode[] = ['off', 'demanded', 'always'];

/** A tool as the request declared it: OpenAI's and Anthropic's tools may say `strict: true`. */
export interface ConstrainedTool extends ToolDefinition {
  readonly strict?: boolean;
}

export interface ConstraintRequest {
  readonly tools: readonly ConstrainedTool[];
  /** Default `auto`. */
  readonly toolChoice?: GrammarToolChoice;
  /** Default true. */
  readonly parallelToolCalls?: boolean;
  readonly mode: ConstrainMode;
  /** The server's version where it matters (vLLM: 0.12 changed the field; Ollama: 0.5.0 took it). */
  readonly version?: string;
}

/** Body fields to merge into a chat completions request. */
export type ConstraintFields = Readonly<Record<string, unknown>>;

/** One way to constrain a kind of server: the body fields, and the name refusals are kept by. */
export interface ConstraintOption {
  /** Which field, as the log says it: `grammar`, `response_format.structural_tag`, … */
  readonly field: string;
  readonly fields: ConstraintFields;
}

/**
 * The body fields by which a client constrains a kind of server's output itself, as each
 * server's request model reads them (see the module note); a name ending in `*` is a prefix.
 */
export const CLIENT_CONSTRAINT_FIELDS: Readonly<Record<UpstreamKind, readonly string[]>> = {
  'llama.cpp': ['grammar', 'json_schema', 'response_format'],
  vllm: ['response_format', 'structured_outputs', 'guided_*'],
  sglang: ['response_format', 'ebnf', 'regex', 'json_schema'],
  ollama: ['response_format', 'format'],
  lmstudio: ['response_format', 'format'],
  openai: ['response_format'],
};

/** The first field of `settings` by which the client constrains a `kind` server's output itself. */
export function clientConstraintField(
  kind: UpstreamKind,
  settings: Readonly<Record<string, unknown>>,
): string | undefined {
  for (const name of CLIENT_CONSTRAINT_FIELDS[kind]) {
    if (!name.endsWith('*')) {
      if (name in settings) return name;
      continue;
    }
    const prefix = name.slice(0, -1);
    const found = Object.keys(settings).find((key) => key.startsWith(prefix));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The tool is declared `strict: true` (its arguments must follow its schema exactly). */
export function isStrictTool(tool: ToolDefinition): boolean {
  return (tool as ConstrainedTool).strict === true;
}

/**
 * Whether the request asks for a constraint at all, whatever the server: there are tools to
 * call, the choice is not `none`, and the mode covers the choice. The proxy asks this before
 * it learns which server it talks to, so a request that needs none never waits for that.
 */
export function constraintWanted(request: ConstraintRequest): boolean {
  const choice = request.toolChoice ?? 'auto';
  if (request.mode === 'off' || choice === 'none' || request.tools.length === 0) return false;
  if (request.mode === 'always' || choice !== 'auto') return true;
  return request.tools.some(isStrictTool);
}

/**
 * vLLM from 0.12 reads `response_format` structural tags and `structured_outputs`, and no longer
 * the `guided_*` fields; a version it does not say, or a development build, is taken as new.
 */
export function vllmTakesStructuredOutputs(version: string | undefined): boolean {
  const match = version === undefined ? null : /^v?(\d{1,6})\.(\d{1,6})/.exec(version);
  if (!match) return true;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  return major > 0 || minor >= 12;
}

/** Ollama reads a `json_schema` response_format from 0.5.0; a version it does not say is taken as new. */
export function ollamaTakesJsonSchema(version: string | undefined): boolean {
  const match = version === undefined ? null : /^v?(\d{1,6})\.(\d{1,6})/.exec(version);
  if (!match) return true;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  // 0.0.0 is a build from source without a release number: new.
  return major > 0 || minor >= 5 || (minor === 0 && version!.startsWith('0.0.0'));
}

/** The fields the Ollama and LM Studio OpenAI endpoints read a whole-reply JSON Schema from. */
function jsonSchemaFormat(schema: unknown): ConstraintFields {
  return {
    response_format: {
      type: 'json_schema',
      json_schema: { name: 'tool_calls', strict: true, schema },
    },
  };
}

function optionsFor(
  kind: UpstreamKind,
  protocol: ToolCallProtocol,
  request: ConstraintRequest,
): ConstraintOption[] {
  const choice = request.toolChoice ?? 'auto';
  const grammar = (syntax: GrammarSyntax) =>
    grammarFor(protocol, {
      tools: request.tools,
      toolChoice: choice,
      parallelToolCalls: request.parallelToolCalls ?? true,
      syntax,
    });
  /** The EBNF grammar; never an empty one (a server reads `""` as no grammar at all). */
  const ebnf = (): string => {
    const built = grammar('ebnf');
    if (built.syntax !== 'ebnf' || built.grammar.length === 0)
      throw new GrammarUnsupportedError(protocol.name, 'its EBNF grammar came out empty');
    return built.grammar;
  };
  /** Each option that can be written for this format, best first; one that cannot is left out. */
  const writable = (...makers: Array<() => ConstraintOption | undefined>): ConstraintOption[] => {
    const options: ConstraintOption[] = [];
    for (const make of makers) {
      try {
        const option = make();
        if (option !== undefined) options.push(option);
      } catch (error) {
        if (!GrammarUnsupportedError.isInstance(error)) throw error;
      }
    }
    return options;
  };
  const structuralTag = (): ConstraintOption | undefined => {
    const built = grammar('structural-tag');
    return built.syntax === 'structural-tag'
      ? {
          field: 'response_format.structural_tag',
          fields: { response_format: built.structuralTag },
        }
      : undefined;
  };
  switch (kind) {
    case 'llama.cpp':
      return writable(() => {
        // Chat completions takes no lazy grammar (see above): `auto` gets the whole reply's GBNF
        // (free text holding no opener the parser reads, then calls).
        const built = grammarFor(protocol, {
          tools: request.tools,
          toolChoice: choice,
          parallelToolCalls: request.parallelToolCalls ?? true,
          syntax: 'gbnf',
          lazy: false,
        });
        if (built.syntax !== 'gbnf' || built.grammar.length === 0)
          throw new GrammarUnsupportedError(protocol.name, 'its GBNF grammar came out empty');
        return { field: 'grammar', fields: { grammar: built.grammar } };
      });
    case 'vllm':
      return vllmTakesStructuredOutputs(request.version)
        ? writable(structuralTag, () => ({
            field: 'structured_outputs.grammar',
            fields: { structured_outputs: { grammar: ebnf() } },
          }))
        : writable(() => ({ field: 'guided_grammar', fields: { guided_grammar: ebnf() } }));
    case 'sglang':
      return writable(structuralTag, () => ({ field: 'ebnf', fields: { ebnf: ebnf() } }));
    case 'ollama':
    case 'lmstudio':
      // A JSON Schema holds the whole reply: it would forbid text under `auto`. An Ollama older
      // than 0.5.0 ignores it: none is sent, so the corrective retry stays.
      if (choice === 'auto') return [];
      if (kind === 'ollama' && !ollamaTakesJsonSchema(request.version)) return [];
      return writable(() => {
        const built = grammar('json-schema');
        return built.syntax === 'json-schema'
          ? { field: 'response_format.json_schema', fields: jsonSchemaFormat(built.schema) }
          : undefined;
      });
    case 'openai':
      return [];
  }
}

/**
 * The ways to make a server of `kind` enforce the request's tool choice and the tools' schemas
 * in `protocol`'s format, best first (vLLM and SGLang: the structural tag, then a grammar), or
 * none: the mode does not ask for one (`off`; `auto` under `demanded` with no strict tool; choice
 * `none`; no tools), the server takes none (`openai`; Ollama and LM Studio under `auto`; Ollama
 * before 0.5.0), or no grammar can be written for this format or schema.
 */
export function constraintOptions(
  kind: UpstreamKind,
  protocol: ToolCallProtocol,
  request: ConstraintRequest,
): ConstraintOption[] {
  return constraintWanted(request) ? optionsFor(kind, protocol, request) : [];
}

/**
 * The body fields that make a server of `kind` enforce the request's tool choice and the tools'
 * schemas in `protocol`'s format (the best of `constraintOptions`), or undefined: the mode does not ask for one (`off`; `auto`
 * under `demanded` with no strict tool; choice `none`; no tools), the server takes none
 * (`openai`; Ollama and LM Studio under `auto`; Ollama before 0.5.0), or no grammar can be
 * written for this format or schema (`GrammarUnsupportedError`: the request goes unconstrained and the corrective retry
 * stays). A library user can send the same fields as a provider's extra body.
 *
 * ```ts
 * const fields = constraintFields('vllm', hermesProtocol(), {
 *   tools, toolChoice: 'required', mode: 'demanded', version: '0.12.0',
 * }); // { response_format: { type: 'structural_tag', format: … } }
 * ```
 */
export function constraintFields(
  kind: UpstreamKind,
  protocol: ToolCallProtocol,
  request: ConstraintRequest,
): ConstraintFields | undefined {
  return constraintOptions(kind, protocol, request)[0]?.fields;
}
