/**
 * A FormatSpec's read side as the stream engine's grammar: each call form becomes an opener
 * whose data says which codec's body reads what follows. The bodies are the codecs' own
 * (JSON, parameter tags, Python calls, a JSON-like dialect), so a spec-built format keeps every
 * guarantee the hand-written ones have: the engine and the bodies are the same.
 */

import { BoundedCache } from '../../core/bounded-cache.ts';
import { isWhiteSpace } from '../../scan/characters.ts';
import { compileOpeners, type OpenerTrie } from '../../scan/opener-trie.ts';
import { DialectCallBody } from '../codecs/dialect/call-body.ts';
import { headerModeReaders } from '../codecs/harmony/header-mode.ts';
import { FencedCallBody } from '../codecs/json/fenced-call-body.ts';
import { bareArrayLiterals, bareArrayOpeners } from '../codecs/json/json-call-formats-openers.ts';
import { JsonCallsBody, type JsonCallsBodyConfig } from '../codecs/json/json-calls-body.ts';
import { StringArgumentsBody, type StringArgumentsConfig } from '../codecs/json/named-json-body.ts';
import { PythonCallsBody, type PythonCallsConfig } from '../codecs/python/python-call-body.ts';
import { openRawCode, rawCodeOtherwise } from '../codecs/raw-code/raw-code-body.ts';
import {
  ParameterTagsBody,
  type ParameterTagsOpener,
} from '../codecs/tagged/parameter-tags-body.ts';
import type { CallBody, CallContext, ResolvedParseOptions } from '../engine/call-body.ts';
import { MarkupBody } from '../engine/markup-body.ts';
import { THINK_TAGS } from '../engine/reasoning-tags.ts';
import type {
  CallOpener,
  CallOpenerKind,
  ProtocolGrammar,
  ReasoningTag,
} from '../engine/stream-engine.ts';
import { type FirstCharacterChoice, FirstCharacterChoiceBody } from './first-character-choice.ts';
import { HeldCallsBody } from './held-calls-body.ts';
import type {
  CallFormSpec,
  DialectCallForm,
  FormatSpec,
  JsonCallForm,
  RawCodeCallForm,
} from './types.ts';
import { fillTemplate } from './writers.ts';

/** What an opener of a spec-built format hands the engine: which body reads the call. */
export type SpecCallData =
  | { readonly codec: 'json'; readonly config: JsonCallsBodyConfig }
  | { readonly codec: 'json-string-arguments'; readonly config: StringArgumentsConfig }
  | {
      readonly codec: 'json-fence';
      readonly config: JsonCallsBodyConfig;
      readonly tagged: OpenerTrie<JsonCallsBodyConfig>;
    }
  | { readonly codec: 'tagged'; readonly opener: ParameterTagsOpener }
  | { readonly codec: 'python'; readonly config: PythonCallsConfig }
  | { readonly codec: 'dialect'; readonly form: DialectCallForm }
  | { readonly codec: 'raw-code'; readonly form: RawCodeCallForm }
  | {
      readonly codec: 'json-arguments';
      readonly config: JsonCallsBodyConfig;
      readonly prefix: string | undefined;
    }
  | { readonly codec: 'held'; readonly inner: SpecCallData }
  | { readonly codec: 'markup' }
  | {
      readonly codec: 'first-character';
      readonly openerLength: number;
      readonly choices: readonly FirstCharacterChoice<SpecCallData>[];
    }
  | { readonly codec: 'reader'; readonly reader: FormatReader };

/**
 * A reader a format needs beyond its spec (a hook): what follows its own literal openers is read
 * by its body. Named, so the code a format adds to its spec says what it is for.
 */
export interface FormatReader {
  /** What it reads, for the code's reader (`generic JSON answer`). */
  readonly name: string;
  /** The literals that open it. */
  readonly open: readonly string[];
  /** Also read inside reasoning. Default false. */
  readonly inReasoning?: boolean;
  /** What its literals open, for `auto` (see CallOpener.kind). Default `call`. */
  readonly kind?: CallOpenerKind;
  /** The body that reads from just after the opener. */
  read(context: CallContext): CallBody;
}

/** The spec's reasoning blocks, `<think>` and `<thinking>` when it names none. */
export function reasoningOf(spec: FormatSpec): readonly ReasoningTag[] {
  return spec.reasoning && spec.reasoning.length > 0 ? spec.reasoning : THINK_TAGS;
}

/**
 * The grammar the stream engine runs for a spec (and the readers its hooks add). The openers are
 * made once per spec.
 */
export function compileGrammar(
  spec: FormatSpec,
  readers: readonly FormatReader[] = [],
  callBody?: CallBodyHook,
): ProtocolGrammar<SpecCallData> {
  const openers: CallOpener<SpecCallData>[] = sharedOpenersChosen(
    spec.calls
      .filter((form) => !form.perTool)
      .map((form) => ({
        opener: {
          literal: form.open,
          delimited: false,
          inReasoning: form.inReasoning === true,
          ...formDeclarations(form),
          data: callBody
            ? hookedData(form, callBody)
            : form.codec === 'json' && form.fenceHoldsForms
              ? fenceData(spec, form)
              : callData(form),
        },
        starts: form.starts,
        framingBefore: form.framingBefore,
      })),
  );
  for (const form of spec.calls) {
    if (form.codec !== 'json' || !form.bareArrays) continue;
    const { shape } = jsonConfig(form, true);
    for (const opener of bareArrayOpeners(shape, bareArrayLiterals(form.bareArrays))) {
      const data: SpecCallData = { codec: 'json', config: opener.data };
      openers.push({
        literal: opener.literal,
        delimited: false,
        // A bare `[` is prose unless a well-formed list of calls follows.
        kind: 'speculative',
        data: form.holdCalls ? { codec: 'held', inner: data } : data,
      });
    }
  }
  const markupInReasoning = spec.markupInReasoning === true;
  for (const literal of spec.markup ?? []) {
    openers.push({
      literal,
      delimited: false,
      ...(markupInReasoning ? { inReasoning: true } : {}),
      kind: 'framing',
      data: { codec: 'markup' },
    });
  }
  // A header mode's readers (harmony messages) come before the hooks' own.
  const allReaders = spec.header
    ? [...headerModeReaders(spec.header, spec.calls), ...readers]
    : readers;
  for (const reader of allReaders) {
    for (const literal of reader.open) {
      openers.push({
        literal,
        delimited: false,
        ...(reader.inReasoning ? { inReasoning: true } : {}),
        kind: reader.kind ?? 'call',
        data: { codec: 'reader', reader },
      });
    }
  }
  const perTool = spec.calls.filter((form) => form.perTool);
  return {
    reasoningTags: reasoningOf(spec),
    callOpeners: perTool.length === 0 ? () => openers : perToolOpeners(openers, perTool, callBody),
    openCall: openBody,
  };
}

/**
 * A hook that reads a call form's calls with a body of the format's own, where no codec reads
 * the envelope (the arrow form's `{tool => "NAME", args => …}`); undefined: the codec's body.
 */
export type CallBodyHook = (
  form: CallFormSpec,
  context: CallContext,
  /** The tool a `perTool` form's opener named (its `{name}` filled in `form`). */
  toolName?: string,
) => CallBody | undefined;

/** `form`'s opener data when a `callBody` hook may read it. */
function hookedData(form: CallFormSpec, callBody: CallBodyHook, toolName?: string): SpecCallData {
  const codecData = callData(form, toolName);
  return {
    codec: 'reader',
    reader: {
      name: `callBody of ${form.open}`,
      open: [form.open],
      read: (context) => callBody(form, context, toolName) ?? openBody(codecData, context),
    },
  };
}

/**
 * What a form's opener declares to a reader of several formats (`auto`): its kind, from the
 * form's certainty, and the characters its calls start with (`starts`, or `{` for JSON lines
 * whose opener holds none of the JSON).
 */
function formDeclarations(form: CallFormSpec): Pick<CallOpener<unknown>, 'kind' | 'callStarts'> {
  const kind: CallOpenerKind = form.certainty === 'speculative' ? 'speculative' : 'call';
  const callStarts =
    form.starts ??
    (form.codec === 'json' && form.perLine && form.openHoldsJson === undefined ? '{' : undefined);
  return callStarts === undefined ? { kind } : { kind, callStarts };
}

/**
 * The forms' openers, those that share a literal where one of them says what its calls start
 * with (`starts`) made one opener that chooses among them by the first character after it.
 * Otherwise the first form of a literal reads it (the opener trie keeps the first).
 */
function sharedOpenersChosen(
  forms: readonly {
    opener: CallOpener<SpecCallData>;
    starts: string | undefined;
    framingBefore: string | undefined;
  }[],
): CallOpener<SpecCallData>[] {
  const byLiteral = new Map<string, (typeof forms)[number][]>();
  for (const form of forms) {
    const group = byLiteral.get(form.opener.literal);
    if (group) group.push(form);
    else byLiteral.set(form.opener.literal, [form]);
  }
  const openers: CallOpener<SpecCallData>[] = [];
  for (const [literal, group] of byLiteral) {
    const first = group[0]!.opener;
    const framingBefore = group.find((form) => form.framingBefore !== undefined)?.framingBefore;
    if (
      framingBefore === undefined &&
      (group.length === 1 || group.every(({ starts }) => starts === undefined))
    ) {
      openers.push(first);
      continue;
    }
    const everyStarts = group.every(({ starts }) => starts !== undefined);
    const choices: FirstCharacterChoice<SpecCallData>[] = group.map(({ opener, starts }) => ({
      starts,
      data: opener.data,
    }));
    // Before one of `framingBefore`, the opener is a section's, dropped: tried first.
    if (framingBefore !== undefined) {
      choices.unshift({ starts: framingBefore, data: { codec: 'markup' }, framing: true });
    }
    openers.push({
      literal,
      delimited: false,
      inReasoning: first.inReasoning === true,
      kind: group.every(({ opener }) => opener.kind === 'speculative') ? 'speculative' : 'call',
      ...(everyStarts && framingBefore === undefined
        ? { callStarts: group.map(({ starts }) => starts).join('') }
        : {}),
      data: { codec: 'first-character', openerLength: literal.length, choices },
    });
  }
  return openers;
}

/** Distinct tool lists kept per spec; an application has a few, so this only bounds odd callers. */
const MAX_CACHED_TOOL_LISTS = 64;

/**
 * The openers of a spec with forms opened per declared tool (`perTool`): the spec's own, then
 * each such form once per tool, its name filled in. Kept per list of names, so the engine
 * compiles each list's openers once.
 */
function perToolOpeners(
  openers: readonly CallOpener<SpecCallData>[],
  forms: readonly CallFormSpec[],
  callBody: CallBodyHook | undefined,
): (options: ResolvedParseOptions) => readonly CallOpener<SpecCallData>[] {
  const byNames = new BoundedCache<string, readonly CallOpener<SpecCallData>[]>(
    MAX_CACHED_TOOL_LISTS,
  );
  return ({ tools }) => {
    if (tools.length === 0) return openers;
    const key = tools.map((tool) => tool.name).join('\u0000');
    const cached = byNames.get(key);
    if (cached !== undefined) return cached;
    const all = [...openers];
    for (const form of forms) {
      for (const tool of tools) {
        const filled = withToolName(form, tool.name);
        all.push({
          literal: filled.open,
          delimited: false,
          inReasoning: form.inReasoning === true,
          ...formDeclarations(form),
          data: callBody ? hookedData(filled, callBody, tool.name) : callData(filled, tool.name),
        });
      }
    }
    byNames.set(key, all);
    return all;
  };
}

/** A per-tool form for one tool: `{name}` and `{name_json}` filled in its opener. */
function withToolName(form: CallFormSpec, name: string): CallFormSpec {
  const values = { name, name_json: JSON.stringify(name) };
  const open = fillTemplate(form.open, values);
  if (form.codec === 'json' && form.openHoldsJson) {
    return { ...form, open, openHoldsJson: fillTemplate(form.openHoldsJson, values) };
  }
  return { ...form, open };
}

function openBody(data: SpecCallData, context: CallContext): CallBody {
  switch (data.codec) {
    case 'json':
      return new JsonCallsBody(context, data.config);
    case 'json-string-arguments':
      return new StringArgumentsBody(context, data.config);
    case 'json-fence':
      return new FencedCallBody(context, data.config, data.tagged);
    case 'tagged':
      return new ParameterTagsBody(context, data.opener);
    case 'python':
      return new PythonCallsBody(context, data.config);
    case 'dialect':
      return new DialectCallBody(context, data.form);
    case 'raw-code':
      return openRawCode(context, data.form, data.form.close);
    case 'markup':
      return new MarkupBody(context);
    case 'reader':
      return data.reader.read(context);
    case 'json-arguments': {
      const body = new JsonCallsBody(context, data.config);
      // The header reader reads no offsets: its terminator, written to it alone, leaves the
      // body at the JSON; then the JSON's first characters the opener took.
      body.write(ARGUMENTS_HEADER_END, 0, ARGUMENTS_HEADER_END.length);
      if (data.prefix) body.write(data.prefix, 0, data.prefix.length);
      return body;
    }
    case 'held':
      return new HeldCallsBody(context, (holding) => openBody(data.inner, holding));
    case 'first-character':
      return new FirstCharacterChoiceBody(context, data.openerLength, data.choices, openBody);
  }
}

/** A fence form's data: its JSON, and the spec's tag-opened json forms it may hold. */
function fenceData(spec: FormatSpec, fence: JsonCallForm): SpecCallData {
  const tagged: { literal: string; delimited: boolean; data: JsonCallsBodyConfig }[] = [];
  for (const form of spec.calls) {
    if (form.codec !== 'json' || form === fence || form.perTool || !form.open.startsWith('<')) {
      continue;
    }
    const data = callData(form);
    if (data.codec === 'json')
      tagged.push({ literal: form.open, delimited: false, data: data.config });
  }
  return {
    codec: 'json-fence',
    config: jsonConfig(fence, fence.certainty === 'speculative'),
    tagged: compileOpeners(tagged),
  };
}

/**
 * Ends the header of an `argumentsOnly` form's body: written to that body alone, never read from
 * the text (the opener named the tool).
 */
const ARGUMENTS_HEADER_END = '\u0000';

/** What an opener of `form` starts; `toolName` for a per-tool form, whose opener named the tool. */
function callData(form: CallFormSpec, toolName?: string): SpecCallData {
  const data = codecData(form, toolName);
  return form.codec === 'json' && form.holdCalls ? { codec: 'held', inner: data } : data;
}

function codecData(form: CallFormSpec, toolName?: string): SpecCallData {
  const speculative = form.certainty === 'speculative';
  switch (form.codec) {
    case 'json': {
      if (form.argumentsOnly && toolName !== undefined) {
        const { openHoldsJson: prefix, ...rest } = form;
        return {
          codec: 'json-arguments',
          config: {
            ...jsonConfig(rest, speculative),
            header: { terminator: ARGUMENTS_HEADER_END, readName: () => toolName },
          },
          prefix,
        };
      }
      const config = jsonConfig(form, speculative);
      if (form.argumentsAsString && config.header && config.closer !== undefined) {
        const json = { ...config, header: config.header, closer: config.closer };
        return {
          codec: 'json-string-arguments',
          config: { json, openLength: form.open.length },
        };
      }
      return { codec: 'json', config };
    }
    case 'tagged':
      return {
        codec: 'tagged',
        opener: form.close
          ? { syntax: form.syntax, blockClose: form.close }
          : {
              syntax: form.syntax,
              bare: {
                consumed: form.openConsumed ?? '',
                ...(form.strayClose ? { strayClose: form.strayClose } : {}),
              },
            },
      };
    case 'python':
      return {
        codec: 'python',
        config: {
          speculative,
          ...(form.close ? { closer: form.close } : {}),
          ...(form.listOpened ? { listOpened: true } : {}),
          ...(form.single ? { single: true } : {}),
          ...(form.lines ? { lines: true } : {}),
          ...(form.nameSuffix ? { nameSuffix: form.nameSuffix } : {}),
          ...(form.rawCode && form.close
            ? { otherwise: rawCodeOtherwise(form.rawCode, form.close) }
            : {}),
          // A per-tool opener took the call's name and `(`.
          ...(toolName !== undefined ? { openedCall: toolName } : {}),
          ...(form.jsonFallback && form.close
            ? {
                json: {
                  shape: {
                    nameKeys: DEFAULT_NAME_KEYS,
                    argumentKeys: form.argumentKeys ?? DEFAULT_ARGUMENT_KEYS,
                  },
                  closer: form.close,
                  speculative,
                  ...(form.separator ? { separator: form.separator } : {}),
                },
              }
            : {}),
        },
      };
    case 'dialect':
      return { codec: 'dialect', form };
    case 'raw-code':
      return { codec: 'raw-code', form };
  }
}

const DEFAULT_NAME_KEYS = ['name'];
const DEFAULT_ARGUMENT_KEYS = ['arguments', 'parameters'];

function jsonConfig(form: JsonCallForm, speculative: boolean): JsonCallsBodyConfig {
  const header = form.nameHeader;
  return {
    shape: {
      nameKeys: form.nameKeys ?? DEFAULT_NAME_KEYS,
      argumentKeys: form.argumentKeys ?? DEFAULT_ARGUMENT_KEYS,
      ...(form.nameAsKey ? { nameAsKey: true } : {}),
    },
    speculative,
    ...(form.close ? { closer: form.close } : {}),
    ...(form.openHoldsJson ? { jsonPrefix: form.openHoldsJson } : {}),
    ...(form.languageTag ? { skipLanguageTag: true } : {}),
    ...(form.fenced ? { fencedJson: true } : {}),
    ...(form.strict ? { strictJson: true } : {}),
    ...(form.separator ? { separator: form.separator } : {}),
    ...(form.perLine ? { perLine: true } : {}),
    ...(form.strayClose ? { strayCloser: form.strayClose } : {}),
    ...(header
      ? {
          header: {
            terminator: header.end,
            readName: (text: string) => {
              const unwrapped = header.nameAttribute
                ? attributeValue(text, header.nameAttribute)
                : header.nameQuoted
                  ? unquoted(text)
                  : text;
              return unwrapped === undefined
                ? undefined
                : nameInHeader(unwrapped, header.namePrefixes ?? [], header.nameEnds);
            },
          },
        }
      : {}),
  };
}

/** `text` trimmed, less one quote (`"` or `'`) on either side. */
function unquoted(text: string): string {
  let name = text.trim();
  if (name.startsWith('"') || name.startsWith("'")) name = name.slice(1);
  if (name.endsWith('"') || name.endsWith("'")) name = name.slice(0, -1);
  return name;
}

/** The quoted value of `attribute` when the header is `ATTRIBUTE = "VALUE"` and nothing else. */
function attributeValue(header: string, attribute: string): string | undefined {
  const text = header.trim();
  if (!text.startsWith(attribute)) return undefined;
  let index = attribute.length;
  while (index < text.length && isWhiteSpace(text.charCodeAt(index))) index++;
  if (text[index] !== '=') return undefined;
  index++;
  while (index < text.length && isWhiteSpace(text.charCodeAt(index))) index++;
  const quote = text[index];
  if ((quote !== '"' && quote !== "'") || text.length - index < 3) return undefined;
  const last = text[text.length - 1];
  if (last !== '"' && last !== "'") return undefined;
  const value = text.slice(index + 1, -1);
  return value.includes('"') || value.includes("'") ? undefined : value;
}

/** Longest tool name read from a header. */
const MAX_NAME_LENGTH = 256;

/**
 * The tool's name in a header: the text trimmed, one of `prefixes` dropped from its front. A
 * header holding white space, quotes or markup inside is no name (the opener was prose), unless
 * the name is only the header's first word (`ends` is `word`): then what follows the first white
 * space or `<` is dropped (gpt-oss's `to=functions.NAME <|constrain|>json`). A header that is a
 * call id (`ends` is `index`) is the name, then `:` and digits (Kimi-K2's `functions.NAME:0`).
 */
export function nameInHeader(
  header: string,
  prefixes: readonly string[],
  ends?: 'word' | 'index',
): string | undefined {
  let name = header.trim();
  if (ends === 'word') {
    let end = 0;
    while (end < name.length && !/[\s<]/.test(name[end] ?? '')) end++;
    name = name.slice(0, end);
  } else if (ends === 'index') {
    const colon = name.lastIndexOf(':');
    if (colon === -1 || colon === name.length - 1) return undefined;
    for (let index = colon + 1; index < name.length; index++) {
      const code = name.charCodeAt(index);
      if (code < 48 || code > 57) return undefined;
    }
    name = name.slice(0, colon);
  }
  for (const prefix of prefixes) {
    if (name.startsWith(prefix)) {
      name = name.slice(prefix.length);
      break;
    }
  }
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return undefined;
  for (let index = 0; index < name.length; index++) {
    const character = name[index];
    if (
      character === ' ' ||
      character === '\t' ||
      character === '\n' ||
      character === '\r' ||
      character === '"' ||
      character === "'" ||
      character === '<' ||
      character === '>' ||
      character === '{' ||
      character === '}' ||
      (ends === 'index' && character === ':')
    ) {
      return undefined;
    }
  }
  return name;
}
