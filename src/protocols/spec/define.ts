/**
 * `defineFormat(spec)`: a protocol from a FormatSpec, with the same engine, bodies and guarantees
 * as the hand-written formats; and `formatEntryFromSpec`, the registry entry of a spec-built format.
 */
import type {
  ToolCallProtocol,
  ToolCallToFormat,
  ToolDefinition,
  ToolResponseToFormat,
} from '../../core/index.ts';
import { defineProtocol, withStartInReasoning } from '../define/define-protocol.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from '../define/format-entry.ts';
import { type CallBodyHook, compileGrammar, type FormatReader } from './compile.ts';
import type { FormatSpec } from './types.ts';
import { readFormatSpec } from './validate.ts';
import { callWriter, resultWriter, toolsWriter } from './writers.ts';

export type { CallBodyHook, FormatReader } from './compile.ts';
export { FormatSpecError, readFormatSpec } from './validate.ts';

/**
 * Code a format needs beyond its spec, each named: a prompt written as the model's own template
 * writes it (tools as TypeScript, as Python signatures), a writer or a result envelope the
 * templates cannot say, and readers of what no codec reads (each opened by literals of its own,
 * beside the spec's call forms).
 */
export interface FormatHooks {
  /** Readers beside the spec's call forms (llama.cpp's `{"response": …}` answer for xLAM). */
  readonly readers?: readonly FormatReader[];
  /**
   * Reads a call form's calls with a body of the format's own where no codec reads its envelope
   * (the arrow form's `{tool => "NAME", args => …}`); returning undefined leaves the form to its
   * codec. A `perTool` form's opener is read through it too, the form's `{name}` filled and the
   * tool's name given. The form still gives the writer and the result guard.
   */
  readonly callBody?: CallBodyHook;
  /** The prompt; `formatToolCall` is the format's writer, for its example. */
  readonly formatTools?: (
    tools: readonly ToolDefinition[],
    formatToolCall: (calls: readonly ToolCallToFormat[]) => string,
  ) => string;
  readonly formatToolCall?: (calls: readonly ToolCallToFormat[]) => string;
  readonly formatToolResponse?: (results: readonly ToolResponseToFormat[]) => string;
  /** The same results in prompt-safe JSON bodies, for `auto`. */
  readonly formatToolResponseForAnyReader?: (results: readonly ToolResponseToFormat[]) => string;
}

/** The spec behind each protocol `defineFormat` made (for grammars, docs and `auto`). */
const specs = new WeakMap<ToolCallProtocol, FormatSpec>();

/** The spec a protocol was built from, or undefined for a hand-written one. */
export function specOf(protocol: ToolCallProtocol): FormatSpec | undefined {
  return specs.get(protocol);
}

/**
 * The protocol a FormatSpec describes. The spec is checked first (`readFormatSpec`): a bad field
 * throws a `FormatSpecError` (kind `invalid-format`) naming it.
 *
 * ```ts
 * const protocol = defineFormat({
 *   spec: 1,
 *   name: 'my-format',
 *   calls: [{ codec: 'json', open: '<call>', close: '</call>' }],
 *   write: { call: '<call>{"name": {name_json}, "arguments": {arguments}}</call>' },
 *   results: { each: '<result>{output}</result>' },
 * });
 * ```
 */
export function defineFormat(spec: FormatSpec, hooks: FormatHooks = {}): ToolCallProtocol {
  const checked = readFormatSpec(spec);
  const writeCalls = hooks.formatToolCall ?? callWriter(checked);
  const built = defineProtocol({
    name: checked.name,
    grammar: compileGrammar(checked, hooks.readers, hooks.callBody),
    formatTools: hooks.formatTools
      ? (tools) => hooks.formatTools?.(tools, writeCalls) ?? ''
      : toolsWriter(checked, writeCalls),
    formatToolCall: writeCalls,
    formatToolResponse: hooks.formatToolResponse ?? resultWriter(checked, false),
    // A result hook writes for every reader unless it says otherwise (as `defineProtocol` does).
    formatToolResponseForAnyReader:
      hooks.formatToolResponseForAnyReader ??
      hooks.formatToolResponse ??
      resultWriter(checked, true),
  });
  // The chat template's generation prompt decides where the output begins, unless a parse
  // option says otherwise.
  const protocol =
    checked.startInReasoning === undefined
      ? built
      : withStartInReasoning(built, checked.startInReasoning);
  specs.set(protocol, checked);
  return protocol;
}

/**
 * `protocol` starting in reasoning by default (see `withStartInReasoning`), its spec, when it has
 * one, remembered with `startInReasoning: true`.
 */
export function startingInReasoning(protocol: ToolCallProtocol): ToolCallProtocol {
  const wrapped = withStartInReasoning(protocol);
  const spec = specs.get(protocol);
  if (spec) specs.set(wrapped, { ...spec, startInReasoning: true });
  return wrapped;
}

/** What a built-in entry may add to its spec: code the spec's data cannot say. */
export interface FormatEntryExtras {
  /** The format's hooks (see `FormatHooks`). */
  readonly hooks?: FormatHooks;
  /** Model-id patterns, when substrings are not enough (a built-in's own, reviewed, patterns). */
  readonly models?: readonly RegExp[];
  readonly toolNamesIn?: FormatEntry['toolNamesIn'];
  /** Leave the format out of what `auto` reads by default (see `FormatEntry.inAuto`). */
  readonly inAuto?: boolean;
}

/** Escapes a substring for use inside a regular expression (a literal match, no backtracking). */
function literalPattern(text: string): RegExp {
  return new RegExp(text.toLowerCase().replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'));
}

/** The registry entry of a spec-built format: the same protocol object every `create()`. */
export function formatEntryFromSpec(spec: FormatSpec, extras: FormatEntryExtras = {}): FormatEntry {
  const checked = readFormatSpec(spec);
  let protocol: ToolCallProtocol | undefined;
  const create = (): ToolCallProtocol => {
    protocol ??= defineFormat(checked, extras.hooks);
    return protocol;
  };
  return {
    name: checked.name,
    aliases: checked.aliases ?? [],
    families: checked.families ?? checked.name,
    example:
      checked.example ??
      create().formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } }),
    create,
    models: extras.models ?? (checked.models ?? []).map(literalPattern),
    agent:
      checked.actionsPerTurn === 'one'
        ? { actionsPerTurn: 'one', completion: 'tool' }
        : CALLS_RUN_TOGETHER,
    ...(extras.toolNamesIn ? { toolNamesIn: extras.toolNamesIn } : {}),
    ...(extras.inAuto === false ? { inAuto: false } : {}),
  };
}
