import { parseJsonText } from '../../../core/parse-json.ts';
import { BACKSLASH, QUOTATION_MARK } from '../../../scan/char-codes.ts';
import { isWhiteSpace } from '../../../scan/characters.ts';
import { LiteralFinder } from '../../../scan/literal-finder.ts';
import type { CallBody, CallContext } from '../../engine/call-body.ts';
import type { CallHeader, JsonCallsBodyConfig } from './json-call-config.ts';
import { JsonCallsBody } from './json-calls-body.ts';

/** A call whose header names the tool before its JSON arguments (Kimi-K2, DeepSeek, harmony). */
export interface NamedJsonConfig {
  /** The literal that ends the header (`<|tool_call_argument_begin|>`, `<|message|>`). */
  readonly terminator: string;
  /** Header text the opener already consumed, put before what follows. */
  readonly consumed?: string;
  /** The tool's name in the header, or undefined when the header is not a call's. */
  readName(header: string): string | undefined;
  /** A header longer than this is not a call. Default 256. */
  readonly maxLength?: number;
  /** How the JSON after the header is read (`closer`, `speculative`, `fencedJson`). */
  readonly json: Pick<JsonCallsBodyConfig, 'closer' | 'speculative' | 'fencedJson'>;
}

const NO_SHAPE = { nameKeys: [], argumentKeys: [] };

/** One `JsonCallsBody` configuration per named config, so `auto` can tell equal readers apart. */
const configs = new WeakMap<NamedJsonConfig, JsonCallsBodyConfig>();

/** `JsonCallsBody` reading the name from the header, then the arguments from the JSON. */
export function namedJsonBody(context: CallContext, named: NamedJsonConfig): JsonCallsBody {
  let config = configs.get(named);
  if (config === undefined) {
    const { json, ...header } = named;
    config = { ...json, shape: NO_SHAPE, header };
    configs.set(named, config);
  }
  return new JsonCallsBody(context, config);
}

/** What `StringArgumentsBody` reads: a named call (`header` and `closer` set) and its opener's length. */
export interface StringArgumentsConfig {
  readonly json: JsonCallsBodyConfig & { readonly header: CallHeader; readonly closer: string };
  /** The opener's length: the header is the call's text from there to the terminator. */
  readonly openLength: number;
}

const Phase = {
  /** The header, read by the JSON body too. */
  Header: 0,
  /** White space after the header's terminator. */
  BeforeArguments: 1,
  /** Arguments that are not a string: the JSON body reads them. */
  Json: 2,
  /** Arguments written as a JSON string. */
  String: 3,
  /** After that string: white space, then the closer. */
  AfterString: 4,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

/**
 * A named call whose arguments may be written double-encoded, as a JSON string whose content is
 * the object (Kimi-K2's `"{\"city\": \"Oslo\"}"`): that string is decoded once when it holds an
 * object, and the object is read as the arguments; any other string fails the call as other
 * malformed arguments do. Everything else is the JSON body's.
 */
export class StringArgumentsBody implements CallBody {
  private readonly inner: JsonCallsBody;
  private phase: Phase = Phase.Header;
  private readonly terminator: LiteralFinder;
  /** The string's JSON text, quotes included, once it begins. */
  private stringText = '';
  private escaped = false;
  /** Characters of the closer matched after the string. */
  private endMatched = 0;
  private toolName: string | undefined;
  private readonly context: CallContext;
  private readonly config: StringArgumentsConfig;

  constructor(context: CallContext, config: StringArgumentsConfig) {
    this.context = context;
    this.config = config;
    this.inner = new JsonCallsBody(context, config.json);
    this.terminator = new LiteralFinder(config.json.header.terminator);
  }

  get leftover(): string | undefined {
    return this.inner.leftover;
  }

  write(text: string, start: number, end: number): number {
    let index = start;
    if (this.phase === Phase.Header) {
      const found = this.terminator.find(text, start, end);
      // The JSON body reads the header (and decides whether it names a declared tool).
      const stop = this.inner.write(text, start, found === -1 ? end : found);
      if (stop !== -1 || found === -1) return stop;
      this.toolName = this.config.json.header.readName(this.headerBefore(found, end));
      this.phase = Phase.BeforeArguments;
      index = found;
    }
    if (this.phase === Phase.BeforeArguments) {
      while (index < end && isWhiteSpace(text.charCodeAt(index))) index++;
      if (index === end) return -1;
      if (text.charCodeAt(index) !== QUOTATION_MARK) {
        this.phase = Phase.Json;
        return this.inner.write(text, index, end);
      }
      this.phase = Phase.String;
    }
    if (this.phase === Phase.Json) return this.inner.write(text, index, end);
    if (this.phase === Phase.String) {
      const from = index;
      // The opening quote is the first character when the string begins in this write.
      if (this.stringText.length === 0) index++;
      for (; index < end; index++) {
        const code = text.charCodeAt(index);
        if (this.escaped) this.escaped = false;
        else if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTATION_MARK) break;
      }
      if (index === end) {
        this.stringText += text.slice(from, end);
        return -1;
      }
      index++;
      this.stringText += text.slice(from, index);
      this.phase = Phase.AfterString;
    }
    // After the string: white space, then the call's end.
    const closer = this.config.json.closer;
    for (; index < end; index++) {
      const code = text.charCodeAt(index);
      if (this.endMatched === 0 && isWhiteSpace(code)) continue;
      if (code !== closer.charCodeAt(this.endMatched)) return this.fail(index);
      if (++this.endMatched === closer.length) return this.readDecoded(index + 1, true);
    }
    return -1;
  }

  /** The header's raw text, from the opener's end to the terminator found at `found`. */
  private headerBefore(found: number, end: number): string {
    const at = this.context.callLength - (end - found);
    return this.context.callText(
      this.config.openLength,
      at - this.config.json.header.terminator.length,
    );
  }

  /**
   * The string ended (and the closer was read, if `closed`): its content read as the arguments
   * when it is a JSON object; `stop` is where the call ends.
   */
  private readDecoded(stop: number, closed: boolean): number {
    const object = objectTextIn(this.stringText);
    if (object === undefined) return this.fail(stop);
    // The decoded text stands for the string: the JSON body reads it as the arguments.
    const decoded = closed ? object + this.config.json.closer : object;
    const read = this.inner.write(decoded, 0, decoded.length);
    if (closed && read === -1) return this.fail(stop);
    return stop;
  }

  /** The arguments are not an object, nor a string holding one: the call fails. */
  private fail(stop: number): number {
    this.inner.abandon();
    this.context.settle({
      kind: 'fault',
      code: 'malformed-call',
      message: `the arguments of a call to "${this.toolName ?? 'a tool'}" are a JSON string that holds no JSON object; it was not run`,
      ...(this.toolName === undefined ? {} : { toolName: this.toolName }),
    });
    return stop;
  }

  finish(interrupted: boolean): void {
    if (this.phase === Phase.AfterString && this.endMatched === 0 && !interrupted) {
      // Only the call's end is missing: read as any call whose closing markup is missing.
      const object = objectTextIn(this.stringText);
      if (object !== undefined && this.inner.write(object, 0, object.length) === -1) {
        this.inner.finish(false);
        return;
      }
    }
    if (this.phase === Phase.String || this.phase === Phase.AfterString) {
      this.inner.abandon();
      this.context.settle({
        kind: 'fault',
        code: 'incomplete-call',
        message: `the output ended inside the arguments of a call to "${this.toolName ?? 'a tool'}"; it was not run`,
        ...(this.toolName === undefined ? {} : { toolName: this.toolName }),
      });
      return;
    }
    this.inner.finish(interrupted);
  }

  abandon(): void {
    this.inner.abandon();
  }
}

/** The text of the JSON object a JSON string literal holds, or undefined when it holds none. */
function objectTextIn(literal: string): string | undefined {
  let content: unknown;
  try {
    content = parseJsonText(literal);
  } catch {
    return undefined;
  }
  if (typeof content !== 'string' || !content.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = parseJsonText(content);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? content
      : undefined;
  } catch {
    return undefined;
  }
}
