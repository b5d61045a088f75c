import {
  setOwnProperty,
  type ToolDefinition,
  UNCONSTRAINED_POLICY,
  type ValuePolicy,
} from '../../../core/index.ts';
import { parseJsonText } from '../../../core/parse-json.ts';
import {
  AMPERSAND,
  CARRIAGE_RETURN,
  GREATER_THAN,
  LESS_THAN,
  LINE_FEED,
  SPACE,
  TAB,
} from '../../../scan/char-codes.ts';
import { type CanonicalJsonWriter, createCanonicalJsonWriter } from '../../../scan/json-writer.ts';
import { type TextProbe, textReading } from '../../../schema/index.ts';
import { CallAssembler, MAX_KEPT_ARGUMENT_CHARS } from '../../engine/call-assembler.ts';
import type { CallBody, CallContext, CallOutcome } from '../../engine/call-body.ts';
import { describeProblems } from '../../engine/describe-problems.ts';
import { EntityDecoder } from '../../xml/value-text.ts';
import {
  bareWordName,
  MAX_HEADER_CHARS,
  MAX_SUFFIX_CHARS,
  type ParameterTagsLiterals,
  type ParameterTagsOpener,
  type ParameterTagsSyntax,
  readName,
  readTagHeader,
  suffixedOpener,
  type TagHeader,
  tagLiteralsOf,
} from './parameter-tags-syntax.ts';
import {
  elementValue,
  jsonValueOf,
  NOT_JSON,
  ProbeVerdict,
  policyOf,
  probeVerdict,
  type ValueKind,
  ValueLayout,
} from './parameter-tags-value.ts';
import { DECLINED, readWholeParameterCall } from './parameter-tags-whole-call.ts';

export type { ParameterTagsOpener, ParameterTagsSyntax } from './parameter-tags-syntax.ts';

const State = {
  /** Inside a block, before a call or after one: white space, then a call or the block's end. */
  Block: 0,
  /** A call's tag header (`=NAME>`, ` name="NAME">`), up to `>`. */
  CallHeader: 1,
  /** GLM: the tool's name after the block opener, up to a line break or a tag. */
  CallName: 2,
  /** Between parameters: white space, a parameter, the call's end. */
  Parameters: 3,
  /** A parameter's tag header, up to `>`. */
  ParameterHeader: 4,
  /** GLM: a parameter's name, up to `</arg_key>`. */
  KeyName: 5,
  /** GLM: white space between `</arg_key>` and `<arg_value>`. */
  AfterKey: 6,
  /** Inside a value. */
  Value: 7,
  /** After a call written without its block: a stray block closer models add is dropped. */
  AfterBareCall: 8,
  /**
   * A call of an undeclared tool inside a block: text through its closer. Nothing in it is read
   * again, so markup in its values (another format's call, an `<html>` page) is never a call.
   */
  ForeignCall: 9,
  /**
   * A call written without its block names an undeclared tool: a parameter tag right after the
   * header makes it a call (text through its closer, as in a block); anything else a mention.
   */
  UndeclaredBare: 10,
  /** `suffixedTags`: the block opener's suffix (`:opensource`) up to its `>`. */
  BlockSuffix: 11,
  /** Inside a `<![CDATA[` section of a value, up to `]]>`. */
  Cdata: 12,
  /** `argumentsOpen`: the header of the element holding all the arguments as JSON. */
  ArgumentsHeader: 13,
  /** The JSON object of that element, up to `argumentsClose`. */
  ArgumentsValue: 14,
  /** `blockHeaderClose`: the block opener's header, up to that literal. */
  BlockHeader: 15,
} as const;
type State = (typeof State)[keyof typeof State];

/**
 * A state needs text beyond the end of what it was given before it can go on. Far below any
 * `-(index + 1)` a header search returns for a malformed header.
 */
const HOLD = -0x7fffffff;

/** Longest run of white space read ahead to decide what a closing tag means. */
const MAX_LOOKAHEAD_SPACE = 256;

function isSpace(code: number): boolean {
  return code === SPACE || code === LINE_FEED || code === TAB || code === CARRIAGE_RETURN;
}

/** The first characters of each list of declared names, worked out once per list. */
const nameStartsOf = new WeakMap<ReadonlyMap<string, ToolDefinition>, ReadonlySet<number>>();

/**
 * Whether the character at `at` may begin a declared tool's name as the name reader reads it:
 * `&` may begin a reference that decodes to anything.
 */
function canStartDeclaredName(
  toolsByName: ReadonlyMap<string, ToolDefinition>,
  input: string,
  at: number,
): boolean {
  const code = input.charCodeAt(at);
  if (code === AMPERSAND) return true;
  let starts = nameStartsOf.get(toolsByName);
  if (starts === undefined) {
    const codes = new Set<number>();
    for (const name of toolsByName.keys()) if (name.length > 0) codes.add(name.charCodeAt(0));
    starts = codes;
    nameStartsOf.set(toolsByName, starts);
  }
  return starts.has(code);
}

const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';
const CDATA_LITERALS = [CDATA_OPEN];

/** Where a literal from a set matches at a position. */
type LiteralMatch = { readonly literal: string } | 'partial' | undefined;

/**
 * The calls of one block (or one call written without its block) in a format whose arguments
 * are parameter tags; the syntax is data (`ParameterTagsSyntax`). A plain synchronous state
 * machine: values are scanned with `indexOf('<')`, and the only text held between writes is a
 * tag cut by a chunk's end, a tag header, or the white space after a closing tag that decides
 * what the tag means (all bounded). A call of a block that is already whole in the text at hand
 * is read in one pass by `readWholeParameterCall`, which gives the same events; the state machine
 * reads whatever it declines.
 *
 * Reading rules, from what models write (vLLM's, llama.cpp's, SGLang's and Ollama's parsers and
 * their bug reports):
 * - A value ends at its closing tag when the next thing after it (past white space) is another
 *   tag of the call, or the end of the output; otherwise the closing tag is content. A value also
 *   ends at the next parameter's tag at the start of a line (a missing `</parameter>`), and at the
 *   call's or block's closing tag when a line break, a tag or the end follows it (a missing
 *   `</parameter>` before `</function>`). Any other tag in a value is content.
 * - A missing call closer is implied by the next call or the block's closer; a missing block
 *   closer by text after the last call (the text is read as text).
 * - An undeclared tool's call is text; a call's header that is not one is malformed (reported
 *   with its raw text); a call cut off by the end of the output is reported and never run.
 * - Several calls may share a block; each is reported on its own.
 * - A call written without its block is a mention until a tag of its own follows its header:
 *   prose or a tag of no call there (`<param name="x">`) leaves it text.
 */
export class ParameterTagsBody implements CallBody {
  leftover = '';

  private readonly context: CallContext;
  /** Set anew, with the other literals, once a `suffixedTags` block's suffix is read. */
  private syntax: ParameterTagsSyntax;
  private blockClose: string;
  private readonly bare: boolean;
  private readonly strayClose: string;
  /** Header text the opener consumed (`=` of `<function=`), for the first call's header. */
  private headerPrefix: string;

  private state: State;
  /** Text read but not yet decided on (see HOLD). */
  private held = '';
  /** Where the body ended, in the coordinates of the text being scanned, or -1. */
  private doneAt = -1;
  /** The output has ended: lookahead stops at the end instead of waiting. */
  private final = false;
  /** Calls emitted from this block. */
  private emitted = 0;
  /** The body settled as not a call or as a fault: the engine passes its raw text on. */
  private rawPassedOn = false;
  /** In `Block`, whether a call was just completed (white space after it is not the block's). */
  private afterCall = false;
  /** In `ForeignCall`, the closer that ends the undeclared call. */
  private foreignCloser = '';
  /** The call's header was a near miss (`function=NAME>`): too unsure to hold its text as one. */
  private nearMissHeader = false;
  /**
   * The opener is followed by the tool's name (GLM's `<tool_call>NAME`) and its first character
   * is still to be seen: one no declared name starts with ends the body there.
   */
  private nameStartUnseen = false;

  // ── the call being read ──
  private tool: ToolDefinition | undefined;
  private assembler: CallAssembler | undefined;
  private writer: CanonicalJsonWriter | undefined;
  private policy: ValuePolicy = UNCONSTRAINED_POLICY;
  /** Where the call's markup starts, as an offset in the call body's raw text. */
  private callStart = 0;
  private objectStarted = false;
  private input: Record<string, unknown> = {};
  /** Parameters given in the call being read (made with its first value: calls read whole need none). */
  private given: Set<string> | undefined;
  private keptChars = 0;
  private keepsStrings = true;

  // ── the value being read ──
  private parameter = '';
  private kind: ValueKind = 'raw';
  private valuePolicy: ValuePolicy = UNCONSTRAINED_POLICY;
  /**
   * A held value whose schema admits strings and other types: says when its text can no longer
   * be anything but the string, so the rest streams (the union rule of `coerceText`).
   */
  private textProbe: TextProbe | undefined;
  /** The value's text (held kinds), or the kept text of a streamed string. */
  private valueText = '';
  private stringStarted = false;
  /** GLM: the key's closer was already met twice (only one repeat is dropped). */
  private keyCloseRepeated = false;
  /** The raw value text read so far ends a line (only spaces or tabs since a line break). */
  private atLineStart = true;
  /** Value assembly, made with the first value streamed (calls read whole need none). */
  private layout: ValueLayout | undefined;
  private decoder: EntityDecoder | undefined;
  /** The tags that may end a value, and the tags of a call (met between parameters). */
  private literals!: ParameterTagsLiterals;
  private valueLiterals!: readonly string[];
  private callLiterals!: readonly string[];
  /** The tags that may follow white space in a block. */
  private blockLiterals!: readonly string[];
  /** What ends a tag header (`>`, Kimi K3's `<|sep|>`). */
  private headerClose = '>';
  /** The attributes naming the tool and a parameter in their headers. */
  private nameAttribute = 'name';
  private keyAttribute = 'name';
  /** The opener, kept for a `suffixedTags` block (whose tags are known once its suffix is). */
  private readonly opener: ParameterTagsOpener;
  /** `elementParameters`: parameters are elements named by their keys (MiniMax-M3). */
  private element = false;
  /** The first character of a call's opener, where it is not `<` (MiniMax-M3's `]`). */
  private callStartCode = LESS_THAN;
  /** The tags of a call an element-named parameter is told from, longest decision first. */
  private elementCallLiterals: readonly string[] = [];
  /** The element being read: its own opening and closing tags, and how deep it is nested in itself. */
  private elementOpenTag = '';
  private elementCloseTag = '';
  private elementDepth = 0;

  constructor(context: CallContext, opener: ParameterTagsOpener) {
    this.context = context;
    this.opener = opener;
    this.syntax = opener.syntax;
    this.blockClose = opener.blockClose ?? '';
    this.bare = opener.bare !== undefined;
    this.strayClose = opener.bare?.strayClose ?? '';
    this.headerPrefix = opener.bare?.consumed ?? '';
    this.useOpener(opener);
    if (this.syntax.blockOpenHoldsCall && !this.bare) {
      this.state =
        this.syntax.nameAsText || this.syntax.callOpen === '' ? State.CallName : State.CallHeader;
    } else if (this.syntax.blockHeaderClose && !this.bare) this.state = State.BlockHeader;
    else if (this.syntax.suffixedTags && !this.bare) this.state = State.BlockSuffix;
    else if (this.bare) this.state = State.CallHeader;
    else if (this.syntax.callOpen === '') {
      this.state = State.CallName;
      this.nameStartUnseen = true;
    } else this.state = State.Block;
  }

  /** Takes the syntax and literals of `opener` (the body's own, or it with a suffix read). */
  private useOpener(opener: ParameterTagsOpener): void {
    const syntax = opener.syntax;
    this.syntax = syntax;
    this.blockClose = opener.blockClose ?? '';
    this.literals = tagLiteralsOf(opener);
    this.valueLiterals = this.literals.valueLiterals;
    this.callLiterals = this.literals.callLiterals;
    this.blockLiterals = this.literals.blockLiterals;
    this.headerClose = syntax.headerClose || '>';
    this.nameAttribute = syntax.nameAttribute || 'name';
    this.keyAttribute = syntax.keyAttribute || 'name';
    this.element = syntax.elementParameters === true;
    this.callStartCode = syntax.callOpen === '' ? LESS_THAN : syntax.callOpen.charCodeAt(0);
    this.elementCallLiterals = this.element
      ? [
          syntax.callClose,
          this.blockClose,
          syntax.callOpen,
          syntax.parameterClose,
          syntax.parameterOpen,
        ].filter((literal) => literal !== '')
      : [];
  }

  write(text: string, start: number, end: number): number {
    let input = text;
    let index = start;
    let limit = end;
    const heldLength = this.held.length;
    if (heldLength > 0) {
      input = this.held + text.slice(start, end);
      index = 0;
      limit = input.length;
      this.held = '';
    }
    this.run(input, index, limit);
    if (this.doneAt === -1) return -1;
    if (heldLength === 0) return this.doneAt;
    if (this.doneAt >= heldLength) return start + (this.doneAt - heldLength);
    this.leftover = input.slice(this.doneAt, heldLength);
    return start;
  }

  private run(input: string, start: number, limit: number): void {
    let index = start;
    while (index < limit && this.doneAt === -1) {
      const next = this.step(input, index, limit);
      if (next === HOLD) {
        this.held = input.slice(index, limit);
        return;
      }
      index = next;
    }
  }

  private step(input: string, index: number, limit: number): number {
    switch (this.state) {
      case State.Value:
        return this.element
          ? this.scanElementValue(input, index, limit)
          : this.scanValue(input, index, limit);
      case State.Parameters:
        return this.element
          ? this.scanElementParameters(input, index, limit)
          : this.scanParameters(input, index, limit);
      case State.ParameterHeader:
        return this.element
          ? this.scanElementHeader(input, index, limit)
          : this.scanParameterHeader(input, index, limit);
      case State.KeyName:
        return this.scanKeyName(input, index, limit);
      case State.AfterKey:
        return this.scanAfterKey(input, index, limit);
      case State.Block:
        return this.scanBlock(input, index, limit);
      case State.CallHeader:
        return this.scanCallHeader(input, index, limit);
      case State.CallName:
        return this.scanCallName(input, index, limit);
      case State.AfterBareCall:
        return this.scanAfterBareCall(input, index, limit);
      case State.ForeignCall:
        return this.scanForeignCall(input, index, limit);
      case State.UndeclaredBare:
        return this.scanUndeclaredBare(input, index, limit);
      case State.BlockSuffix:
        return this.scanBlockSuffix(input, index, limit);
      case State.Cdata:
        return this.scanCdata(input, index, limit);
      case State.ArgumentsHeader:
        return this.scanArgumentsHeader(input, index, limit);
      case State.ArgumentsValue:
        return this.scanArgumentsValue(input, index, limit);
      case State.BlockHeader:
        return this.scanBlockHeader(input, index, limit);
    }
  }

  /** Offset of `input[index]` in the call body's raw text, while `input[…, limit)` is written. */
  private offsetOf(index: number, limit: number): number {
    return this.context.callLength - (limit - index);
  }

  /**
   * Which of `literals` starts at `input[index]`: a match, 'partial' (the text ends inside one
   * and more may come), or undefined.
   */
  private matchAt(
    input: string,
    index: number,
    limit: number,
    literals: readonly string[],
  ): LiteralMatch {
    let partial = false;
    for (const literal of literals) {
      if (literal === '') continue;
      const available = limit - index;
      if (available >= literal.length) {
        if (input.startsWith(literal, index)) return { literal };
      } else if (!this.final && literal.startsWith(input.slice(index, limit))) {
        partial = true;
      }
    }
    return partial ? 'partial' : undefined;
  }

  private settleRaw(outcome: CallOutcome): void {
    this.rawPassedOn = true;
    this.context.settle(outcome);
  }

  private finishAt(index: number): number {
    this.doneAt = index;
    return index;
  }

  // ── blocks and calls ──────────────────────────────────────────────────────────────────────

  private scanBlock(input: string, index: number, limit: number): number {
    let at = index;
    while (at < limit && isSpace(input.charCodeAt(at))) at++;
    if (at === limit) {
      if (!this.afterCall) return limit;
      if (this.final || at - index > MAX_LOOKAHEAD_SPACE) return this.endBlockAfterCall(index);
      return HOLD;
    }
    if (this.literals.betweenCalls.length > 0) {
      // Per-call framing around the call's own tags (Step-3's `<｜tool_call_begin｜>`): dropped.
      const framing = this.matchAt(input, at, limit, this.literals.betweenCalls);
      if (framing === 'partial') return HOLD;
      if (framing !== undefined) return at + framing.literal.length;
    }
    if (this.syntax.nameBeforeCall && input.charCodeAt(at) !== LESS_THAN) {
      const call = this.callAfterName(input, at, limit);
      if (call === HOLD) return HOLD;
      if (call !== -1) return call;
    }
    const first = input.charCodeAt(at);
    const match =
      first === LESS_THAN || first === this.callStartCode
        ? this.matchAt(input, at, limit, this.blockLiterals)
        : this.syntax.nearMisses
          ? this.matchAt(input, at, limit, this.literals.bracketLost)
          : undefined;
    if (match === 'partial') return HOLD;
    if (match === undefined) {
      if (this.afterCall) return this.endBlockAfterCall(index);
      this.settleRaw({ kind: 'not-a-call' });
      return this.finishAt(at);
    }
    if (match.literal === this.literals.bracketLost[0]) {
      // `<tool_call>function=NAME>`: the call's opener lost its `<`; its header is read as usual
      // (an undeclared name leaves the block as text, read on at the name).
      this.afterCall = false;
      this.nearMissHeader = true;
      this.callStart = this.offsetOf(at, limit);
      this.state = State.CallHeader;
      return at + match.literal.length - 1;
    }
    if (match.literal === this.blockClose) {
      if (this.emitted === 0) this.settleRaw({ kind: 'not-a-call' });
      return this.finishAt(at + match.literal.length);
    }
    const headerStart = at + match.literal.length;
    if (this.syntax.nameAsText) {
      this.afterCall = false;
      this.callStart = this.offsetOf(at, limit);
      this.state = State.CallName;
      return headerStart;
    }
    // A call already whole in the text at hand is read in one go; the rest streams.
    const wholeEnd = readWholeParameterCall(
      this.context,
      this.syntax,
      this.literals,
      input,
      headerStart,
      limit,
    );
    if (wholeEnd !== DECLINED) {
      this.emitted++;
      this.afterCall = true;
      return wholeEnd;
    }
    this.afterCall = false;
    this.callStart = this.offsetOf(at, limit);
    this.state = State.CallHeader;
    return headerStart;
  }

  /**
   * Where a call's opener starts after one word (and white space) at `at`: the word is the
   * tool's name written before the call (`nameBeforeCall`). -1 when the text is not that; HOLD
   * while it cannot be told.
   */
  private callAfterName(input: string, at: number, limit: number): number {
    const stop = Math.min(limit, at + MAX_HEADER_CHARS);
    let spaceSeen = false;
    for (let index = at; index < stop; index++) {
      const code = input.charCodeAt(index);
      if (code === LESS_THAN) {
        const match = this.matchAt(input, index, limit, [this.syntax.callOpen]);
        if (match === 'partial') return HOLD;
        return match === undefined ? -1 : index;
      }
      if (isSpace(code)) spaceSeen = true;
      else if (spaceSeen) return -1;
    }
    return stop === limit && !this.final ? HOLD : -1;
  }

  /** The block's closer is missing: the block ended with its last call, at `index`. */
  private endBlockAfterCall(index: number): number {
    return this.finishAt(index);
  }

  /** A call's tag header, read whole once its `>` has come. */
  private scanCallHeader(input: string, index: number, limit: number): number {
    const close = this.headerEnd(input, index, limit);
    if (close === HOLD) return HOLD;
    if (close < 0) return this.malformedHeader(input, index, limit, -close - 1);
    const raw = this.headerPrefix + input.slice(index, close);
    this.headerPrefix = '';
    const header = readTagHeader(raw, this.nameAttribute, this.syntax);
    if (header === undefined) {
      // `<function bash>` (Step 3.5): a space for `=`, read only when it names a declared tool.
      const name = this.syntax.nearMisses ? bareWordName(raw) : undefined;
      if (name !== undefined && this.context.options.toolsByName.has(name)) {
        return this.openCall(name, close + this.headerClose.length, limit);
      }
      return this.malformedHeader(input, index, limit, close);
    }
    return this.openCall(header.name, close + this.headerClose.length, limit);
  }

  /**
   * The index of the `>` ending a header that starts at `index`; HOLD when it may still come;
   * `-(i + 1)` when the header is not one (a line break or `<` at `i`, or too long).
   */
  private headerEnd(input: string, index: number, limit: number): number {
    const stop = Math.min(limit, index + MAX_HEADER_CHARS);
    const close = this.headerClose;
    if (close === '>') {
      for (let at = index; at < stop; at++) {
        const code = input.charCodeAt(at);
        if (code === GREATER_THAN) return at;
        if (code === LESS_THAN || code === LINE_FEED) return -(at + 1);
      }
    } else {
      const first = close.charCodeAt(0);
      for (let at = index; at < stop; at++) {
        const code = input.charCodeAt(at);
        if (code === first) {
          if (limit - at < close.length) {
            if (!this.final && close.startsWith(input.slice(at, limit))) return HOLD;
          } else if (input.startsWith(close, at)) return at;
        }
        if (code === LESS_THAN || code === LINE_FEED) return -(at + 1);
      }
    }
    if (stop === limit && !this.final) return HOLD;
    return -(stop + 1);
  }

  private malformedHeader(input: string, index: number, limit: number, at: number): number {
    if (this.bare && this.emitted === 0) {
      this.settleRaw({ kind: 'not-a-call' });
      return this.finishAt(index);
    }
    const message = `the tag that opens a call is not complete (${JSON.stringify(
      input.slice(index, Math.min(at, index + 80)),
    )})`;
    return this.failWithoutCall(message, at, limit);
  }

  /** A call's markup is malformed before its tool is known: reported with its raw text. */
  private failWithoutCall(message: string, at: number, limit: number): number {
    if (this.emitted === 0) {
      this.settleRaw({ kind: 'fault', code: 'malformed-call', message });
    } else {
      this.context.reportFault({
        code: 'malformed-call',
        message,
        raw: this.context.callText(this.callStart, this.offsetOf(at, limit)),
      });
    }
    return this.finishAt(at);
  }

  private scanCallName(input: string, index: number, limit: number): number {
    if (this.nameStartUnseen) {
      const start = this.nameStart(input, index, limit);
      if (start === HOLD) return HOLD;
      this.nameStartUnseen = false;
      // Another format's call after the same opener (hermes's `<tool_call>\n{`): not one of
      // this format's, told at its first character instead of read to the closer.
      if (start !== -1 && !canStartDeclaredName(this.context.options.toolsByName, input, start)) {
        return this.mentionAt(index);
      }
    }
    let at = index;
    const stop = Math.min(limit, index + MAX_HEADER_CHARS);
    while (at < stop) {
      const code = input.charCodeAt(at);
      if (code === LINE_FEED || code === LESS_THAN) break;
      at++;
    }
    if (at === stop && stop === limit && !this.final) return HOLD;
    const nameClose = this.syntax.nameClose;
    let after = at < limit && input.charCodeAt(at) === LINE_FEED ? at + 1 : at;
    if (nameClose && at < limit && input.charCodeAt(at) === LESS_THAN) {
      // Hy3's `<tool_call>NAME<tool_sep>`: the name's closer, dropped when written.
      const match = this.matchAt(input, at, limit, [nameClose]);
      if (match === 'partial') return HOLD;
      if (match !== undefined) after = at + match.literal.length;
    }
    const name = readName(input.slice(index, at));
    return this.openCall(name, after, limit, index);
  }

  /**
   * Where the name's first character is, past white space (a line break too: the name is then
   * empty, but what follows still tells whose call this is); -1 when the white space runs on
   * too long or to the output's end, HOLD while it may still come.
   */
  private nameStart(input: string, index: number, limit: number): number {
    const stop = Math.min(limit, index + MAX_LOOKAHEAD_SPACE);
    let at = index;
    while (at < stop && isSpace(input.charCodeAt(at))) at++;
    if (at < stop) return at;
    return stop === limit && !this.final ? HOLD : -1;
  }

  /** The tool is named: a call starts (or, for an undeclared tool, the text goes on as text). */
  private openCall(name: string, after: number, limit: number, nameStart = after): number {
    const tool = this.toolNamed(name);
    if (tool === undefined) {
      // Inside a block the call is plainly one, of a tool the request did not declare: its text
      // runs to its closer. A bare opener may be a mention in prose, so it ends at the name.
      if (this.bare && this.emitted === 0 && this.syntax.callClose !== '') {
        this.state = State.UndeclaredBare;
        return after;
      }
      const closer =
        this.bare || this.nearMissHeader ? '' : this.syntax.callClose || this.blockClose;
      if (closer !== '') {
        this.foreignCloser = closer;
        this.state = State.ForeignCall;
        return after;
      }
      if (this.emitted === 0) {
        this.settleRaw({ kind: 'not-a-call' });
        return this.finishAt(this.syntax.callOpen === '' ? nameStart : after);
      }
      this.context.emitText(this.context.callText(this.callStart, this.offsetOf(after, limit)));
      return this.finishAt(after);
    }
    this.tool = tool;
    this.policy = policyOf(tool);
    this.assembler = new CallAssembler(this.context, tool);
    this.writer = createCanonicalJsonWriter(this.assembler.delta);
    this.objectStarted = false;
    this.input = {};
    this.given?.clear();
    this.keptChars = 0;
    this.keepsStrings = true;
    // A call without its wrapper (`<function=NAME>` alone) is announced with its first value:
    // Hermes and Llama write the same opener with JSON after it, and `auto` must tell them apart.
    if (!this.bare) this.assembler.start();
    this.state = State.Parameters;
    return after;
  }

  /** The declared tool `name` names (`f.f` names `f` when the syntax reads repeated names). */
  private toolNamed(name: string): ToolDefinition | undefined {
    const toolsByName = this.context.options.toolsByName;
    const tool = toolsByName.get(name);
    if (tool !== undefined || !this.syntax.repeatedNames) return tool;
    const half = (name.length - 1) / 2;
    if (!Number.isInteger(half) || half === 0 || name.charCodeAt(half) !== 0x2e) return undefined;
    const first = name.slice(0, half);
    return name.endsWith(first) ? toolsByName.get(first) : undefined;
  }

  /**
   * After a `suffixedTags` block's opener (`<tool_calls`): its suffix (`:opensource`) up to `>`.
   * The block's tags are then read with that suffix; anything else is not the block.
   */
  private scanBlockSuffix(input: string, index: number, limit: number): number {
    const stop = Math.min(limit, index + MAX_SUFFIX_CHARS + 1);
    const first = input.charCodeAt(index);
    if (first !== GREATER_THAN && first !== 0x3a) return this.notTheBlock(index);
    for (let at = index; at < stop; at++) {
      const code = input.charCodeAt(at);
      if (code === GREATER_THAN) {
        const suffix = input.slice(index, at);
        if (suffix === ':') return this.notTheBlock(index);
        this.useOpener(suffixedOpener(this.opener, suffix));
        this.state = this.syntax.callOpen === '' ? State.CallName : State.Block;
        return at + 1;
      }
      if (code === LESS_THAN || isSpace(code) || code === 0x2f) return this.notTheBlock(index);
    }
    if (stop === limit && !this.final) return HOLD;
    return this.notTheBlock(index);
  }

  /** The block opener's header (Muse Glimmer's recipient), up to `blockHeaderClose`. */
  private scanBlockHeader(input: string, index: number, limit: number): number {
    const close = this.syntax.blockHeaderClose!;
    const first = close.charCodeAt(0);
    const stop = Math.min(limit, index + MAX_HEADER_CHARS);
    for (let at = index; at < stop; at++) {
      const code = input.charCodeAt(at);
      if (code === first) {
        if (limit - at < close.length) {
          if (!this.final && close.startsWith(input.slice(at, limit))) return HOLD;
        } else if (input.startsWith(close, at)) {
          if (this.syntax.suffixedTags) this.state = State.BlockSuffix;
          else this.state = this.syntax.callOpen === '' ? State.CallName : State.Block;
          return at + close.length;
        }
      }
      if (code === LESS_THAN || code === LINE_FEED) return this.notTheBlock(index);
    }
    if (stop === limit && !this.final) return HOLD;
    return this.notTheBlock(index);
  }

  private notTheBlock(index: number): number {
    this.settleRaw({ kind: 'not-a-call' });
    return this.finishAt(index);
  }

  private scanAfterBareCall(input: string, index: number, limit: number): number {
    let at = index;
    while (at < limit && isSpace(input.charCodeAt(at))) at++;
    if (at === limit) {
      if (this.final || at - index > MAX_LOOKAHEAD_SPACE) return this.finishAt(index);
      return HOLD;
    }
    const match = this.matchAt(input, at, limit, [this.strayClose]);
    if (match === 'partial') return HOLD;
    if (match === undefined) return this.finishAt(index);
    return this.finishAt(at + match.literal.length);
  }

  /** After an undeclared tool's bare header: its first parameter tag, or a mention in prose. */
  private scanUndeclaredBare(input: string, index: number, limit: number): number {
    let at = index;
    while (at < limit && isSpace(input.charCodeAt(at))) at++;
    if (at - index > MAX_LOOKAHEAD_SPACE) return this.mentionAt(index);
    if (at === limit) return this.final ? this.mentionAt(index) : HOLD;
    const match = this.matchAt(input, at, limit, [this.syntax.parameterOpen]);
    if (match === 'partial') return HOLD;
    if (match === undefined) return this.mentionAt(index);
    this.foreignCloser = this.syntax.callClose;
    this.state = State.ForeignCall;
    return at;
  }

  /** The bare header was a mention: it is text, and what follows it is read as usual. */
  private mentionAt(index: number): number {
    this.settleRaw({ kind: 'not-a-call' });
    return this.finishAt(index);
  }

  /** An undeclared tool's call, up to its closer (a tail that may begin it is held). */
  private scanForeignCall(input: string, index: number, limit: number): number {
    const closer = this.foreignCloser;
    const found = input.indexOf(closer, index);
    if (found !== -1 && found + closer.length <= limit) {
      return this.endForeignCall(found + closer.length, limit);
    }
    let keep = Math.min(closer.length - 1, limit - index);
    while (keep > 0 && !closer.startsWith(input.slice(limit - keep, limit))) keep--;
    if (keep === 0) return limit;
    return limit - keep > index ? limit - keep : HOLD;
  }

  /** The undeclared call ended at `end`: its text is text, and the block goes on after it. */
  private endForeignCall(end: number, limit: number): number {
    if (this.emitted === 0) {
      // Nothing of the block was a call: the engine passes it on as text, and reads on after it.
      this.settleRaw({ kind: 'not-a-call' });
      return this.finishAt(end);
    }
    this.context.emitText(this.context.callText(this.callStart, this.offsetOf(end, limit)));
    if (this.foreignCloser === this.blockClose) return this.finishAt(end);
    this.state = State.Block;
    this.afterCall = true;
    return end;
  }

  // ── parameters ────────────────────────────────────────────────────────────────────────────

  private scanParameters(input: string, index: number, limit: number): number {
    let at = index;
    while (at < limit && isSpace(input.charCodeAt(at))) at++;
    if (at === limit) return limit;
    if (input.charCodeAt(at) !== LESS_THAN) {
      // A call's own tag alone, then prose (`Use <function=bash> to run it`): a mention.
      if (this.isBareMention()) {
        this.settleRaw({ kind: 'not-a-call' });
        return this.finishAt(at);
      }
      // Stray text between parameters is markup of the call, not a value: skip it.
      const next = input.indexOf('<', at);
      return next === -1 || next >= limit ? limit : next;
    }
    const syntax = this.syntax;
    const match = this.matchAt(input, at, limit, this.callLiterals);
    if (match === 'partial') return HOLD;
    if (match === undefined) {
      const closer = this.matchAt(input, at, limit, [syntax.parameterClose]);
      if (closer === 'partial') return HOLD;
      if (closer !== undefined) {
        // A value's closer with no value open (written twice): dropped and reported.
        this.dropRepeatedCloser(closer.literal);
        return at + closer.literal.length;
      }
      // A call's own tag alone, then a tag of no call (`<param name="path">`): a mention too.
      // Decided here, at the tag's `<`, so a chunk's end inside the tag changes nothing.
      if (this.isBareMention()) {
        this.settleRaw({ kind: 'not-a-call' });
        return this.finishAt(at);
      }
      const next = input.indexOf('<', at + 1);
      return next === -1 || next >= limit ? limit : next;
    }
    const literal = match.literal;
    const after = at + literal.length;
    if (literal === syntax.parameterOpen) {
      this.state = syntax.keyClose === undefined ? State.ParameterHeader : State.KeyName;
      return after;
    }
    if (literal === syntax.callClose) {
      this.completeCall();
      return this.afterCallClose(after);
    }
    if (literal === syntax.argumentsOpen) {
      this.state = State.ArgumentsHeader;
      return after;
    }
    if (literal === this.blockClose || literal === this.strayClose) {
      this.completeCall();
      return this.finishAt(after);
    }
    // The next call begins: this one's closer is missing.
    this.completeCall();
    if (this.bare) return this.finishAt(at);
    this.state = State.Block;
    this.afterCall = true;
    return at;
  }

  /**
   * A call's opening tag written without its block, with no parameter or closer after it yet:
   * until one comes it may be a mention in prose, and it is nothing announced.
   */
  private isBareMention(): boolean {
    return this.bare && this.emitted === 0 && (this.given === undefined || this.given.size === 0);
  }

  /** After a call's own closer: the next call or the block's end (or, bare, a stray closer). */
  private afterCallClose(after: number): number {
    if (this.bare) {
      if (this.strayClose === '') return this.finishAt(after);
      this.state = State.AfterBareCall;
      return after;
    }
    if (this.syntax.callClose === '') return this.finishAt(after);
    this.state = State.Block;
    this.afterCall = true;
    return after;
  }

  private scanParameterHeader(input: string, index: number, limit: number): number {
    const close = this.headerEnd(input, index, limit);
    if (close === HOLD) return HOLD;
    const header =
      close >= 0
        ? readTagHeader(input.slice(index, close), this.keyAttribute, this.syntax)
        : undefined;
    if (header === undefined) {
      // `<parameters>` or a broken tag: stray markup between parameters.
      this.state = State.Parameters;
      return close >= 0 ? close + this.headerClose.length : -close - 1;
    }
    this.openValue(header);
    return close + this.headerClose.length;
  }

  private scanKeyName(input: string, index: number, limit: number): number {
    const stop = Math.min(limit, index + MAX_HEADER_CHARS);
    const next = input.indexOf('<', index);
    if (next === -1 || next >= stop) {
      if (stop === limit && !this.final) return HOLD;
      return this.failCall('malformed-call', 'a parameter name was not closed', stop, limit);
    }
    const match = this.matchAt(input, next, limit, [this.syntax.keyClose!]);
    if (match === 'partial') return HOLD;
    if (match === undefined) {
      return this.failCall(
        'malformed-call',
        `the name of a parameter was not closed by ${this.syntax.keyClose}`,
        next,
        limit,
      );
    }
    this.parameter = readName(input.slice(index, next));
    this.keyCloseRepeated = false;
    if (this.syntax.valueOpen === '') {
      // Solar Open 2's `<|tool_arg:start|>k<|tool_arg:value|>v`: the value follows the key's closer.
      this.openValue({ name: this.parameter });
      return next + match.literal.length;
    }
    this.state = State.AfterKey;
    return next + match.literal.length;
  }

  private scanAfterKey(input: string, index: number, limit: number): number {
    let at = index;
    while (at < limit && isSpace(input.charCodeAt(at))) at++;
    if (at === limit) return limit;
    const syntax = this.syntax;
    const match = this.matchAt(
      input,
      at,
      limit,
      this.keyCloseRepeated ? [syntax.valueOpen!] : [syntax.valueOpen!, syntax.keyClose!],
    );
    if (match === 'partial') return HOLD;
    if (match !== undefined && match.literal === syntax.keyClose) {
      // `<arg_key>path</arg_key></arg_key>` (vLLM #54971): the key's closer written twice.
      this.keyCloseRepeated = true;
      this.dropRepeatedCloser(match.literal);
      return at + match.literal.length;
    }
    if (match === undefined) {
      return this.failCall(
        'malformed-call',
        `the parameter "${this.parameter}" has no ${this.syntax.valueOpen}`,
        at,
        limit,
      );
    }
    this.openValue({ name: this.parameter });
    return at + match.literal.length;
  }

  // ── values ────────────────────────────────────────────────────────────────────────────────

  private openValue(header: TagHeader): void {
    const name = header.name;
    this.parameter = name;
    this.state = State.Value;
    this.atLineStart = true;
    this.valueText = '';
    this.stringStarted = false;
    if (this.layout === undefined) {
      this.layout = new ValueLayout(this.syntax.layout, (piece) => this.valuePiece(piece));
      this.decoder = this.syntax.decodeEntities ? new EntityDecoder(this.layout) : undefined;
    }
    this.layout.reset();
    this.given ??= new Set();
    if (this.given.has(name)) {
      this.kind = 'discard';
      this.assembler!.addProblem({
        path: `/${name}`,
        keyword: 'duplicate',
        message: `parameter "${name}" was given more than once; only the first value was used`,
      });
      return;
    }
    this.given.add(name);
    const policy = this.policy.property(name);
    this.valuePolicy = policy;
    if (header.string === false) this.kind = 'json';
    else if (policy === UNCONSTRAINED_POLICY) this.kind = header.string ? 'raw' : 'probe';
    else {
      const reading = textReading(policy);
      this.kind = reading.asString ? 'raw' : 'held';
      this.textProbe = reading.asString ? undefined : reading.probe();
    }
  }

  private scanValue(input: string, index: number, limit: number): number {
    const syntax = this.syntax;
    let from = index;
    let match: LiteralMatch;
    for (;;) {
      const next = input.indexOf('<', from);
      if (next === -1 || next >= limit) {
        this.feed(input, index, limit);
        return limit;
      }
      if (syntax.cdata) {
        const cdata = this.matchAt(input, next, limit, CDATA_LITERALS);
        if (cdata !== undefined) {
          if (next > index) {
            this.feed(input, index, next);
            return next;
          }
          if (cdata === 'partial') return HOLD;
          this.state = State.Cdata;
          return next + CDATA_OPEN.length;
        }
      }
      match = this.matchAt(input, next, limit, this.valueLiterals);
      // A tag that is not the call's own is content: the text is passed on in one piece, up to
      // the next tag that may be.
      const isContent =
        match === undefined ||
        (match !== 'partial' &&
          match.literal === syntax.parameterOpen &&
          !this.lineStartAt(input, index, next));
      if (!isContent) {
        if (next > index) {
          this.feed(input, index, next);
          return next;
        }
        break;
      }
      from = next + 1;
    }
    if (match === 'partial') return HOLD;
    const literal = match!.literal;
    const after = index + literal.length;
    if (literal === syntax.parameterOpen) {
      // The next parameter at the start of a line: this value's closer is missing.
      this.closeValue(false);
      this.state = State.Parameters;
      return index;
    }
    const isParameterClose = literal === syntax.parameterClose;
    const decision = this.closerFollows(input, after, limit, isParameterClose);
    if (decision === HOLD) return HOLD;
    if (decision === -1) {
      // Content after all: the tag and the white space after it are part of the value.
      const resume = this.skipSpace(input, after, limit);
      this.feed(input, index, resume);
      return resume;
    }
    this.closeValue(isParameterClose);
    if (isParameterClose) {
      this.state = State.Parameters;
      return after;
    }
    this.completeCall();
    if (literal === syntax.callClose) return this.afterCallClose(after);
    return this.finishAt(after);
  }

  /** A value's CDATA section, up to `]]>`: its text is the value's as it is. */
  private scanCdata(input: string, index: number, limit: number): number {
    const end = input.indexOf(CDATA_CLOSE, index);
    if (end !== -1 && end + CDATA_CLOSE.length <= limit) {
      this.feedContent(input.slice(index, end));
      this.state = State.Value;
      return end + CDATA_CLOSE.length;
    }
    // Keep a tail that may begin `]]>`.
    let keep = Math.min(CDATA_CLOSE.length - 1, limit - index);
    while (keep > 0 && !CDATA_CLOSE.startsWith(input.slice(limit - keep, limit))) keep--;
    if (this.final) keep = 0;
    if (limit - keep > index) {
      this.feedContent(input.slice(index, limit - keep));
      return limit - keep;
    }
    return HOLD;
  }

  private feedContent(piece: string): void {
    if (piece.length === 0) return;
    this.decoder?.end();
    this.trackLineStart(piece);
    this.layout!.content(piece);
  }

  private skipSpace(input: string, from: number, limit: number): number {
    let at = from;
    while (at < limit && isSpace(input.charCodeAt(at))) at++;
    return at;
  }

  /**
   * Whether a closing tag met in a value (ending at `after`) closes it: 1 yes, -1 no (content),
   * HOLD (undecided until more text comes). A value's own closer counts when another tag of the
   * call follows it; the call's or block's closer (a missing value closer) also when a line
   * break follows it.
   */
  private closerFollows(
    input: string,
    after: number,
    limit: number,
    isParameterClose: boolean,
  ): number {
    let at = after;
    let lineBreak = false;
    while (at < limit) {
      const code = input.charCodeAt(at);
      if (!isSpace(code)) break;
      if (code === LINE_FEED) lineBreak = true;
      at++;
    }
    if (!isParameterClose && lineBreak) return 1;
    if (at === limit) {
      return this.final || at - after > MAX_LOOKAHEAD_SPACE ? 1 : HOLD;
    }
    if (input.charCodeAt(at) !== LESS_THAN) return -1;
    const match = this.matchAt(input, at, limit, this.callLiterals);
    if (match === 'partial') return HOLD;
    if (match !== undefined) return 1;
    if (!isParameterClose) return -1;
    // The closer written twice (`</arg_value></arg_value>`, a near miss of real outputs): the
    // first closes the value when a tag of the call follows the second, which is dropped.
    const repeated = this.matchAt(input, at, limit, [this.syntax.parameterClose]);
    if (repeated === 'partial') return HOLD;
    if (repeated === undefined) return -1;
    const next = this.skipSpace(input, at + repeated.literal.length, limit);
    if (next === limit) return this.final || next - after > MAX_LOOKAHEAD_SPACE ? 1 : HOLD;
    if (input.charCodeAt(next) !== LESS_THAN) return -1;
    const follows = this.matchAt(input, next, limit, this.callLiterals);
    if (follows === 'partial') return HOLD;
    return follows === undefined ? -1 : 1;
  }

  /**
   * A closing tag written again right after the tag it closes (`</arg_key></arg_key>`,
   * `</parameter></parameter>`): dropped from the call, which goes on, and reported.
   */
  private dropRepeatedCloser(literal: string): void {
    const assembler = this.assembler!;
    this.context.reportFault({
      code: 'stray-markup',
      message: `"${literal}" in the call to "${assembler.tool.name}" closes nothing; it was dropped`,
      raw: literal,
      toolName: assembler.tool.name,
      ...(assembler.hasStarted ? { toolCallId: assembler.toolCallId } : {}),
      dropped: true,
    });
  }

  /** Passes raw value text on (through the entity decoder when the format has one). */
  private feed(input: string, from: number, to: number): void {
    if (to <= from) return;
    const piece = from === 0 && to === input.length ? input : input.slice(from, to);
    this.trackLineStart(piece);
    if (this.decoder) this.decoder.write(piece);
    else this.layout!.literal(piece);
  }

  /** Whether the value's raw text up to `input[at]` (fed up to `index`) ends a line. */
  private lineStartAt(input: string, index: number, at: number): boolean {
    for (let position = at - 1; position >= index; position--) {
      const code = input.charCodeAt(position);
      if (code !== SPACE && code !== TAB) return code === LINE_FEED;
    }
    return this.atLineStart;
  }

  private trackLineStart(piece: string): void {
    for (let index = piece.length - 1; index >= 0; index--) {
      const code = piece.charCodeAt(index);
      if (code === SPACE || code === TAB) continue;
      this.atLineStart = code === LINE_FEED;
      return;
    }
  }

  /** Value text after layout: streamed, held, or probed. */
  private valuePiece(piece: string): void {
    switch (this.kind) {
      case 'raw':
        this.streamString(piece);
        return;
      case 'probe': {
        const text = this.valueText + piece;
        if (probeVerdict(text) === ProbeVerdict.Text) {
          this.kind = 'raw';
          this.valueText = '';
          this.streamString(text);
        } else this.valueText = text;
        return;
      }
      case 'discard':
        return;
      default:
        this.valueText += piece;
        if (this.textProbe !== undefined && !this.textProbe.push(piece)) {
          // The text can only be the string now: what was held goes out, the rest streams.
          const text = this.valueText;
          this.kind = 'raw';
          this.valueText = '';
          this.textProbe = undefined;
          this.streamString(text);
        }
    }
  }

  private streamString(piece: string): void {
    const writer = this.writer!;
    if (!this.stringStarted) {
      this.stringStarted = true;
      this.startObject();
      writer.key(this.parameter);
      writer.startString();
    }
    writer.stringChunk(piece);
    if (!this.keepsStrings) return;
    this.keptChars += piece.length;
    if (this.keptChars > MAX_KEPT_ARGUMENT_CHARS) {
      this.keepsStrings = false;
      this.valueText = '';
    } else this.valueText += piece;
  }

  /** The value ends, by its own closer (`ownCloser`) or by a tag that implies it. */
  private closeValue(ownCloser = true): void {
    if (this.element) {
      this.closeElementValue();
      return;
    }
    this.decoder?.end();
    this.layout!.end(ownCloser);
    const name = this.parameter;
    switch (this.kind) {
      case 'discard':
        break;
      case 'raw': {
        if (!this.stringStarted) this.streamString('');
        this.writer!.endString();
        // Set even when strings are no longer kept: the input is then read back from the JSON.
        setOwnProperty(this.input, name, this.valueText);
        break;
      }
      case 'probe': {
        const value = jsonValueOf(this.valueText, this.context.options.maxDepth);
        this.writeValue(name, value === NOT_JSON ? this.valueText : value);
        break;
      }
      case 'json': {
        const value = jsonValueOf(this.valueText, this.context.options.maxDepth);
        this.writeValue(name, this.valuePolicy.coerce(value === NOT_JSON ? this.valueText : value));
        break;
      }
      default:
        this.writeValue(name, textReading(this.valuePolicy).type(this.valueText));
    }
    this.valueText = '';
    this.textProbe = undefined;
  }

  private writeValue(name: string, value: unknown): void {
    this.startObject();
    this.writer!.key(name);
    this.writer!.value(value);
    setOwnProperty(this.input, name, value);
  }

  private startObject(): void {
    if (this.objectStarted) return;
    this.objectStarted = true;
    this.writer!.startObject();
  }

  // ── all the arguments in one JSON element (Kimi K3's `json`) ────────────────────────────────

  private scanArgumentsHeader(input: string, index: number, limit: number): number {
    const close = this.headerEnd(input, index, limit);
    if (close === HOLD) return HOLD;
    if (close < 0) {
      return this.failCall(
        'malformed-call',
        'the arguments element has no complete tag',
        index,
        limit,
      );
    }
    this.valueText = '';
    this.state = State.ArgumentsValue;
    return close + this.headerClose.length;
  }

  /** The arguments element's JSON, held up to its closer, then given as the call's parameters. */
  private scanArgumentsValue(input: string, index: number, limit: number): number {
    const closer = this.syntax.argumentsClose ?? '';
    const found = closer === '' ? -1 : input.indexOf(closer, index);
    if (found !== -1 && found + closer.length <= limit) {
      this.valueText += input.slice(index, found);
      return this.closeArguments(found + closer.length, limit);
    }
    let keep = this.final ? 0 : Math.min(closer.length - 1, limit - index);
    while (keep > 0 && !closer.startsWith(input.slice(limit - keep, limit))) keep--;
    this.valueText += input.slice(index, limit - keep);
    return limit - keep > index ? limit - keep : HOLD;
  }

  private closeArguments(after: number, limit: number): number {
    const value = jsonValueOf(this.valueText, this.context.options.maxDepth);
    this.valueText = '';
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return this.failCall(
        'malformed-call',
        'the arguments element does not hold a JSON object',
        after,
        limit,
      );
    }
    this.given ??= new Set();
    for (const [key, member] of Object.entries(value)) {
      if (this.given.has(key)) {
        this.assembler!.addProblem({
          path: `/${key}`,
          keyword: 'duplicate',
          message: `parameter "${key}" was given more than once; only the first value was used`,
        });
        continue;
      }
      this.given.add(key);
      this.writeValue(key, this.policy.property(key).coerce(member));
    }
    this.state = State.Parameters;
    return after;
  }

  // ── element-named parameters (MiniMax-M3) ─────────────────────────────────────────────────

  /**
   * Which of `literals` is written at `input[index]`, the first in list order; 'partial' while
   * the text ends inside any of them (a longer tag may still be the one written).
   */
  private matchFirstWhole(
    input: string,
    index: number,
    limit: number,
    literals: readonly string[],
  ): LiteralMatch {
    const available = limit - index;
    if (!this.final) {
      for (const literal of literals) {
        if (available < literal.length && literal.startsWith(input.slice(index, limit))) {
          return 'partial';
        }
      }
    }
    for (const literal of literals) {
      if (available >= literal.length && input.startsWith(literal, index)) return { literal };
    }
    return undefined;
  }

  private scanElementParameters(input: string, index: number, limit: number): number {
    const at = this.skipSpace(input, index, limit);
    if (at === limit) return limit;
    const syntax = this.syntax;
    const match = this.matchFirstWhole(input, at, limit, this.elementCallLiterals);
    if (match === 'partial') return HOLD;
    if (match === undefined || match.literal === syntax.parameterClose) {
      // Stray text or a closing tag with no value open, between parameters: skipped.
      const next = input.indexOf(syntax.parameterOpen.charAt(0), at + 1);
      return next === -1 || next >= limit ? limit : next;
    }
    const literal = match.literal;
    const after = at + literal.length;
    if (literal === syntax.parameterOpen) {
      this.state = State.ParameterHeader;
      return after;
    }
    this.completeCall();
    if (literal === syntax.callClose) return this.afterCallClose(after);
    if (literal === this.blockClose) return this.finishAt(after);
    // The next call begins: this one's closer is missing.
    if (this.bare) return this.finishAt(at);
    this.state = State.Block;
    this.afterCall = true;
    return at;
  }

  /** An element-named parameter's name, up to `>`. */
  private scanElementHeader(input: string, index: number, limit: number): number {
    const close = this.headerEnd(input, index, limit);
    if (close === HOLD) return HOLD;
    if (close < 0) {
      this.state = State.Parameters;
      return -close - 1;
    }
    const written = input.slice(index, close);
    const name = readName(written);
    this.parameter = name;
    this.state = State.Value;
    this.valueText = '';
    this.elementDepth = 0;
    this.elementOpenTag = `${this.syntax.parameterOpen}${written}>`;
    this.elementCloseTag = `${this.syntax.parameterClose}${written}>`;
    this.given ??= new Set();
    if (this.given.has(name)) {
      this.kind = 'discard';
      this.assembler!.addProblem({
        path: `/${name}`,
        keyword: 'duplicate',
        message: `parameter "${name}" was given more than once; only the first value was used`,
      });
    } else {
      this.given.add(name);
      this.kind = 'held';
      this.valuePolicy = this.policy.property(name);
    }
    return close + 1;
  }

  /**
   * An element-named value, up to its own closer (child elements of the same name nest), or to
   * the call's or block's closer when its own is missing. Held whole, typed when it closes.
   */
  private scanElementValue(input: string, index: number, limit: number): number {
    const syntax = this.syntax;
    const open = syntax.parameterOpen;
    let from = index;
    for (;;) {
      const next = input.indexOf(open, from);
      if (next === -1 || next >= limit) {
        // Keep a tail that may begin a tag.
        let keep = this.final ? 0 : Math.min(open.length - 1, limit - from);
        while (keep > 0 && !open.startsWith(input.slice(limit - keep, limit))) keep--;
        this.elementText(input, index, limit - keep);
        return limit - keep > index ? limit - keep : HOLD;
      }
      const match = this.matchFirstWhole(input, next, limit, [
        this.elementCloseTag,
        syntax.callClose,
        this.blockClose,
        this.elementOpenTag,
      ]);
      if (match === 'partial') {
        this.elementText(input, index, next);
        return next > index ? next : HOLD;
      }
      if (match === undefined) {
        from = next + 1;
        continue;
      }
      const literal = match.literal;
      const after = next + literal.length;
      if (literal === this.elementOpenTag) {
        this.elementDepth++;
        from = after;
        continue;
      }
      if (literal === this.elementCloseTag && this.elementDepth > 0) {
        this.elementDepth--;
        from = after;
        continue;
      }
      this.elementText(input, index, next);
      this.closeElementValue();
      if (literal === this.elementCloseTag) {
        this.state = State.Parameters;
        return after;
      }
      // The call's or block's closer: the value's own closer is missing.
      this.completeCall();
      if (literal === syntax.callClose) return this.afterCallClose(after);
      return this.finishAt(after);
    }
  }

  private elementText(input: string, from: number, to: number): void {
    if (to > from && this.kind !== 'discard') this.valueText += input.slice(from, to);
  }

  private closeElementValue(): void {
    if (this.kind !== 'discard') {
      const value = elementValue(
        this.valueText,
        this.valuePolicy,
        this.syntax.parameterOpen,
        this.syntax.parameterClose,
        this.context.options.maxDepth,
        readName,
      );
      this.writeValue(this.parameter, value);
    }
    this.valueText = '';
  }

  // ── settling ──────────────────────────────────────────────────────────────────────────────

  /** The input as written, read back from the streamed JSON once strings were too long to keep. */
  private valueSoFar(): Record<string, unknown> {
    if (this.keepsStrings) return this.input;
    return this.objectStarted
      ? (parseJsonText(`${this.assembler!.inputText()}}`) as Record<string, unknown>)
      : {};
  }

  private completeCall(): void {
    const value = this.valueSoFar();
    this.startObject();
    this.writer!.endObject();
    this.assembler!.complete(value);
    this.emitted++;
    this.tool = undefined;
  }

  /**
   * The call being read cannot be completed: reported with its raw text (the block's, when it
   * is the block's first call), and never run.
   */
  private failCall(
    code: 'malformed-call' | 'incomplete-call',
    message: string,
    at: number,
    limit: number,
  ): number {
    this.failCurrent(code, message, this.offsetOf(at, limit));
    return this.finishAt(at);
  }

  private failCurrent(code: 'malformed-call' | 'incomplete-call', message: string, end: number) {
    const assembler = this.assembler!;
    const toolName = this.tool!.name;
    const full = `${message} in the call to "${toolName}"`;
    if (this.emitted === 0) {
      assembler.fail(code, full);
      this.rawPassedOn = true;
    } else {
      assembler.end();
      this.context.reportFault({
        code,
        message: full,
        raw: this.context.callText(this.callStart, end),
        toolName,
        toolCallId: assembler.toolCallId,
      });
      this.context.settle({ kind: 'call' });
    }
    this.tool = undefined;
  }

  finish(interrupted: boolean): void {
    this.final = true;
    const held = this.held;
    this.held = '';
    if (held.length > 0) {
      this.run(held, 0, held.length);
      if (this.doneAt !== -1) {
        // The body ended inside what it held: what follows is text. (When the body is not a
        // call, or failed, the engine passes the body's whole raw text on, this included.)
        if (this.doneAt < held.length && !this.rawPassedOn) {
          this.context.emitText(held.slice(this.doneAt));
        }
        return;
      }
    }
    const end = this.context.callLength;
    switch (this.state) {
      case State.Value:
        this.closeValue();
        this.failCurrent(
          'incomplete-call',
          `the output ended before the value of "${this.parameter}" was closed`,
          end,
        );
        return;
      case State.Parameters:
        if (this.isBareMention()) this.settleRaw({ kind: 'not-a-call' });
        else this.finishOpenCall(interrupted, end);
        return;
      case State.ParameterHeader:
      case State.KeyName:
      case State.AfterKey:
      case State.ArgumentsHeader:
      case State.ArgumentsValue:
        this.failCurrent('incomplete-call', 'the output ended inside a parameter tag', end);
        return;
      case State.CallHeader:
      case State.CallName:
        if (this.emitted === 0) {
          this.settleRaw({ kind: 'not-a-call' });
        } else {
          this.context.reportFault({
            code: 'incomplete-call',
            message: 'the output ended inside the tag that opens a call',
            raw: this.context.callText(this.callStart, end),
          });
        }
        return;
      case State.Block:
        if (this.emitted === 0) this.settleRaw({ kind: 'not-a-call' });
        return;
      case State.AfterBareCall:
        return;
      case State.UndeclaredBare:
      case State.BlockSuffix:
      case State.BlockHeader:
        this.settleRaw({ kind: 'not-a-call' });
        return;
      case State.Cdata:
        this.closeValue();
        this.failCurrent(
          'incomplete-call',
          `the output ended inside a CDATA section of "${this.parameter}"`,
          end,
        );
        return;
      case State.ForeignCall:
        // The output ended inside an undeclared tool's call: it is text, all of it.
        if (this.emitted === 0) this.settleRaw({ kind: 'not-a-call' });
        else this.context.emitText(this.context.callText(this.callStart, end));
        return;
    }
  }

  /** Every value is closed and only the call's closer is missing. */
  private finishOpenCall(interrupted: boolean, end: number): void {
    if (interrupted) {
      this.failCurrent(
        'incomplete-call',
        'the output was cut off before the call was closed; it was not run',
        end,
      );
      return;
    }
    const problems = this.assembler!.problemsFor(this.valueSoFar());
    if (problems.length > 0) {
      this.failCurrent(
        'incomplete-call',
        `the output ended inside a call that is not complete: ${describeProblems(problems)}`,
        end,
      );
      return;
    }
    this.completeCall();
  }

  abandon(): void {
    this.assembler?.end();
  }
}
