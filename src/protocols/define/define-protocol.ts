import type {
  ParseOptions,
  ToolCallProtocol,
  ToolCallToFormat,
  ToolDefinition,
  ToolResponseToFormat,
} from '../../core/index.ts';
import { ContentFolder } from '../engine/collect-content.ts';
import {
  type CallSpanObserver,
  checkLiterals,
  createStreamEngine,
  type EngineOutput,
  type ProtocolGrammar,
  resolveParseOptions,
} from '../engine/stream-engine.ts';
import { cacheToolsSection } from '../prompt/tools-section-cache.ts';

export interface ProtocolDefinition<CallData> {
  readonly name: string;
  readonly grammar: ProtocolGrammar<CallData>;
  formatTools(tools: readonly ToolDefinition[]): string;
  formatToolCall(calls: readonly ToolCallToFormat[]): string;
  formatToolResponse(results: readonly ToolResponseToFormat[]): string;
  /**
   * The same results written so that no format's parser reads a call in them (prompt-safe JSON
   * bodies in the format's framing), for `auto`, which reads every format. Needed only when
   * `formatToolResponse` writes text as it is; default: `formatToolResponse`.
   */
  formatToolResponseForAnyReader?(results: readonly ToolResponseToFormat[]): string;
}

/** Each protocol's result writer for a reader of every format, where it has its own. */
const anyReaderResultWriters = new WeakMap<
  ToolCallProtocol,
  (results: readonly ToolResponseToFormat[]) => string
>();

/**
 * Results as `protocol` frames them, written so that no format's parser reads a call in them:
 * what a protocol reading every format (`auto`) prompts with.
 */
export function formatResultsForAnyReader(
  protocol: ToolCallProtocol,
  results: readonly ToolResponseToFormat[],
): string {
  const write = anyReaderResultWriters.get(protocol);
  return write ? write(results) : protocol.formatToolResponse(results);
}

/** The grammar behind each protocol made here, for readers that combine formats (`auto`). */
const grammars = new WeakMap<ToolCallProtocol, ProtocolGrammar<unknown>>();

/** The grammar of a protocol made by `defineProtocol`, or undefined for any other protocol. */
export function grammarOf(protocol: ToolCallProtocol): ProtocolGrammar<unknown> | undefined {
  return grammars.get(protocol);
}

/** For a caller that wants only where the calls are. */
const IGNORED_OUTPUT: EngineOutput = { sink: () => {}, withoutInputStream: true };

function asList<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? (value as readonly T[]) : [value as T];
}

/**
 * Builds the public protocol object from a grammar and its formatters. Whole-text parsing is the
 * stream parser fed once, so the two paths cannot disagree.
 */
export function defineProtocol<CallData>(
  definition: ProtocolDefinition<CallData>,
): ToolCallProtocol {
  const { grammar, name } = definition;
  // An empty opener would match everywhere and hang the parser: refused now, not at the first
  // push. Openers built from the tools are checked again when a parser compiles them.
  checkLiterals(
    name,
    grammar.callOpeners(resolveParseOptions({ tools: [] })),
    grammar.reasoningTags,
  );
  const formatTools = cacheToolsSection((tools) => definition.formatTools(tools));
  /** Reads `text` whole, each event going to `output` as it is emitted. */
  const runOnce = (
    text: string,
    options: ParseOptions,
    output: EngineOutput,
    onCallSpan?: CallSpanObserver,
  ): void => {
    const parser = createStreamEngine(grammar, options, onCallSpan, name, output);
    parser.push(text);
    parser.end();
  };
  const protocol: ToolCallProtocol = {
    name: definition.name,
    formatTools,
    formatToolCall: (call) => definition.formatToolCall(asList(call)),
    formatToolResponse: (result) => definition.formatToolResponse(asList(result)),
    parseGeneratedText: (text, options) => {
      // Folded as the events come: a list of every event, alive to the end, made the garbage
      // collector's work grow faster than the text (100k calls took 17x the time of 10k).
      const folder = new ContentFolder();
      runOnce(text, options, { sink: folder.take, withoutInputStream: true });
      return folder.content();
    },
    createStreamParser: (options) => createStreamEngine(grammar, options, undefined, name),
    extractToolCallSegments(text, options) {
      const spans: [number, number][] = [];
      runOnce(text, options, IGNORED_OUTPUT, (start, end) => spans.push([start, end]));
      return spans.map(([start, end]) => text.slice(start, end));
    },
  };
  grammars.set(protocol, grammar as ProtocolGrammar<unknown>);
  const forAnyReader = definition.formatToolResponseForAnyReader;
  if (forAnyReader) anyReaderResultWriters.set(protocol, (results) => forAnyReader(results));
  return protocol;
}

/**
 * `protocol` with its parsers assuming `startInReasoning` (default `true`: a model whose chat
 * template leaves `<think>` open) unless the caller says otherwise. Everything else is the
 * protocol's own, and it stays combinable: `auto` and the any-reader result writer see the same
 * grammar and writer.
 */
export function withStartInReasoning(
  protocol: ToolCallProtocol,
  startInReasoning = true,
): ToolCallProtocol {
  const withDefault = (options: ParseOptions): ParseOptions =>
    options.startInReasoning === undefined ? { ...options, startInReasoning } : options;
  const wrapped: ToolCallProtocol = {
    ...protocol,
    parseGeneratedText: (text, options) => protocol.parseGeneratedText(text, withDefault(options)),
    createStreamParser: (options) => protocol.createStreamParser(withDefault(options)),
    extractToolCallSegments: (text, options) =>
      protocol.extractToolCallSegments(text, withDefault(options)),
  };
  const grammar = grammars.get(protocol);
  if (grammar) grammars.set(wrapped, grammar);
  const forAnyReader = anyReaderResultWriters.get(protocol);
  if (forAnyReader) anyReaderResultWriters.set(wrapped, forAnyReader);
  return wrapped;
}
