import {
  createIdGenerator,
  DEFAULT_MAX_CALL_CHARS,
  DEFAULT_MAX_DEPTH,
  type EndOptions,
  type IdGenerator,
  type ParseEvent,
  type ParseOptions,
  type ProtocolFaultCode,
  type StreamParser,
  type ToolDefinition,
} from '../../core/index.ts';
import { LINE_FEED } from '../../scan/char-codes.ts';
import { compileOpeners, type Opener, type OpenerTrie } from '../../scan/opener-trie.ts';
import { RawText } from '../../scan/raw-text.ts';
import type { CallBody, CallContext, CallOutcome, ResolvedParseOptions } from './call-body.ts';
import { InlineCodeTracker, MAX_CODE_SPAN_HOLD, SpanCloseFinder } from './inline-code.ts';
import { LineOpenerFinder } from './line-openers.ts';
import { NOT_A_SUFFIX, readTagSuffix, SUFFIX_CUT } from './tag-suffix.ts';
import { TriggerSearch } from './trigger-search.ts';
import { workMeter } from './work-meter.ts';

/** An opener of calls, as a grammar declares it. */
export interface CallOpener<CallData> extends Opener<CallData> {
  /**
   * The opener is a special token (`<|tool_calls_section_begin|>`), which a model writes only to
   * call, never to mention a call: it is read inside reasoning blocks too. Plain-text markup
   * (`<tool_call>`) inside reasoning is the model thinking about a call, and is not read there.
   */
  readonly inReasoning?: boolean;
  /**
   * What the opener opens, for a reader of several formats (`auto`): `call`, a call for sure
   * (`<tool_call>`); `speculative`, a call only if one follows (a fence, `{"name"` in prose);
   * `framing`, markup around calls that holds none and is dropped (`<|start|>assistant`).
   * Undeclared, auto guesses it from the opener's data (see auto/opener-kind.ts).
   */
  readonly kind?: CallOpenerKind;
  /**
   * The characters a call of this opener can start with, white space after the opener skipped
   * (`{` for JSON lines, `[` for a JSON list); undefined when any may. Formats that share the
   * opener are then told apart by the call's first character, without reading it.
   */
  readonly callStarts?: string;
}

export type CallOpenerKind = 'call' | 'speculative' | 'framing';

/** What a protocol tells the engine: which openers start a call, and how to parse its body. */
export interface ProtocolGrammar<CallData> {
  /**
   * Openers of calls, built from the declared tools (several may share a body kind). The engine
   * compiles each array once, so return the same array for the same openers and never change it.
   */
  callOpeners(options: ResolvedParseOptions): readonly CallOpener<CallData>[];
  /** A fresh body for a call whose opener just matched. */
  openCall(data: CallData, context: CallContext): CallBody;
  /**
   * The format's reasoning blocks, recognised before anything else: nothing inside one is a call
   * while it is open, and blocks do not nest. Return the same array every time.
   */
  readonly reasoningTags: readonly ReasoningTag[];
}

/** A reasoning block's opening and closing markup (`<think>` … `</think>`). */
export interface ReasoningTag {
  readonly open: string;
  readonly close: string;
  /** Other literals that also end the block, consumed like `close` (Kimi K3's `<|open|>response<|sep|>`). */
  readonly closeAlternatives?: readonly string[];
  /**
   * `open` and `close` are followed by a suffix (Hunyuan's `<think:6124c78e>`, see
   * tag-suffix.ts): the block opens at `open` + `>` or `:SUFFIX>`, and ends at `close` + the
   * same suffix + `>`; a block the prompt opened ends at `close` + any suffix + `>`.
   */
  readonly suffixed?: boolean;
}

/** Every literal that ends a tag's block: its closer, then its alternatives. */
function closersOf(tag: ReasoningTag): string[] {
  return [tag.close, ...(tag.closeAlternatives ?? [])];
}

type TopLevelData<CallData> =
  | {
      readonly kind: 'reasoning';
      readonly closers: readonly string[];
      /** The tag, when its opener reads a suffix first (its closers then depend on it). */
      readonly suffixed?: ReasoningTag;
    }
  | { readonly kind: 'call'; readonly call: CallData };

const Mode = {
  Text: 0,
  Reasoning: 1,
  Call: 2,
  /** An opener inside an inline code span, held until the span closes or its line ends. */
  CodeSpan: 3,
} as const;
type Mode = (typeof Mode)[keyof typeof Mode];

/**
 * The default id source, one per process: its counter keeps ids unique across parsers, and a
 * parser does not pay for random bytes (a third of the time of parsing a one-call response).
 */
let sharedIds: IdGenerator | undefined;

function defaultIdGenerator(): IdGenerator {
  sharedIds ??= createIdGenerator('tw');
  return sharedIds;
}

export function resolveParseOptions(options: ParseOptions): ResolvedParseOptions {
  const toolsByName = new Map<string, ToolDefinition>();
  for (const tool of options.tools) toolsByName.set(tool.name, tool);
  return {
    tools: options.tools,
    toolsByName,
    maxCallChars: options.maxCallChars ?? DEFAULT_MAX_CALL_CHARS,
    emitRawTextOnError: options.emitRawTextOnError ?? true,
    startInReasoning: options.startInReasoning ?? false,
    validate: options.validate ?? true,
    generateId: options.generateId ?? defaultIdGenerator(),
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
  };
}

interface TopLevel<CallData> {
  readonly trie: OpenerTrie<TopLevelData<CallData>>;
  /**
   * What is searched for with `indexOf`: the characters that can begin an opener (but a line
   * break), and for a letter, the literals it begins (see `triggersOf`).
   */
  readonly triggers: readonly string[];
  /** The literals searched for whole, longest first (their starts are held at a text's end). */
  readonly wordTriggers: readonly string[];
  /** The characters they begin with. */
  readonly wordFirsts: ReadonlySet<number>;
  /**
   * The longest line opener (`\nlist_dir`: a tool's name alone on a line), or 0. Line openers
   * are found by `LineOpenerFinder`, not by the trigger search; the start of the output counts
   * as a line start.
   */
  readonly longestLineOpener: number;
  /** Every reasoning tag's closer (for output that starts inside reasoning). */
  readonly allClosers: readonly string[];
  /** The openers read inside reasoning blocks (special tokens); none for most formats. */
  readonly reasoningOpeners: readonly CallOpener<CallData>[];
  /** What is searched for inside a reasoning block, per list of its closers (compiled when met). */
  readonly reasoningScans: Map<readonly string[], ReasoningScan<CallData>>;
  /** The closers of suffixed tags in `allClosers`: a suffix and `>` must follow them. */
  readonly prefixClosers: ReadonlySet<string>;
  /** A suffixed block's closers, per its closer with the suffix (a model writes one suffix). */
  readonly suffixedClosers: Map<string, readonly string[]>;
}

/** Most suffixed closer lists kept per top level; past it, lists are made per block. */
const MAX_SUFFIXED_CLOSER_LISTS = 16;

type ReasoningData<CallData> =
  | { readonly kind: 'close'; readonly prefix?: boolean }
  | { readonly kind: 'call'; readonly call: CallData };

/** A reasoning block's closers and the openers read inside it, compiled together. */
interface ReasoningScan<CallData> {
  readonly trie: OpenerTrie<ReasoningData<CallData>>;
  readonly triggers: readonly string[];
}

const CLOSE: ReasoningData<never> = { kind: 'close' };
/** A closer's place not searched for yet (see scanReasoning). */
const UNSEARCHED = -2;
/** A suffixed tag's closer, which a suffix and `>` must follow. */
const PREFIX_CLOSE: ReasoningData<never> = { kind: 'close', prefix: true };

function compileReasoningScan<CallData>(
  closers: readonly string[],
  openers: readonly CallOpener<CallData>[],
  prefixClosers: ReadonlySet<string>,
): ReasoningScan<CallData> {
  const all: Opener<ReasoningData<CallData>>[] = closers.map((literal) => ({
    literal,
    delimited: false,
    data: prefixClosers.has(literal) ? PREFIX_CLOSE : CLOSE,
  }));
  for (const opener of openers) {
    all.push({ ...opener, data: { kind: 'call', call: opener.data } });
  }
  const trie = compileOpeners(all);
  return { trie, triggers: trie.firstCharacters.map((code) => String.fromCharCode(code)) };
}

/**
 * Refuses openers and reasoning tags that would match nothing at all: the engine would find an
 * empty literal at every position and never move on.
 */
export function checkLiterals(
  formatName: string,
  callOpeners: readonly Opener<unknown>[],
  reasoningTags: readonly ReasoningTag[],
): void {
  for (const opener of callOpeners) {
    if (opener.literal.length === 0) {
      throw new TypeError(
        `${formatName}: a call opener's literal is empty; it would match everywhere`,
      );
    }
  }
  for (const tag of reasoningTags) {
    if (tag.open.length === 0 || closersOf(tag).some((closer) => closer.length === 0)) {
      throw new TypeError(
        `${formatName}: a reasoning tag has an empty ${tag.open.length === 0 ? 'opening' : 'closing'} literal; it would match everywhere`,
      );
    }
  }
}

/**
 * Compiled openers per grammar opener array and reasoning tags (none: the inside of a reasoning
 * block): a parser is made per response, often with few calls.
 */
const compiledTopLevels = new WeakMap<
  readonly Opener<unknown>[],
  Map<readonly ReasoningTag[], TopLevel<unknown>>
>();

const NO_REASONING: readonly ReasoningTag[] = [];

function compileTopLevel<CallData>(
  formatName: string,
  callOpeners: readonly CallOpener<CallData>[],
  reasoningTags: readonly ReasoningTag[],
): TopLevel<CallData> {
  let byTags = compiledTopLevels.get(callOpeners);
  if (byTags === undefined) {
    byTags = new Map();
    compiledTopLevels.set(callOpeners, byTags);
  }
  const cached = byTags.get(reasoningTags);
  if (cached) return cached as TopLevel<CallData>;
  checkLiterals(formatName, callOpeners, reasoningTags);
  const openers: Opener<TopLevelData<CallData>>[] = reasoningTags.map((tag) => ({
    literal: tag.open,
    delimited: false,
    // Made once per compiled top level: `reasoningScans`, keyed by this array, stays small.
    data: {
      kind: 'reasoning',
      closers: closersOf(tag),
      ...(tag.suffixed === true ? { suffixed: tag } : {}),
    },
  }));
  for (const opener of callOpeners) {
    openers.push({ ...opener, data: { kind: 'call', call: opener.data } });
  }
  const trie = compileOpeners(openers);
  let longestLineOpener = 0;
  for (const opener of callOpeners) {
    if (opener.literal.startsWith('\n')) {
      longestLineOpener = Math.max(longestLineOpener, opener.literal.length);
    }
  }
  const { triggers, wordTriggers } = triggersOf(trie.firstCharacters, [
    ...callOpeners,
    ...openers.slice(0, reasoningTags.length),
  ]);
  const compiled: TopLevel<CallData> = {
    trie,
    triggers,
    wordTriggers,
    wordFirsts: new Set(wordTriggers.map((word) => word.charCodeAt(0))),
    longestLineOpener,
    allClosers: reasoningTags.flatMap(closersOf),
    reasoningOpeners: callOpeners.filter((opener) => opener.inReasoning === true),
    reasoningScans: new Map(),
    prefixClosers: new Set(
      reasoningTags.filter((tag) => tag.suffixed === true).map((tag) => tag.close),
    ),
    suffixedClosers: new Map(),
  };
  byTags.set(reasoningTags, compiled as TopLevel<unknown>);
  return compiled;
}

/** Whether `word` begins with all of `text` from `at` on. */
function beginsWith(word: string, text: string, at: number): boolean {
  for (let index = at; index < text.length; index++) {
    if (word.charCodeAt(index - at) !== text.charCodeAt(index)) return false;
  }
  return true;
}

function isLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/**
 * What the text is searched for. A character that begins an opener is searched for, but a
 * letter is common in prose (`c` of `call:`, `f` of `functools[`): when every literal it begins
 * is plain (not a tag-name prefix), those literals are searched for whole instead, so a letter
 * of prose costs nothing. A literal cut by a text's end is held back by `heldWordStart`.
 */
function triggersOf(
  firstCharacters: readonly number[],
  literals: readonly Opener<unknown>[],
): { triggers: string[]; wordTriggers: string[] } {
  const triggers: string[] = [];
  const words = new Set<string>();
  for (const code of firstCharacters) {
    if (code === LINE_FEED) continue;
    const begun = literals.filter((opener) => opener.literal.charCodeAt(0) === code);
    if (!isLetter(code) || begun.some((opener) => opener.delimited)) {
      triggers.push(String.fromCharCode(code));
      continue;
    }
    for (const opener of begun) words.add(opener.literal);
  }
  const wordTriggers = [...words].sort((a, b) => b.length - a.length);
  return { triggers: [...triggers, ...wordTriggers], wordTriggers };
}

/** Observes where calls start and end, in stream offsets (for `extractToolCallSegments`). */
export type CallSpanObserver = (start: number, end: number) => void;

/**
 * Takes each event as the engine emits it, instead of `push` and `end` returning them: a whole
 * text folded as it is read keeps no list of every event alive to its end.
 */
export type EventSink = (event: ParseEvent) => void;

/** Where an engine's events go instead of being returned by `push` and `end`. */
export interface EngineOutput {
  readonly sink: EventSink;
  /**
   * Leave out `tool-input-start`, `-delta` and `-end` (the input as it streams): a reader of
   * whole content keeps only the `tool-call`, which holds the whole input, and making a delta
   * event per piece of a streamed argument cost it for nothing. Everything else is unchanged.
   */
  readonly withoutInputStream?: boolean;
}

const NO_EVENTS: ParseEvent[] = [];

function isInputStreamEvent(event: ParseEvent): boolean {
  return (
    event.type === 'tool-input-start' ||
    event.type === 'tool-input-delta' ||
    event.type === 'tool-input-end'
  );
}

/**
 * The top level shared by every protocol: text, reasoning blocks, and handing calls to the
 * protocol's body parser. A plain state machine; each character is looked at a bounded number of
 * times, and the only text held back is a possible opener or closer cut by the chunk's end.
 * `formatName` names the format in the errors a faulty grammar or body raises. With an
 * `output`, events go to its sink as they are emitted and `push` and `end` return none.
 */
export function createStreamEngine<CallData>(
  grammar: ProtocolGrammar<CallData>,
  parseOptions: ParseOptions,
  onCallSpan?: CallSpanObserver,
  formatName = 'a format',
  output?: EngineOutput,
): StreamParser {
  return createEngine(grammar, parseOptions, onCallSpan, formatName, false, output);
}

/** A piece of a reasoning block that was never closed, between calls read inside it. */
interface ReasoningSegment {
  /** Its stream offset. */
  readonly start: number;
  readonly text: string;
}

function createEngine<CallData>(
  grammar: ProtocolGrammar<CallData>,
  parseOptions: ParseOptions,
  onCallSpan: CallSpanObserver | undefined,
  formatName: string,
  /**
   * Reads the text of a reasoning block that was never closed: blocks do not nest, so reasoning
   * tags in it are text.
   */
  insideReasoning: boolean,
  output: EngineOutput | undefined,
): StreamParser {
  const options = resolveParseOptions(parseOptions);
  const topLevel = compileTopLevel(
    formatName,
    grammar.callOpeners(options),
    insideReasoning ? NO_REASONING : grammar.reasoningTags,
  );
  const { trie, triggers, longestLineOpener } = topLevel;
  const lineOpeners = new LineOpenerFinder(trie, longestLineOpener);
  /** Nothing has been read yet: an opener that begins with a line break may match without it. */
  let atStreamStart = longestLineOpener > 0 && !options.startInReasoning;
  /**
   * The output starts inside reasoning (the prompt opened it) and nothing of it is read yet: a
   * model may still write the opener (ERNIE's `<think>` after a prompt that ends in one), which
   * opens the block it is already in and is dropped, not read as reasoning text.
   */
  let repeatedOpenerPossible =
    options.startInReasoning && !insideReasoning && grammar.reasoningTags.length > 0;

  /** The events of the current push or end, when there is no sink. */
  let out: ParseEvent[] = [];
  const sink = output?.sink;
  const handOn: EventSink = sink ?? ((event) => out.push(event));
  const keepsInputStream = output?.withoutInputStream !== true;
  /**
   * The last event emitted, not handed on yet: a delta that follows it within one push joins it
   * (see `emitText`, `inputDelta`).
   */
  let last: ParseEvent | undefined;

  function put(event: ParseEvent): void {
    if (last !== undefined) handOn(last);
    last = event;
  }

  /** Hands on the held event; what `push` and `end` return. */
  function release(): ParseEvent[] {
    if (last !== undefined) handOn(last);
    last = undefined;
    if (sink) return NO_EVENTS;
    const events = out;
    out = [];
    return events;
  }
  let mode: Mode = options.startInReasoning ? Mode.Reasoning : Mode.Text;
  let reasoningClosers: readonly string[] = topLevel.allClosers;
  /**
   * The text of the reasoning block being read, and its stream offset: if the output ends before
   * the block closes, the calls written in it are read from it (models forget `</think>`).
   */
  const reasoningText = new RawText();
  let reasoningStart = 0;
  /** The block's text before the calls read inside it (special tokens), each piece apart. */
  let reasoningSegments: ReasoningSegment[] = [];
  /**
   * Closers and special-token openers searched for in the block being read, when the format has
   * such openers (see CallOpener.inReasoning); otherwise its closers alone are searched for.
   */
  let reasoningScan: ReasoningScan<CallData> | undefined;
  let reasoningSearch: TriggerSearch | undefined;
  /**
   * Reasoning goes on after a call read inside it: its text opens a new block only if there is
   * any (an empty block is not started for the closer alone).
   */
  let reasoningResumed = false;
  /** The call being read stands inside a reasoning block, where reading goes on after it. */
  let callInReasoning = false;
  const inlineCode = new InlineCodeTracker();
  /** The text from an opener held inside a code span (Mode.CodeSpan), and what decides it. */
  const codeSpanText = new RawText();
  let spanClose: SpanCloseFinder | undefined;
  /** A possible opener or closer cut by the end of the last chunk. */
  let pending = '';
  /** The text being read is the output's last: an opener that could still grow has ended. */
  let finalText = false;
  /** Stream offset of `pending[0]` (or of the next chunk when nothing is pending). */
  let offset = 0;
  let textId: string | undefined;
  let reasoningId: string | undefined;

  let body: CallBody | undefined;
  let outcome: CallOutcome | undefined;
  /** The current call's raw text, from its opener on (its length is the call's size so far). */
  const callRaw = new RawText();
  let callStart = 0;
  /**
   * Characters handed back to be read again: a call body's leftover (what it read past its
   * call's end) or the text of an opener held in a code span. Read from where they stand in the
   * text when they are its last characters read, which they are unless they came in an earlier
   * chunk; the text is never copied per hand-back.
   */
  let handBack = '';
  /**
   * The text a call body is writing (`writeText[writeStart, writeEnd)`): part of the call's raw
   * text, kept in `callRaw` only once the write returns, and only if the call did not complete
   * (a completed call's raw text is never read).
   */
  let writeText = '';
  let writeStart = 0;
  let writeEnd = 0;

  /** The call's raw text between two offsets, including the write in progress. */
  function callText(start: number, end: number = callRaw.length + (writeEnd - writeStart)): string {
    const kept = callRaw.length;
    if (end <= kept) return callRaw.slice(start, end);
    const written = writeText.slice(
      writeStart + Math.max(0, start - kept),
      writeStart + end - kept,
    );
    return start >= kept ? written : callRaw.slice(start, kept) + written;
  }

  /**
   * The call whose `tool-input-start` went out and which has not come out yet: a fault that ends
   * it names it (`toolCallId`), whichever body reported the fault, so a reader can close it.
   */
  let openInputId: string | undefined;

  const context: CallContext = {
    options,
    emit: (event) => {
      closeBlockBeforeCall();
      if (event.type === 'tool-input-start') openInputId = event.id;
      else if (event.type === 'tool-call' && event.toolCallId === openInputId)
        openInputId = undefined;
      if (keepsInputStream || !isInputStreamEvent(event)) put(event);
    },
    inputDelta: (id, delta) => {
      // The call's first event ends the block it was written in, whether it is kept or not.
      closeBlockBeforeCall();
      if (!keepsInputStream) return;
      if (last !== undefined && last.type === 'tool-input-delta' && last.id === id) {
        last = { type: 'tool-input-delta', id, delta: last.delta + delta };
      } else {
        put({ type: 'tool-input-delta', id, delta });
      }
    },
    emitText: (text) => emitCallText(text),
    reportFault: ({ code, message, raw, dropped, ...extra }) => {
      closeBlockBeforeCall();
      if (dropped) {
        put({
          type: 'error',
          error: { code, message, raw, offset: callStart, ...extra, dropped: true },
        });
      } else reportFault(code, message, raw, withOpenInput(extra));
    },
    get callLength() {
      return callRaw.length + (writeEnd - writeStart);
    },
    callText: (start, end) => callText(start, end),
    settle: (result) => {
      outcome = result;
    },
  };

  function emitText(delta: string): void {
    if (delta.length === 0) return;
    inlineCode.read(delta);
    if (textId === undefined) {
      textId = options.generateId();
      put({ type: 'text-start', id: textId });
    }
    // Text that follows text within one push is one delta: a text of many openers that are not
    // calls (`>>>>…`) would otherwise be a delta per character.
    if (last !== undefined && last.type === 'text-delta' && last.id === textId) {
      last = { type: 'text-delta', id: textId, delta: last.delta + delta };
    } else put({ type: 'text-delta', id: textId, delta });
  }

  function closeText(): void {
    if (textId === undefined) return;
    put({ type: 'text-end', id: textId });
    textId = undefined;
  }

  /** A call's first event ends the text (or reasoning) block it was written in. */
  function closeBlockBeforeCall(): void {
    closeText();
    if (callInReasoning) closeReasoning();
  }

  /** Text that comes out of a call: part of the reasoning when the call stands in it. */
  function emitCallText(delta: string): void {
    if (callInReasoning) emitReasoning(delta);
    else emitText(delta);
  }

  function emitReasoning(delta: string): void {
    if (reasoningId === undefined) {
      if (delta.length === 0 && reasoningResumed) return;
      reasoningId = options.generateId();
      put({ type: 'reasoning-start', id: reasoningId });
    }
    if (delta.length > 0) put({ type: 'reasoning-delta', id: reasoningId, delta });
  }

  function closeReasoning(): void {
    if (reasoningId === undefined) return;
    put({ type: 'reasoning-end', id: reasoningId });
    reasoningId = undefined;
  }

  /** Reasoning text of the open block: emitted, and kept in case the block never closes. */
  function readReasoning(delta: string): void {
    reasoningText.append(delta);
    emitReasoning(delta);
  }

  /** A fault's details with the open call's id when the body did not name it; the call is over. */
  function withOpenInput(extra: { readonly toolCallId?: string }): object {
    const id = openInputId;
    openInputId = undefined;
    return extra.toolCallId !== undefined || id === undefined
      ? extra
      : { ...extra, toolCallId: id };
  }

  function reportFault(code: ProtocolFaultCode, message: string, raw: string, extra: object) {
    put({
      type: 'error',
      error: {
        code,
        message,
        raw,
        offset: callStart,
        ...extra,
        // Shown as reasoning, where it was written: not text.
        ...(callInReasoning ? { inReasoning: true } : {}),
      },
    });
    if (options.emitRawTextOnError) emitCallText(raw);
  }

  /** The body has returned with its outcome settled: report and leave call mode. */
  function closeCall(endOffset: number): void {
    const result = outcome ?? { kind: 'not-a-call' };
    // The raw text is joined only when it is needed: a recognised call never pays for it.
    if (result.kind === 'call') {
      onCallSpan?.(callStart, endOffset);
    } else if (result.kind === 'not-a-call') {
      const raw = callRaw.toString();
      if (callInReasoning) readReasoning(raw);
      else emitText(raw);
    } else if (result.kind === 'markup') {
      // Framing around calls: dropped, like the tags of a call.
    } else {
      const { kind: _kind, code, message, ...extra } = result;
      reportFault(code, message, callRaw.toString(), withOpenInput(extra));
    }
    openInputId = undefined;
    body = undefined;
    outcome = undefined;
    callRaw.clear();
    if (callInReasoning) {
      callInReasoning = false;
      mode = Mode.Reasoning;
      if (result.kind !== 'not-a-call') {
        // The block's text before the call is one piece, and what follows it another: a block
        // that never closes has the calls written in either read from them, not this one again.
        if (reasoningText.length > 0) {
          reasoningSegments.push({ start: reasoningStart, text: reasoningText.toString() });
          reasoningText.clear();
        }
        reasoningStart = endOffset;
        reasoningResumed = true;
      }
    } else mode = Mode.Text;
  }

  /** Next position of each trigger character in the current text (see TriggerSearch). */
  const textSearch = new TriggerSearch(triggers);
  /** Counts the texts read: `push` reads one, and so does each copy made to read text again. */
  let textNumber = 0;

  /** Scans text mode from `start`; returns where it stopped (end of text, or a mode change). */
  function scanText(text: string, start: number): number {
    if (atStreamStart && offset === 0 && start === 0) {
      const opened = openAtStreamStart(text);
      if (opened !== -1) return opened;
    }
    let from = start;
    while (from < text.length) {
      const next = textSearch.find(text, from, textNumber);
      if (next === -1) break;
      const match = trie.match(text, next, finalText);
      if (match.kind !== 'match' && longestLineOpener > 0) {
        // A tag that starts a line may follow a tool's name alone on the line before.
        const lineAt = lineOpeners.before(text, next, start);
        if (lineAt !== -1) {
          if (match.kind === 'partial') return holdFrom(text, start, lineAt);
          emitText(text.slice(start, lineAt));
          const found = lineOpeners.found!;
          return enter(found.opener.data, text, lineAt, found.length);
        }
      }
      if (match.kind === 'none') {
        from = next + 1;
        continue;
      }
      if (match.kind === 'partial') return holdFrom(text, start, next);
      emitText(text.slice(start, next));
      // A line opener begins a line, where no span is open.
      if (match.opener.literal.charCodeAt(0) !== LINE_FEED && inlineCode.inSpan()) {
        // `<read_file>…` inside `` `…` `` is code shown in prose, unless the line ends first.
        mode = Mode.CodeSpan;
        spanClose = new SpanCloseFinder(inlineCode.openRunLength);
        return next;
      }
      return enter(match.opener.data, text, next, match.length);
    }
    // The last line may begin a line opener that the next chunk completes, and its last
    // characters a literal searched for whole.
    const held = Math.max(
      longestLineOpener === 0 ? 0 : lineOpeners.heldAtEnd(text, start),
      heldWordStart(text, start),
    );
    emitText(text.slice(start, text.length - held));
    if (held > 0) pending = text.slice(text.length - held);
    return text.length;
  }

  /**
   * What may be an opener cut by the text's end begins at `at`: held back for the next text,
   * from an earlier literal searched for whole if one begins before it (`Action: ``` cut in
   * `Action: ```json`). Returns where reading goes on.
   */
  function holdFrom(text: string, start: number, at: number): number {
    const from = Math.min(at, text.length - heldWordStart(text, start));
    emitText(text.slice(start, from));
    pending = text.slice(from);
    return text.length;
  }

  /**
   * How many characters at the end of `text` (from `start`) begin a literal searched for whole
   * (see `triggersOf`): the next text may complete it. None once the output has ended.
   */
  function heldWordStart(text: string, start: number): number {
    const { wordTriggers, wordFirsts } = topLevel;
    if (wordTriggers.length === 0 || finalText) return 0;
    const from = Math.max(start, text.length - wordTriggers[0]!.length + 1);
    for (let at = from; at < text.length; at++) {
      if (!wordFirsts.has(text.charCodeAt(at))) continue;
      const size = text.length - at;
      for (const word of wordTriggers) {
        if (word.length > size && beginsWith(word, text, at)) return size;
      }
    }
    return 0;
  }

  /** An opener matched at `text[at]`: start its reasoning block or call. */
  function enter(data: TopLevelData<CallData>, text: string, at: number, length: number): number {
    if (data.kind === 'reasoning') {
      let closers = data.closers;
      let end = at + length;
      let cached = true;
      if (data.suffixed !== undefined) {
        const suffixEnd = readTagSuffix(text, end, finalText);
        if (suffixEnd === SUFFIX_CUT) {
          pending = text.slice(at);
          return text.length;
        }
        if (suffixEnd === NOT_A_SUFFIX) {
          // `<thinkpad>`: the literal was text; reading goes on just after it.
          emitText(text.slice(at, end));
          return end;
        }
        const closer = data.suffixed.close + text.slice(end, suffixEnd);
        ({ closers, cached } = suffixedClosersOf(data.suffixed, closer));
        end = suffixEnd;
      }
      inlineCode.afterMarkup();
      closeText();
      mode = Mode.Reasoning;
      openReasoning(closers, cached);
      reasoningStart = offset + end;
      emitReasoning('');
      return end;
    }
    inlineCode.afterMarkup();
    return enterCall(data.call, text, at, length);
  }

  /**
   * The closers of a suffixed tag's block that `closer` (with its suffix) ends, kept while few
   * (`cached`): the top level is shared by every parser of the format.
   */
  function suffixedClosersOf(
    tag: ReasoningTag,
    closer: string,
  ): { closers: readonly string[]; cached: boolean } {
    const known = topLevel.suffixedClosers.get(closer);
    if (known !== undefined) return { closers: known, cached: true };
    const closers = [closer, ...(tag.closeAlternatives ?? [])];
    if (topLevel.suffixedClosers.size >= MAX_SUFFIXED_CLOSER_LISTS) {
      return { closers, cached: false };
    }
    topLevel.suffixedClosers.set(closer, closers);
    return { closers, cached: true };
  }

  /**
   * A reasoning block opens whose closers are `closers`; its scan is kept with the top level
   * when the list is (`cached`).
   */
  function openReasoning(closers: readonly string[], cached = true): void {
    reasoningClosers = closers;
    reasoningResumed = false;
    if (topLevel.reasoningOpeners.length === 0) return;
    let scan = topLevel.reasoningScans.get(closers);
    if (scan === undefined) {
      scan = compileReasoningScan(closers, topLevel.reasoningOpeners, topLevel.prefixClosers);
      if (cached) topLevel.reasoningScans.set(closers, scan);
    }
    reasoningScan = scan;
    reasoningSearch = new TriggerSearch(scan.triggers);
  }

  /** A call's opener matched at `text[at]`: its body reads what follows. */
  function enterCall(call: CallData, text: string, at: number, length: number): number {
    // The text block stays open: an opener that is not a call goes on as its text, and a
    // call's first event closes it.
    mode = Mode.Call;
    callStart = offset + at;
    callRaw.clear();
    callRaw.append(text.slice(at, at + length));
    outcome = undefined;
    body = grammar.openCall(call, context);
    return at + length;
  }

  /**
   * The output's first line may be a line opener without its line break. Returns where reading
   * goes on, or -1 when no such opener starts the output (or when more text must come first:
   * then it is held).
   */
  function openAtStreamStart(text: string): number {
    const probe = `\n${text.slice(0, longestLineOpener)}`;
    const match = trie.match(probe, 0);
    if (match.kind === 'partial' && text.length < longestLineOpener) {
      pending = text;
      return text.length;
    }
    atStreamStart = false;
    if (match.kind !== 'match' || !match.opener.literal.startsWith('\n')) return -1;
    return enter(match.opener.data, text, 0, match.length - 1);
  }

  /** The reasoning block ends (its closer was read). */
  function endReasoning(): void {
    closeReasoning();
    reasoningText.clear();
    reasoningSegments = [];
    reasoningScan = undefined;
    reasoningSearch = undefined;
    mode = Mode.Text;
  }

  /**
   * Reasoning runs to the first of its closers. Blocks do not nest: an agent that wrote
   * `<thinking>`, never closed it, and later wrote `<thinking>…</thinking>` ended its reasoning
   * at that first `</thinking>`, and what follows is read as usual.
   */
  function scanReasoning(text: string, start: number): number {
    if (repeatedOpenerPossible) {
      const after = afterRepeatedOpener(text, start);
      if (after === -1) {
        pending = text.slice(start);
        return text.length;
      }
      start = after;
    }
    if (reasoningScan !== undefined) return scanReasoningForCalls(text, start);
    const { prefixClosers } = topLevel;
    // Where each closer stands next (-1: nowhere, UNSEARCHED: not searched yet). A suffixed
    // tag's closer without a suffix after it is reasoning text: the search goes on after it,
    // the other closers' places kept, so each character is searched once per closer.
    const found = reasoningClosers.map(() => UNSEARCHED);
    let from = start;
    while (true) {
      let closeAt = -1;
      let closer = '';
      for (let index = 0; index < reasoningClosers.length; index++) {
        const candidate = reasoningClosers[index]!;
        let at = found[index]!;
        if (at === UNSEARCHED || (at !== -1 && at < from)) {
          at = text.indexOf(candidate, from);
          workMeter.characters += (at === -1 ? text.length : at) - from;
          found[index] = at;
        }
        // At one position the longest closer is the one written (`</thinking>`, not `</think`).
        if (
          at !== -1 &&
          (closeAt === -1 || at < closeAt || (at === closeAt && candidate.length > closer.length))
        ) {
          closeAt = at;
          closer = candidate;
        }
      }
      if (closeAt === -1) break;
      let end = closeAt + closer.length;
      if (prefixClosers.size > 0 && prefixClosers.has(closer)) {
        const suffixEnd = readTagSuffix(text, end, finalText);
        if (suffixEnd === SUFFIX_CUT) {
          readReasoning(text.slice(start, closeAt));
          pending = text.slice(closeAt);
          return text.length;
        }
        if (suffixEnd === NOT_A_SUFFIX) {
          from = end;
          continue;
        }
        end = suffixEnd;
      }
      emitReasoning(text.slice(start, closeAt));
      endReasoning();
      return end;
    }
    // Hold back the longest tail that could still grow into a closer.
    let hold = 0;
    for (const candidate of reasoningClosers) {
      const longest = Math.min(candidate.length - 1, text.length - start);
      for (let size = longest; size > hold; size--) {
        if (text.startsWith(candidate.slice(0, size), text.length - size)) {
          hold = size;
          break;
        }
      }
    }
    readReasoning(text.slice(start, text.length - hold));
    pending = text.slice(text.length - hold);
    return text.length;
  }

  /**
   * Where reading goes on at the output's start inside reasoning: after a reasoning opener that
   * begins it, at `start` when none does, or -1 while the text so far could still grow into one.
   */
  function afterRepeatedOpener(text: string, start: number): number {
    for (const tag of grammar.reasoningTags) {
      if (!text.startsWith(tag.open, start)) continue;
      let after = start + tag.open.length;
      if (tag.suffixed === true) {
        // `<think:6124c78e>` echoed: dropped with its suffix; `<thinkpad>` is reasoning text.
        after = readTagSuffix(text, after, finalText);
        if (after === SUFFIX_CUT) return -1;
        if (after === NOT_A_SUFFIX) continue;
      }
      repeatedOpenerPossible = false;
      return after;
    }
    const rest = text.length - start;
    if (!finalText) {
      for (const tag of grammar.reasoningTags) {
        if (rest < tag.open.length && tag.open.startsWith(text.slice(start))) return -1;
      }
    }
    repeatedOpenerPossible = false;
    return start;
  }

  /**
   * Reasoning of a format whose special-token openers are read inside it: runs to its closer or
   * to such an opener, whose call is read, and then the reasoning goes on.
   */
  function scanReasoningForCalls(text: string, start: number): number {
    const { trie: reasoningTrie } = reasoningScan!;
    let from = start;
    while (from < text.length) {
      const next = reasoningSearch!.find(text, from, textNumber);
      if (next === -1) break;
      const match = reasoningTrie.match(text, next, finalText);
      if (match.kind === 'none') {
        from = next + 1;
        continue;
      }
      readReasoning(text.slice(start, next));
      if (match.kind === 'partial') {
        pending = text.slice(next);
        return text.length;
      }
      const data = match.opener.data;
      if (data.kind === 'close') {
        let end = next + match.length;
        if (data.prefix === true) {
          const suffixEnd = readTagSuffix(text, end, finalText);
          if (suffixEnd === SUFFIX_CUT) {
            pending = text.slice(next);
            return text.length;
          }
          if (suffixEnd === NOT_A_SUFFIX) {
            // Not a closer: reasoning text, read with what follows it.
            start = next;
            from = end;
            continue;
          }
          end = suffixEnd;
        }
        endReasoning();
        return end;
      }
      callInReasoning = true;
      return enterCall(data.call, text, next, match.length);
    }
    readReasoning(text.slice(start));
    return text.length;
  }

  /**
   * An opener was met inside an inline code span: it is code if the span closes on its line
   * (the whole span is text), and read as usual if the line ends first.
   */
  function scanCodeSpan(text: string, start: number): number {
    const limit = Math.min(text.length, start + MAX_CODE_SPAN_HOLD - codeSpanText.length);
    const found = spanClose!.find(text, start, limit);
    if (found >= 0) {
      emitText(codeSpanText.toString() + text.slice(start, found));
      codeSpanText.clear();
      inlineCode.closeSpan();
      spanClose = undefined;
      mode = Mode.Text;
      return found;
    }
    if (found === -1 && limit === text.length) {
      codeSpanText.append(text.slice(start));
      return text.length;
    }
    // The line ended (or the span grew too long to be one): read the held text again as usual.
    releaseCodeSpan();
    return start;
  }

  /** The held opener was not in a one-line span: its text is read again at the top level. */
  function releaseCodeSpan(): void {
    inlineCode.giveUpSpan();
    handBack = codeSpanText.toString();
    codeSpanText.clear();
    spanClose = undefined;
    mode = Mode.Text;
  }

  function scanCall(text: string, start: number): number {
    const before = callRaw.length;
    const allowed = options.maxCallChars - before;
    const end = Math.min(text.length, start + allowed);
    // The body may cut raw text out of what it is given while it reads it (CallContext.callText).
    writeText = text;
    writeStart = start;
    writeEnd = end;
    const stop = body!.write(text, start, end);
    // A body that ended its call before the text it was given would have the top level read
    // the same text again forever: a bug in the body, reported at once.
    if (stop !== -1 && (stop < start || stop > end)) {
      throw new Error(
        `${formatName}: a call body ended its call at ${stop}, outside the text it was given (${start}–${end})`,
      );
    }
    workMeter.characters += (stop === -1 ? end : stop) - start;
    writeText = '';
    writeStart = writeEnd = 0;
    if (stop !== -1) {
      const leftover = body!.leftover ?? '';
      // What follows the call's end, and the characters the body read past it, are not the call's.
      const callEnd = before + stop - start - leftover.length;
      if (callEnd <= 0) {
        // Its opener would be found again where it was, and handed back again, forever.
        throw new Error(
          `${formatName}: a call body handed back ${leftover.length} characters, all of its call (${before + stop - start}) and its opener with them: a call must consume at least its opener's first character`,
        );
      }
      if (outcome?.kind !== 'call') {
        if (callEnd > before) callRaw.append(text.slice(start, start + callEnd - before));
        else callRaw.truncate(callEnd);
      }
      if (leftover.length > 0) handBack = leftover;
      closeCall(offset + stop - leftover.length);
      return stop;
    }
    callRaw.append(text.slice(start, end));
    if (callRaw.length >= options.maxCallChars) {
      body!.abandon();
      outcome = {
        kind: 'fault',
        code: 'call-too-large',
        message: `a tool call exceeded maxCallChars (${options.maxCallChars} characters); it was abandoned and the rest is read as text`,
      };
      closeCall(offset + end);
      return end;
    }
    return text.length;
  }

  function push(chunk: string): ParseEvent[] {
    feed(chunk);
    return release();
  }

  function feed(chunk: string): void {
    textNumber++;
    let text = chunk;
    if (pending.length > 0) {
      text = pending + chunk;
      pending = '';
    }
    let position = 0;
    while (position < text.length) {
      if (mode === Mode.Text) position = scanText(text, position);
      else if (mode === Mode.Reasoning) position = scanReasoning(text, position);
      else if (mode === Mode.Call) position = scanCall(text, position);
      else position = scanCodeSpan(text, position);
      if (handBack.length > 0) {
        const again = handBack;
        handBack = '';
        if (again.length <= position && text.startsWith(again, position - again.length)) {
          // The characters to read again are the text's last read: read on from them.
          position -= again.length;
        } else {
          // They came in an earlier chunk (a call that began there): read them, then the rest.
          // A call begins in an earlier chunk at most once per chunk, so this copy is too.
          offset += position - again.length;
          text = again + text.slice(position);
          workMeter.characters += text.length;
          position = 0;
          textNumber++;
        }
      }
    }
    offset += text.length - pending.length;
  }

  function end(endOptions: EndOptions = {}): ParseEvent[] {
    const interrupted = endOptions.interrupted ?? false;
    // Nothing follows: what was held for the text to come is decided now. An opener held in
    // a code span that never closed is read as usual; an opener that could still have grown
    // into a longer one is the one it is.
    finalText = true;
    let heldFinal = false;
    while (true) {
      if (mode === Mode.CodeSpan) {
        if (spanClose!.closedAtEnd()) {
          emitText(codeSpanText.toString());
          codeSpanText.clear();
          mode = Mode.Text;
        } else {
          releaseCodeSpan();
          const again = handBack;
          handBack = '';
          offset -= again.length;
          feed(again);
        }
        continue;
      }
      const holdsOpener =
        mode === Mode.Text || (mode === Mode.Reasoning && reasoningScan !== undefined);
      if (holdsOpener && pending.length > 0 && !heldFinal) {
        heldFinal = true;
        const again = pending;
        pending = '';
        feed(again);
        continue;
      }
      break;
    }
    finalText = false;
    const held = pending;
    pending = '';
    if (mode === Mode.Call && body) {
      body.finish(interrupted);
      closeCall(offset);
    }
    if (mode === Mode.Reasoning) {
      readReasoning(held);
      closeReasoning();
      callsInOpenReasoning(interrupted);
    } else {
      emitText(held);
    }
    offset += held.length;
    closeText();
    closeReasoning();
    mode = Mode.Text;
    return release();
  }

  /**
   * The output ended inside a reasoning block that was never closed: the complete calls written
   * in it, in this protocol's format, are emitted after it. When the output was interrupted they
   * are reported instead (their text is in the reasoning already), and none runs.
   */
  function callsInOpenReasoning(interrupted: boolean): void {
    const segments = reasoningSegments;
    reasoningSegments = [];
    if (reasoningText.length > 0) {
      segments.push({ start: reasoningStart, text: reasoningText.toString() });
      reasoningText.clear();
    }
    for (const segment of segments) callsInReasoningText(segment, interrupted);
  }

  function callsInReasoningText(
    { start: textStart, text }: ReasoningSegment,
    interrupted: boolean,
  ) {
    const spans: [number, number][] = [];
    const inner = createEngine(
      grammar,
      { ...parseOptions, startInReasoning: false, generateId: options.generateId },
      (start, end) => spans.push([start, end]),
      formatName,
      true,
      undefined,
    );
    const events = inner.push(text);
    for (const event of inner.end()) events.push(event);
    for (const [start, end] of spans) onCallSpan?.(textStart + start, textStart + end);
    if (interrupted) {
      for (const [start, end] of spans) {
        put({
          type: 'error',
          error: {
            code: 'incomplete-call',
            message:
              'the output was cut off inside a reasoning block that was never closed; the call written in it was not run',
            raw: text.slice(start, end),
            offset: textStart + start,
            inReasoning: true,
          },
        });
      }
      return;
    }
    for (const event of events) {
      switch (event.type) {
        case 'tool-input-start':
        case 'tool-input-delta':
        case 'tool-input-end':
          if (keepsInputStream) put(event);
          break;
        case 'tool-call':
          put(event);
      }
    }
  }

  if (mode === Mode.Reasoning) openReasoning(topLevel.allClosers);
  return { push, end };
}
