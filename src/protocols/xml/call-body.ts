import type { ToolDefinition } from '../../core/index.ts';
import {
  APOSTROPHE,
  CARRIAGE_RETURN,
  EQUALS_SIGN,
  EXCLAMATION_MARK,
  GREATER_THAN,
  LEFT_BRACE,
  LESS_THAN,
  LINE_FEED,
  QUOTATION_MARK,
  SLASH,
  SPACE,
  TAB,
} from '../../scan/char-codes.ts';
import { isMarkupSpace, isWhiteSpace } from '../../scan/characters.ts';
import { JsonExtent } from '../../scan/json-extent.ts';
import type { CallBody, CallContext } from '../engine/call-body.ts';
import { XmlCallValue } from './call-value.ts';
import { isNameCharacter, isNameStart, MAX_TAG_LENGTH } from './tag-names.ts';
import type { XmlToolShape } from './tool-shape.ts';
import { decodeHeldText, type ValueSink } from './value-sink.ts';

const State = {
  /** Inside the tool's own opening tag, reading attributes up to `>`. */
  OpenTag: 0,
  /** After a tool's name written alone on a line: the rest of that line (see `bare`). */
  NameLine: 7,
  /** Between parameters: white space, parameter tags, the tool's closing tag. */
  BetweenParameters: 1,
  /** Inside a parameter value. */
  Value: 2,
  /** Reading a tag (`<…>`) whose meaning depends on `tagContext`. */
  Tag: 3,
  /** Inside `<![CDATA[ … ]]>` in a value. */
  Cdata: 4,
  /** After a closing tag that may or may not end the value (see `Tentative`). */
  Tentative: 5,
  /** Inside a JSON object written directly in the tool tag (see `enterJsonArguments`). */
  JsonArguments: 6,
} as const;
type State = (typeof State)[keyof typeof State];

const AttributeState = {
  Between: 0,
  Name: 1,
  AfterName: 2,
  AfterEquals: 3,
  Value: 4,
  SelfClosing: 5,
} as const;
type AttributeState = (typeof AttributeState)[keyof typeof AttributeState];

type TagContext = 'between' | 'value' | 'tentative';

/**
 * What a closing tag met in a parameter value may be: the parameter's own (confirmed by the next
 * parameter or the tool's end), or the tool's, met in a parameter the model never closed
 * (confirmed by a line break, another tag, or the end). Text written directly in the tool tag
 * has no such doubt: the tool's closing tag is its own, and ends it (see handleValueTag).
 */
type TentativeKind = 'parameter-close' | 'tool-close';

type Tag =
  | { readonly kind: 'open'; readonly name: string; readonly selfClosing: boolean }
  | { readonly kind: 'close'; readonly name: string }
  | { readonly kind: 'text' };

type OpenTag = Extract<Tag, { kind: 'open' }>;

/**
 * `<parameter name="city">`: the parameter named in an attribute, as models used to other XML
 * tool formats write it; its value closes at `</parameter>`.
 */
const NAMED_PARAMETER = /^<parameter\s+name\s*=\s*(?:"([^"<]*)"|'([^'<]*)')\s*(\/?)>$/;

const CDATA_OPEN = '<![CDATA[';
const CDATA_CLOSE = ']]>';
const TEXT_TAG: Tag = { kind: 'text' };

/**
 * What `raw` (`<` … `>`, with no other `<` or `>` in it) is: `</name>` (white space allowed
 * before the `>`), `<name>`, `<name/>`, `<name attributes…>` (the attributes are not read), or
 * text. Read by hand rather than by regular expression: every tag of every call comes here.
 */
function classifyTag(raw: string): Tag {
  const last = raw.length - 1;
  const closing = raw.charCodeAt(1) === SLASH;
  const nameStart = closing ? 2 : 1;
  if (nameStart >= last || !isNameStart(raw.charCodeAt(nameStart))) return TEXT_TAG;
  let index = nameStart + 1;
  while (index < last && isNameCharacter(raw.charCodeAt(index))) index++;
  const name = raw.slice(nameStart, index);
  if (closing) {
    while (index < last && isWhiteSpace(raw.charCodeAt(index))) index++;
    return index === last ? { kind: 'close', name } : TEXT_TAG;
  }
  if (index === last) return { kind: 'open', name, selfClosing: false };
  const code = raw.charCodeAt(index);
  if (code === SLASH) {
    return index === last - 1 ? { kind: 'open', name, selfClosing: true } : TEXT_TAG;
  }
  if (!isWhiteSpace(code)) return TEXT_TAG;
  // Attributes follow; a `/` just before the `>` closes the element.
  return {
    kind: 'open',
    name,
    selfClosing: last - 1 > index && raw.charCodeAt(last - 1) === SLASH,
  };
}

/**
 * The tag syntax of one XML tool call, from just after `<tool_name` to just after `</tool_name>`;
 * the value its parameters make is assembled by XmlCallValue.
 *
 * A parameter value runs to its closing tag only when that tag is followed (after white space) by
 * the next parameter, the tool's closing tag, or the end of the output; any other closing tag of
 * the same name is content. So file content that mentions `</content>` stays whole. The tool's
 * closing tag in a value the model never closed (`<query>foo</search>`) ends the call when a line
 * break, a tag or the end of the output follows it. Text written directly in the tool tag (a tool
 * of one parameter) is the tag's content, as in XML: it ends at the first `</tool_name>` that
 * closes no `<tool_name>` opened in it, and an output that ends before then leaves the call
 * incomplete. Each value is passed to XmlCallValue piece by piece as it is scanned.
 */
export class XmlCallBody implements CallBody {
  private state: State = State.OpenTag;
  private attributeState: AttributeState = AttributeState.Between;
  private attributeQuote = 0;
  /** Where the attribute being read starts, and its value, as offsets in the call's text. */
  private attributeNameStart = 0;
  private attributeName = '';
  private attributeValueStart = 0;

  /** The JSON arguments being read, and where they start in the call's text. */
  private jsonExtent: JsonExtent | undefined;
  private jsonStart = 0;
  /** Whether JSON arguments were read (even `{}`): text after them is then stray markup. */
  private jsonRead = false;

  /** The tag being read began in this write at `tagStart`, unless earlier writes hold its start. */
  private tagStart = 0;
  /** The start of a tag cut by the end of an earlier write ('' when it began in this one). */
  private tagHeld = '';
  private tagContext: TagContext = 'between';
  private cdataHeld = '';

  /** The sink of the open value (held here: every piece of a value is passed to it). */
  private sink: ValueSink | undefined;
  /** Closing this name ends the value (the parameter, or the tool in direct-content mode). */
  private closeName = '';
  private directContent = false;
  private depth = 0;
  /**
   * Open tags of the tool's own name in a parameter value (content that shows a call): their
   * closing tags are content too.
   */
  private toolDepth = 0;
  private tentativeRaw = '';
  private tentativeKind: TentativeKind = 'parameter-close';
  private tentativeTagLength = 0;
  /** Text the body read past the call's end, handed back to the top level. */
  leftover = '';

  private readonly value: XmlCallValue;

  private doneAt = -1;

  private readonly context: CallContext;
  private readonly tool: ToolDefinition;
  private readonly shape: XmlToolShape;

  /**
   * The call was opened by the tool's name alone on a line, as some models write it
   * (`list_dir` then `<path>/src</path>` on the next line): it is a call only when the next line
   * starts with one of the tool's parameter tags, and it ends at the tool's closing tag, at the
   * next line that is not a tag (another tool's name, or prose), at another tool's opening tag,
   * or at the end of the output.
   */
  private readonly bare: boolean;
  /** In a bare call, the white space read since the last tag (where a line may have ended). */
  private betweenSpace = '';

  constructor(context: CallContext, tool: ToolDefinition, shape: XmlToolShape, bare = false) {
    this.context = context;
    this.tool = tool;
    this.shape = shape;
    this.bare = bare;
    if (bare) this.state = State.NameLine;
    this.value = new XmlCallValue(context, tool, shape.policy);
  }

  write(text: string, start: number, end: number): number {
    let index = start;
    while (index < end && this.doneAt === -1) {
      switch (this.state) {
        case State.OpenTag:
          index = this.scanOpenTag(text, index, end);
          break;
        case State.NameLine:
          index = this.scanNameLine(text, index, end);
          break;
        case State.BetweenParameters:
          index = this.scanBetween(text, index, end);
          break;
        case State.Value:
          index = this.scanValue(text, index, end);
          break;
        case State.Tag:
          index = this.scanTag(text, index, end);
          break;
        case State.Cdata:
          index = this.scanCdata(text, index, end);
          break;
        case State.Tentative:
          index = this.scanTentative(text, index, end);
          break;
        case State.JsonArguments:
          index = this.scanJsonArguments(text, index, end);
          break;
      }
    }
    // A tag begun in this write and cut by its end: keep what was read of it.
    if (this.doneAt === -1 && this.state === State.Tag && this.tagHeld === '') {
      this.tagHeld = text.slice(this.tagStart, end);
    }
    return this.doneAt;
  }

  // ── the tool's opening tag ────────────────────────────────────────────────────────────────

  private scanOpenTag(text: string, start: number, end: number): number {
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index);
      switch (this.attributeState) {
        case AttributeState.Between:
          if (isMarkupSpace(code)) continue;
          if (code === GREATER_THAN) {
            this.state = State.BetweenParameters;
            return index + 1;
          }
          if (code === SLASH) {
            this.attributeState = AttributeState.SelfClosing;
            continue;
          }
          if (isNameStart(code)) {
            this.attributeState = AttributeState.Name;
            this.attributeNameStart = this.callOffset(index, end);
            continue;
          }
          return this.notACall(index);
        case AttributeState.Name:
          if (isNameCharacter(code)) continue;
          if (code === EQUALS_SIGN) this.attributeState = AttributeState.AfterEquals;
          else if (isMarkupSpace(code)) this.attributeState = AttributeState.AfterName;
          else return this.notACall(index);
          this.attributeName = this.context.callText(
            this.attributeNameStart,
            this.callOffset(index, end),
          );
          continue;
        case AttributeState.AfterName:
          // Attributes must have values: `<search the code>` is prose, not a call.
          if (isMarkupSpace(code)) continue;
          if (code === EQUALS_SIGN) {
            this.attributeState = AttributeState.AfterEquals;
            continue;
          }
          return this.notACall(index);
        case AttributeState.AfterEquals:
          if (isMarkupSpace(code)) continue;
          if (code === QUOTATION_MARK || code === APOSTROPHE) {
            this.attributeQuote = code;
            this.attributeState = AttributeState.Value;
            this.attributeValueStart = this.callOffset(index + 1, end);
            continue;
          }
          return this.notACall(index);
        case AttributeState.Value: {
          const close = text.indexOf(String.fromCharCode(this.attributeQuote), index);
          if (close === -1 || close >= end) return end;
          index = close;
          this.attributeState = AttributeState.Between;
          // Other attributes are markup and are left alone.
          if (this.shape.isParameterName(this.attributeName)) {
            // `<get_weather city="Paris" days="2"/>`: an attribute named like a parameter.
            const raw = this.context.callText(
              this.attributeValueStart,
              this.callOffset(close, end),
            );
            this.value.takeWhole(this.attributeName, decodeHeldText(raw));
          }
          continue;
        }
        case AttributeState.SelfClosing:
          if (code !== GREATER_THAN) return this.notACall(index);
          this.completeCall(index + 1);
          return index + 1;
      }
    }
    return end;
  }

  /** Where `text[index]` is in the call's text, while `text[…, end)` is being written. */
  private callOffset(index: number, end: number): number {
    return this.context.callLength - (end - index);
  }

  private notACall(index: number): number {
    this.context.settle({ kind: 'not-a-call' });
    this.doneAt = index;
    return index;
  }

  /** The rest of a bare tool name's line: nothing but white space may follow the name. */
  private scanNameLine(text: string, start: number, end: number): number {
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index);
      if (code === LINE_FEED) {
        this.state = State.BetweenParameters;
        return index + 1;
      }
      if (code !== SPACE && code !== TAB && code !== CARRIAGE_RETURN) return this.notACall(index);
    }
    return end;
  }

  // ── between parameters ────────────────────────────────────────────────────────────────────

  private scanBetween(text: string, start: number, end: number): number {
    let index = start;
    while (index < end && isMarkupSpace(text.charCodeAt(index))) index++;
    if (this.bare) this.betweenSpace += text.slice(start, index);
    if (index >= end) return end;
    if (text.charCodeAt(index) === LESS_THAN) {
      this.beginTag('between', index);
      return index + 1;
    }
    if (this.bare) return this.endBareCallAtText(index);
    if (!this.value.hasParameters && !this.jsonRead) {
      if (this.shape.directParameter === undefined) {
        if (text.charCodeAt(index) === LEFT_BRACE) return this.enterJsonArguments(index, end);
        return this.notACall(index);
      }
      this.openParameter(this.shape.directParameter, true);
      return index;
    }
    // Stray text between parameters is part of the call's markup, not a value: skip it.
    const next = text.indexOf('<', index);
    return next === -1 || next >= end ? end : next;
  }

  // ── tags ──────────────────────────────────────────────────────────────────────────────────

  /** A `<` at `text[at]` begins a tag. */
  private beginTag(context: TagContext, at: number): void {
    this.state = State.Tag;
    this.tagContext = context;
    this.tagStart = at;
    this.tagHeld = '';
  }

  /**
   * Reads a tag up to its `>`. A tag is cut out of the text once, when it is complete (not built
   * piece by piece): every parameter has two tags, and joined strings cost a copy when read.
   */
  private scanTag(text: string, start: number, end: number): number {
    const held = this.tagHeld;
    // Where this write's part of the tag begins, and how much of the tag has been read.
    const from = held === '' ? this.tagStart : start;
    const length = held.length + start - from;
    if (length === 1) {
      const first = text.charCodeAt(start);
      if (first !== SLASH && first !== EXCLAMATION_MARK && !isNameStart(first)) {
        this.tagIsText(held + text.slice(from, start), start);
        return this.doneAt === -1 ? start : this.doneAt;
      }
    }
    const limit = Math.min(end, start + MAX_TAG_LENGTH - length + 1);
    let index = start;
    while (index < limit) {
      const code = text.charCodeAt(index);
      if (code === GREATER_THAN || code === LESS_THAN) break;
      index++;
    }
    const cdataAllowed =
      this.tagContext !== 'between' ||
      (!this.value.hasParameters && this.shape.directParameter !== undefined);
    const second = held.length >= 2 ? held.charCodeAt(1) : text.charCodeAt(from + 1 - held.length);
    if (cdataAllowed && second === EXCLAMATION_MARK) {
      const soFar = held + text.slice(from, index);
      if (soFar.startsWith(CDATA_OPEN)) {
        this.tagHeld = '';
        return this.enterCdata(soFar.slice(CDATA_OPEN.length), index);
      }
    }
    if (index >= end) {
      this.tagHeld = held + text.slice(from, end);
      return end;
    }
    this.tagHeld = '';
    if (text.charCodeAt(index) !== GREATER_THAN) {
      // Another '<' or too long: what we held was text, and a new tag may start here.
      this.tagIsText(held + text.slice(from, index), index);
      return this.doneAt === -1 ? index : this.doneAt;
    }
    const raw = held + text.slice(from, index + 1);
    this.handleTag(raw, classifyTag(raw), index + 1);
    return this.doneAt === -1 ? index + 1 : this.doneAt;
  }

  /** The held `<…` was not a tag: it is text of the current value (or skipped between). */
  private tagIsText(raw: string, index: number): void {
    this.handleTag(raw, TEXT_TAG, index);
  }

  /**
   * In a bare call, text between parameters: before any parameter it is not a call at all;
   * after one, the call ended with the line before it (that line break is handed back, so a
   * tool name on the next line opens the next call).
   */
  private endBareCallAtText(index: number): number {
    if (!this.value.hasParameters) return this.notACall(index);
    const space = this.betweenSpace;
    this.betweenSpace = '';
    const lineBreak = space.lastIndexOf('\n');
    this.leftover = lineBreak === -1 ? '' : space.slice(lineBreak);
    this.completeCall(index);
    return index;
  }

  /**
   * In a bare call, a tag that ends it or shows it never was one: before any parameter, anything
   * but one of the tool's parameter tags; after one, another declared tool's opening tag. The tag
   * is handed back to the top level. Returns whether it did.
   */
  private bareCallEndsAt(raw: string, tag: Tag, after: number, context: TagContext): boolean {
    const opensParameter =
      tag.kind === 'open' &&
      this.shape.parameters.length > 0 &&
      this.shape.isParameterName(tag.name);
    if (!this.value.hasParameters) {
      if (opensParameter) return false;
      this.leftover = raw;
      this.notACall(after);
      return true;
    }
    if (tag.kind !== 'open' || opensParameter || !this.context.options.toolsByName.has(tag.name)) {
      return false;
    }
    if (context === 'tentative') this.closeValue();
    this.leftover = raw;
    this.completeCall(after);
    return true;
  }

  private handleTag(raw: string, tag: Tag, after: number): void {
    const context = this.tagContext;
    if (this.bare && context !== 'value') {
      this.betweenSpace = '';
      if (this.bareCallEndsAt(raw, tag, after, context)) return;
    }
    if (context === 'between') {
      this.state = State.BetweenParameters;
      if (tag.kind === 'close' && tag.name === this.tool.name) this.completeCall(after);
      else if (tag.kind === 'close') this.reportStray(raw);
      else if (
        tag.kind === 'open' &&
        !this.value.hasParameters &&
        this.shape.directParameter !== undefined &&
        !this.shape.isParameterName(tag.name)
      ) {
        // `<attempt_completion><analysis>…</analysis></attempt_completion>`: markup written as
        // the one parameter's value, not a parameter.
        this.openParameter(this.shape.directParameter, true);
        this.handleValueTag(raw, tag, after);
      } else if (tag.kind === 'open') this.openTagParameter(tag, raw);
      else if (!this.value.hasParameters && tag.kind === 'text' && this.shape.directParameter) {
        this.openParameter(this.shape.directParameter, true);
        this.sink!.text(raw);
      }
      return;
    }
    if (context === 'tentative') {
      if (this.confirmsTentative(tag)) {
        this.closeValue();
        if (tag.kind === 'close') this.completeCall(after);
        else if (tag.kind === 'open') this.openTagParameter(tag, raw);
        return;
      }
      if (
        this.tentativeKind === 'parameter-close' &&
        tag.kind === 'close' &&
        (tag.name === this.closeName ||
          (this.shape.parameters.length > 0 && this.shape.isParameterName(tag.name)))
      ) {
        // `<command>app</command></command>`: the value ended at the first closing tag (any
        // nested tag of its name was balanced); a second one, or one of another parameter that
        // is not open, is stray.
        this.closeValue();
        this.reportStray(raw);
        return;
      }
      this.sink!.text(this.tentativeRaw);
      this.tentativeRaw = '';
    }
    this.state = State.Value;
    this.handleValueTag(raw, tag, after);
  }

  /**
   * After `</tool>` in a parameter value whose own closing tag never came: the call ended there
   * when what follows starts a new line or a new tag; a closing tag or more text on the same line
   * means the value only mentioned it (`<query>find </search> in the code</query>`).
   */
  private decideToolClose(text: string, index: number, end: number): number {
    const code = text.charCodeAt(index);
    let ends = this.tentativeRaw.includes('\n', this.tentativeTagLength);
    if (!ends && this.tentativeRaw.endsWith('<')) {
      // A `<` held from the last write: this character tells what it began.
      ends = code !== SLASH;
    } else if (!ends && code === LESS_THAN) {
      if (index + 1 >= end) {
        // Is it `</…` (content) or a new tag (the call ended)? The next chunk tells.
        this.tentativeRaw += '<';
        return end;
      }
      ends = text.charCodeAt(index + 1) !== SLASH;
    }
    if (ends) {
      // Give back the white space (and a held `<`) after the closing tag: it follows the call.
      this.leftover = this.tentativeRaw.slice(this.tentativeTagLength);
      this.tentativeRaw = '';
      this.closeValue();
      this.completeCall(index);
      return index;
    }
    if (this.tentativeRaw.endsWith('<')) {
      // `</…` across writes: the held `<` begins a tag of the value, as it would in one write.
      this.sink!.text(this.tentativeRaw.slice(0, -1));
      this.tentativeRaw = '';
      this.state = State.Tag;
      this.tagContext = 'value';
      this.tagHeld = '<';
      return index;
    }
    this.sink!.text(this.tentativeRaw);
    this.tentativeRaw = '';
    this.state = State.Value;
    return index;
  }

  /**
   * Whether the tag after a parameter's closing tag confirms that it closed the value: the
   * tool's closing tag, or any parameter-shaped opening tag, declared or not (an undeclared one
   * becomes its own key, and the schema decides whether it may be there). Nothing written after
   * a closing tag is ever merged into the value before it.
   */
  private confirmsTentative(tag: Tag): boolean {
    if (this.tentativeKind !== 'parameter-close') return false;
    if (tag.kind === 'close') return tag.name === this.tool.name;
    return tag.kind === 'open';
  }

  /** Markup that belongs nowhere in the call (a second closing tag): dropped and reported. */
  private reportStray(raw: string): void {
    const callId = this.value.startedCallId;
    this.context.reportFault({
      code: 'stray-markup',
      message: `"${raw}" in the call to "${this.tool.name}" closes nothing; it was dropped`,
      raw,
      toolName: this.tool.name,
      ...(callId !== undefined ? { toolCallId: callId } : {}),
      dropped: true,
    });
  }

  /** A tag met in a value; `after` is the index just after it. */
  private handleValueTag(raw: string, tag: Tag, after: number): void {
    const sink = this.sink!;
    if (tag.kind === 'close' && tag.name === this.closeName) {
      if (this.depth > 0) {
        this.depth--;
        sink.closeTag(tag.name, raw);
        return;
      }
      if (this.directContent) {
        // Text written directly in the tool tag is that element's content, as in XML: the first
        // `</tool>` that closes no `<tool>` opened in it ends the value and the call, whatever
        // follows (`<html>hello</html> done`). A value that shows the tool's closing tag writes
        // it escaped or in CDATA, as Probe's XML protocol asks.
        this.closeValue();
        this.completeCall(after);
        return;
      }
      this.enterTentative(raw, 'parameter-close');
      return;
    }
    if (tag.kind === 'close' && tag.name === this.tool.name && this.depth === 0) {
      if (this.toolDepth === 0) {
        this.enterTentative(raw, 'tool-close');
        return;
      }
      this.toolDepth--;
    }
    if (tag.kind === 'open') {
      if (!tag.selfClosing) {
        if (tag.name === this.closeName) this.depth++;
        else if (tag.name === this.tool.name) this.toolDepth++;
      }
      sink.openTag(tag.name, raw, tag.selfClosing);
    } else if (tag.kind === 'close') {
      sink.closeTag(tag.name, raw);
    } else {
      sink.text(raw);
    }
  }

  // ── values ────────────────────────────────────────────────────────────────────────────────

  /** The parameter an opening tag starts: its own name, or the one `<parameter name="…">` names. */
  private openTagParameter(tag: OpenTag, raw: string): void {
    if (tag.name === 'parameter' && !this.shape.isParameterName('parameter')) {
      const named = NAMED_PARAMETER.exec(raw);
      const name = named?.[1] ?? named?.[2];
      if (name) {
        this.openParameter(name, false, named![3] === '/', 'parameter');
        return;
      }
    }
    this.openParameter(tag.name, false, tag.selfClosing);
  }

  private openParameter(
    name: string,
    direct: boolean,
    selfClosing = false,
    closeName: string = name,
  ): void {
    this.closeName = direct ? this.tool.name : closeName;
    this.directContent = direct;
    this.depth = 0;
    this.toolDepth = 0;
    this.state = State.Value;
    this.sink = this.value.openParameter(name);
    if (selfClosing) this.closeValue();
  }

  private closeValue(): void {
    this.value.closeValue();
    this.sink = undefined;
    this.state = State.BetweenParameters;
  }

  // ── JSON arguments ────────────────────────────────────────────────────────────────────────

  /**
   * `<get_weather>{"city": "Paris"}</get_weather>`: a model used to JSON arguments wrote them in
   * the tool tag. The object is read whole (found by its brackets, parsed, repaired if need be)
   * and its members become the parameters; the call then ends at the tool's closing tag as usual.
   */
  private enterJsonArguments(index: number, end: number): number {
    this.state = State.JsonArguments;
    this.jsonExtent = new JsonExtent();
    this.jsonStart = this.callOffset(index, end);
    return index;
  }

  private scanJsonArguments(text: string, start: number, end: number): number {
    const stop = this.jsonExtent!.write(text, start, end);
    if (stop === -1) return end;
    this.jsonExtent = undefined;
    this.jsonRead = true;
    this.value.takeJsonArguments(this.context.callText(this.jsonStart, this.callOffset(stop, end)));
    this.state = State.BetweenParameters;
    return stop;
  }

  private scanValue(text: string, start: number, end: number): number {
    const next = text.indexOf('<', start);
    if (next === -1 || next >= end) {
      this.sink!.text(text.slice(start, end));
      return end;
    }
    if (next > start) this.sink!.text(text.slice(start, next));
    this.beginTag('value', next);
    return next + 1;
  }

  /** `<![CDATA[` was read; `rest` is what followed it in the tag read so far. */
  private enterCdata(rest: string, index: number): number {
    if (this.tagContext === 'between') this.openParameter(this.shape.directParameter!, true);
    else if (this.tagContext === 'tentative') {
      this.sink!.text(this.tentativeRaw);
      this.tentativeRaw = '';
    }
    this.state = State.Cdata;
    this.cdataHeld = '';
    if (rest.length > 0) this.scanCdata(rest, 0, rest.length);
    return index;
  }

  private scanCdata(text: string, start: number, end: number): number {
    const chunk = this.cdataHeld + text.slice(start, end);
    this.cdataHeld = '';
    const close = chunk.indexOf(CDATA_CLOSE);
    if (close !== -1) {
      this.sink!.cdata(chunk.slice(0, close));
      this.state = State.Value;
      // Characters after `]]>` in `chunk` are `text` from this index on.
      return end - (chunk.length - close - CDATA_CLOSE.length);
    }
    let hold = 0;
    if (chunk.endsWith(']]')) hold = 2;
    else if (chunk.endsWith(']')) hold = 1;
    this.sink!.cdata(chunk.slice(0, chunk.length - hold));
    this.cdataHeld = chunk.slice(chunk.length - hold);
    return end;
  }

  private enterTentative(raw: string, kind: TentativeKind): void {
    this.state = State.Tentative;
    this.tentativeRaw = raw;
    this.tentativeTagLength = raw.length;
    this.tentativeKind = kind;
  }

  private scanTentative(text: string, start: number, end: number): number {
    if (this.tentativeKind === 'tool-close' && this.tentativeRaw.endsWith('<')) {
      return this.decideToolClose(text, start, end);
    }
    let index = start;
    while (index < end && isMarkupSpace(text.charCodeAt(index))) index++;
    this.tentativeRaw += text.slice(start, index);
    if (index >= end) return end;
    if (this.tentativeKind === 'tool-close') return this.decideToolClose(text, index, end);
    if (this.bare && text.charCodeAt(index) !== LESS_THAN) {
      // Text after a value's closing tag ends a bare call (the next tool name, or prose).
      this.betweenSpace = this.tentativeRaw.slice(this.tentativeTagLength);
      this.tentativeRaw = '';
      this.closeValue();
      return this.endBareCallAtText(index);
    }
    if (text.charCodeAt(index) === LESS_THAN) {
      this.beginTag('tentative', index);
      return index + 1;
    }
    this.sink!.text(this.tentativeRaw);
    this.tentativeRaw = '';
    this.state = State.Value;
    return index;
  }

  // ── the call ──────────────────────────────────────────────────────────────────────────────

  /** The closing tag arrived; `after` is the index just after it. */
  private completeCall(after: number): void {
    this.doneAt = after;
    this.state = State.BetweenParameters;
    this.value.complete();
  }

  finish(interrupted: boolean): void {
    const open = this.openPartAtEnd();
    if (open === 'not-a-call') {
      this.context.settle({ kind: 'not-a-call' });
      return;
    }
    if (open === 'closed-call') {
      // Nothing followed the tool's own closing tag: the call was closed properly.
      this.closeValue();
      this.completeCall(-1);
      return;
    }
    if (this.sink) this.closeValue();
    if (open !== undefined) {
      this.value.fail(
        'incomplete-call',
        `the output ended inside a call to "${this.tool.name}" ${open}; the call was not run`,
      );
      return;
    }
    this.value.finishUnclosed(interrupted);
  }

  /**
   * At the end of the output: what was left open besides the call's own closing markup, in words
   * (`before its value of "path" was closed`); `undefined` when only that markup is missing.
   */
  private openPartAtEnd(): string | 'not-a-call' | 'closed-call' | undefined {
    // Text written directly in the tool tag ends only at the tool's closing tag: without it the
    // text may be cut short, so the call is as incomplete as one cut inside a parameter value.
    const inValue = () =>
      this.directContent
        ? `before its closing tag "</${this.tool.name}>"`
        : `before its value of "${this.value.parameter}" was closed`;
    switch (this.state) {
      case State.OpenTag:
        return 'not-a-call';
      case State.Tag: {
        const held = this.tagHeld;
        this.tagHeld = '';
        if (this.tagContext === 'value') return inValue();
        // A tag cut after a value: only the tool's closing tag may be missing.
        if (this.tagContext === 'tentative') this.closeValue();
        if (`</${this.tool.name}>`.startsWith(held)) return undefined;
        return !this.value.hasParameters && this.tagContext === 'between'
          ? 'not-a-call'
          : `inside the tag "${held}"`;
      }
      case State.Cdata:
        return this.directContent ? 'inside a CDATA section' : inValue();
      case State.Value:
        return inValue();
      case State.JsonArguments:
        return 'before the JSON arguments in its tag were complete';
      case State.Tentative:
        return this.tentativeKind === 'parameter-close' ? undefined : 'closed-call';
      default:
        return undefined;
    }
  }

  abandon(): void {
    this.value.end();
  }
}
