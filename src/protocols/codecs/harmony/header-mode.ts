/**
 * A header mode (HeaderModeSpec) compiled into what the stream engine reads: openers (the header's
 * opener, the channel marker, a recipient at a line's start) whose body reads the header and then
 * the message, and the ends of messages as framing.
 */
import type { CallContext } from '../../engine/call-body.ts';
import { MarkupBody } from '../../engine/markup-body.ts';
import type { FormatReader } from '../../spec/compile.ts';
import type { CallFormSpec } from '../../spec/types.ts';
import { JsonCallsBody, type JsonCallsBodyConfig } from '../json/json-calls-body.ts';
import type { ParameterTagsOpener } from '../tagged/parameter-tags-syntax.ts';
import { HeaderBody } from './header-body.ts';
import { type HeaderStart, MAX_HEADER_CHARS } from './header-reader.ts';
import type { HeaderModeSpec } from './header-spec.ts';

/** A header mode with what its bodies share, made once per spec. */
export interface CompiledHeaderMode {
  readonly spec: HeaderModeSpec;
  /**
   * The body of a call whose arguments are JSON, if they are: it reads the header too (to be
   * where the arguments begin), and takes the tool's name from `calledName` at its end.
   */
  jsonCall(context: CallContext, calledName: () => string | undefined): JsonCallsBody | undefined;
  /** How a tool message's calls are read, when they are a tagged form's. */
  readonly taggedOpener: ParameterTagsOpener | undefined;
  /** What opens the next header, ending a message that is not a call. */
  readonly nextHeaders: readonly string[];
}

/** Compiles `mode`; `forms` are the spec's call forms (`toolMessage.form` names one). */
export function compileHeaderMode(
  mode: HeaderModeSpec,
  forms: readonly CallFormSpec[],
): CompiledHeaderMode {
  const tool = mode.toolMessage;
  let taggedOpener: ParameterTagsOpener | undefined;
  let json: JsonCallsBodyConfig | undefined;
  if ('form' in tool) {
    const form = forms[tool.form];
    if (form?.codec !== 'tagged') {
      throw new TypeError(`header.toolMessage.form: call form ${tool.form} is not a tagged form`);
    }
    // The form's own block markers, written inside the message, are framing between its calls.
    const framing = [form.open, ...(form.close ? [form.close] : [])];
    taggedOpener = {
      syntax: { ...form.syntax, betweenCalls: [...(form.syntax.betweenCalls ?? []), ...framing] },
      blockClose: tool.close,
    };
  } else {
    json = {
      shape: { nameKeys: [], argumentKeys: [] },
      closer: tool.close,
      speculative: false,
    };
  }
  return {
    spec: mode,
    taggedOpener,
    nextHeaders: [mode.open, ...(mode.channel ? [mode.channel.marker] : [])],
    jsonCall: (context, calledName) => {
      if (json === undefined) return undefined;
      // The header reader has read the header: the JSON body is given the name, not asked to
      // read it again (one small config per call costs less than a second reading).
      const header = {
        terminator: mode.message,
        readName: calledName,
        // The header reader gives up first; this only bounds the JSON body's copy.
        maxLength: MAX_HEADER_CHARS + mode.message.length,
      };
      return new JsonCallsBody(context, { ...json, header });
    },
  };
}

/** The readers a header mode adds to a spec's grammar (`FormatSpec.header`, compiled). */
export function headerModeReaders(
  mode: HeaderModeSpec,
  forms: readonly CallFormSpec[],
): FormatReader[] {
  const compiled = compileHeaderMode(mode, forms);
  const header = (name: string, open: string, start: HeaderStart): FormatReader => ({
    name,
    open: [open],
    kind: 'call',
    read: (context) => new HeaderBody(context, compiled, start),
  });
  const readers = [header('message header', mode.open, 'role')];
  if (mode.channel) {
    readers.push(header('message header from its channel', mode.channel.marker, 'channel'));
  }
  if (mode.startInHeader) {
    readers.push(header('first message header', `\n ${mode.recipient}`, 'recipient'));
  }
  const ends = [...new Set([...mode.ends, mode.toolMessage.close])];
  readers.push({
    name: 'message end',
    open: ends,
    kind: 'framing',
    read: (context) => new MarkupBody(context),
  });
  return readers;
}
