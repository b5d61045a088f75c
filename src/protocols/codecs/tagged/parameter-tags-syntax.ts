import { APOSTROPHE, EQUALS_SIGN, QUOTATION_MARK } from '../../../scan/char-codes.ts';
import { isMarkupSpace } from '../../../scan/characters.ts';
import { decodeReferences } from '../../xml/value-text.ts';
import { jsonForPrompt } from '../json/json-text.ts';

/**
 * The tag syntax of a format whose calls carry their arguments as parameter tags, as data, so
 * one reader (`ParameterTagsBody`) serves every such format. Three shapes are covered:
 *
 * - Qwen3-Coder / Seed-OSS: `<function=NAME>` `<parameter=KEY>v</parameter>` `</function>`.
 * - MiniMax-M2 / DeepSeek V3.2 DSML: `<invoke name="NAME">` `<parameter name="KEY">v</parameter>`
 *   `</invoke>` (DSML prefixes each tag with `｜DSML｜` and adds `string="true|false"`).
 * - GLM-4.5/4.6/4.7: `NAME` right after the block opener, then `<arg_key>KEY</arg_key>`
 *   `<arg_value>v</arg_value>`; the block's closer ends the call.
 *
 * A tag header (what follows `callOpen` or `parameterOpen` up to `>`) is read either as `=NAME`
 * (quotes around NAME allowed) or as attributes (`name="NAME"`, and `string="true|false"`), so a
 * model that mixes the two spellings is still read. Names are trimmed and their XML references
 * decoded (a formatter escapes the rare name that holds `>` or edge white space that way).
 *
 * Example (DeepSeek V3.2's DSML):
 * ```ts
 * const DSML: ParameterTagsSyntax = {
 *   callOpen: '<｜DSML｜invoke',
 *   callClose: '</｜DSML｜invoke>',
 *   parameterOpen: '<｜DSML｜parameter',
 *   parameterClose: '</｜DSML｜parameter>',
 *   layout: 'inline',
 * };
 * // opener data: { syntax: DSML, blockClose: '</｜DSML｜function_calls>' } for the literal
 * // '<｜DSML｜function_calls>'.
 * ```
 */
export interface ParameterTagsSyntax {
  /**
   * Opens one call inside a block: `<function`, `<invoke`. Empty when the tool's name follows the
   * block opener directly, ended by a line break or the first tag (GLM's `<tool_call>NAME`).
   */
  readonly callOpen: string;
  /** Closes one call: `</function>`, `</invoke>`. Empty when the block's closer ends the call (GLM). */
  readonly callClose: string;
  /** Opens a parameter: `<parameter` (a tag header follows) or `<arg_key>` (with `keyClose`). */
  readonly parameterOpen: string;
  /**
   * When set, the parameter's name is the text up to this literal (`</arg_key>`), and its value
   * opens with `valueOpen` (`<arg_value>`) after optional white space.
   */
  readonly keyClose?: string;
  readonly valueOpen?: string;
  /** Closes a value: `</parameter>`, `</arg_value>`. */
  readonly parameterClose: string;
  /**
   * How models lay values out, which decides the white space that is layout rather than content:
   *
   * - `block` (Qwen3-Coder): a value is written on its own lines, `<parameter=k>\nvalue\n</parameter>`.
   *   One line break after the opening tag and one before the closing tag (with that line's
   *   indentation) are layout. When the closing tag is indented, or either break is missing, a
   *   value on one line is also trimmed (`<parameter=k>\n    1\n  </parameter>` is `1`); with the
   *   exact layout it is kept as written, so every string can be written and read back.
   * - `inline` (MiniMax, Seed-OSS, DSML): a value is written between its tags as it is. A
   *   line break right after the opening tag, and one right before the closing tag (with that
   *   line's indentation), are still layout, as models sometimes put them there.
   * - `exact` (GLM's `<arg_value>`): every character between the tags is the value's, line breaks
   *   and indentation included (GLM's template writes values as they are, and exact-match edit
   *   tools need them back byte for byte: vLLM #42026, SGLang #20543). Only when the value's
   *   closer is missing is the line break before the tag that ended it layout.
   */
  readonly layout: 'block' | 'inline' | 'exact';
  /**
   * Near misses of Qwen3-Coder's family read as calls, each only for a declared tool: a call's
   * opening tag that lost its `<` inside a block (`<tool_call>function=NAME>`), and a header with
   * a space instead of `=` (`<function NAME>`, Step 3.5). Anything else stays malformed.
   */
  readonly nearMisses?: boolean;
  /**
   * Decode XML references (`&amp;`, `&#10;`) in values. Default false: the chat templates of
   * these families write values raw, so `&lt;` in a value is text the model meant (HTML source).
   */
  readonly decodeEntities?: boolean;
  /**
   * The literal that ends a tag header. Default `>`. Kimi K3 writes
   * `<|open|>call tool="f" index="1"<|sep|>` and `<|open|>argument key="k" type="string"<|sep|>`.
   */
  readonly headerClose?: string;
  /** The attribute that names the tool in a call's header. Default `name` (Kimi K3: `tool`). */
  readonly nameAttribute?: string;
  /** The attribute that names a parameter in its header. Default `name` (Kimi K3: `key`). */
  readonly keyAttribute?: string;
  /**
   * The attribute that says how a value is written, when it is not DSML's `string="true|false"`:
   * a value whose attribute is one of `rawTypes` is taken as written, any other value is JSON
   * (Kimi K3: `type="string"` raw, `type="number"`, `"object"`… JSON; JSON that does not read
   * stays the text).
   */
  readonly typeAttribute?: string;
  readonly rawTypes?: readonly string[];
  /**
   * The tool's name is the text right after `callOpen` (a whole tag: Hunyuan's `<tool_call>NAME`),
   * ended by a line break or a tag, not a tag header. Implied when `callOpen` is empty (GLM).
   */
  readonly nameAsText?: boolean;
  /** Dropped right after a name read as text, when written (Hy3's `<tool_sep>`). */
  readonly nameClose?: string;
  /**
   * Every tag of the block carries the suffix its opener was written with (Hunyuan's
   * `<tool_calls:opensource>`, `<tool_call:opensource>`, `</arg_value:opensource>`; the suffix is
   * the checkpoint's, so it is read, not listed). The opener is the block tag without its `>`
   * (`<tool_calls`); the tags here and the block's closer are written without a suffix, and the
   * suffix read (`:opensource`, or none) is put before each one's `>`.
   */
  readonly suffixedTags?: boolean;
  /**
   * Values may hold `<![CDATA[…]]>` sections: their text is the value's as it is, tags in it
   * included (MiniCPM's `<param name="code"><![CDATA[…]]></param>`).
   */
  readonly cdata?: boolean;
  /**
   * Byte-level tokenizer artefacts in headers: the space before the attributes may be written as
   * `Ġ` (U+0120) or be missing (`<paramĠname="k">`, `<paramname="k">`, MiniCPM's vLLM parser).
   */
  readonly spaceMarkers?: boolean;
  /**
   * Literals dropped in a block between calls: per-call framing around the call's own tags
   * (Step-3's `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke …>…<｜tool_call_end｜>`).
   */
  readonly betweenCalls?: readonly string[];
  /**
   * In a block, the tool's name alone before a call's opener is dropped (Step-3's
   * `function<｜tool_sep｜>edit_file\n<steptml:invoke name="edit_file">`).
   */
  readonly nameBeforeCall?: boolean;
  /**
   * The opener of the next block, for formats with one block per call (Solar Open 2's
   * `<|tool_call:start|>`): where a tag of the call may stand, it ends the call whose closer was
   * dropped.
   */
  readonly nextBlock?: string;
  /**
   * A parameter is an element named by its key (MiniMax-M3's `NS<city>Oslo NS</city>`, where NS is
   * `]<]minimax[>[`): `parameterOpen` is the element's opening up to its name (`NS<`),
   * `parameterClose` its closing up to the name (`NS</`), and the name runs to `>`. A value may
   * hold child elements written the same way: an object's members by key, an array's items as
   * `item` elements (a key written twice makes an array); the rest is typed by the schema.
   */
  readonly elementParameters?: boolean;
  /**
   * An element holding all the arguments as one JSON object, in place of parameters: its opening
   * up to a tag header (`<|open|>json`, ended by `headerClose`) and its closer (Kimi K3's
   * `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`).
   */
  readonly argumentsOpen?: string;
  readonly argumentsClose?: string;
  /**
   * The block's opener is followed by a header ending at this literal, which is framing (Muse
   * Glimmer's tool channel, ` to=get_weather.get_weather<|message|>` after ` to=`). A header that
   * does not end so (a line break or a tag first, or too long) means the opener was prose.
   */
  readonly blockHeaderClose?: string;
  /**
   * The block's opener also holds its first call's opener (`<tool_calls>\n<tool_call>`), so
   * that it is a longer literal than another format's block opener (`<tool_calls>` then JSON,
   * Hunyuan-A13B's): the body starts at that call's name or header.
   */
  readonly blockOpenHoldsCall?: boolean;
  /**
   * A name written twice, dot-joined (`get_weather.get_weather`), names the declared tool
   * `get_weather` when no tool has the whole name (Muse Glimmer's recipients).
   */
  readonly repeatedNames?: boolean;
}

/** What an opener of a parameter-tag format hands the body (the opener's `data`). */
export interface ParameterTagsOpener {
  readonly syntax: ParameterTagsSyntax;
  /**
   * The opener is a block (`<tool_call>`, `<minimax:tool_call>`) holding calls up to this closer
   * (`</tool_call>`). Unset: the opener is a call's own opening tag written without its block.
   */
  readonly blockClose?: string;
  /**
   * For a call's own opening tag written without its block (`<function=`): the part of the tag
   * header the opener already consumed (`=`), and the block closer models still write after
   * such a call (`</tool_call>`), dropped when it follows.
   */
  readonly bare?: { readonly consumed: string; readonly strayClose?: string };
}

/**
 * The tool's name in a header written with a space instead of `=` (` NAME`, of `<function NAME>`):
 * one word after white space, or undefined.
 */
export function bareWordName(header: string): string | undefined {
  if (header.length === 0 || !isMarkupSpace(header.charCodeAt(0))) return undefined;
  const name = header.trim();
  if (name === '') return undefined;
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    // White space, `=` or a quote: attributes (read by readTagHeader), not one bare word.
    if (
      isMarkupSpace(code) ||
      code === EQUALS_SIGN ||
      code === QUOTATION_MARK ||
      code === APOSTROPHE
    )
      return undefined;
  }
  return name;
}

/** Longest tag header or name read (a longer one is not markup). */
export const MAX_HEADER_CHARS = 512;

/** The tags of one opener's calls, in the order the reader tries them. */
export interface ParameterTagsLiterals {
  /** Tags that may end a value: its closer, the next parameter, the call's or block's closer. */
  readonly valueLiterals: readonly string[];
  /** Tags of a call, met between parameters and after a closing tag met in a value. */
  readonly callLiterals: readonly string[];
  /** Tags met in a block between calls: a call's opener, the block's closer. */
  readonly blockLiterals: readonly string[];
  /** A call's opener without its `<`, then `=` (`function=`), when the syntax reads near misses. */
  readonly bracketLost: readonly string[];
  /** Framing dropped between calls (`betweenCalls`). */
  readonly betweenCalls: readonly string[];
}

/** Per opener (formats hand the same opener data to every call): its literals. */
const literalsByOpener = new WeakMap<ParameterTagsOpener, ParameterTagsLiterals>();

export function tagLiteralsOf(opener: ParameterTagsOpener): ParameterTagsLiterals {
  let literals = literalsByOpener.get(opener);
  if (literals === undefined) {
    const syntax = opener.syntax;
    const blockClose = opener.blockClose ?? '';
    const strayClose = opener.bare?.strayClose ?? '';
    literals = {
      valueLiterals: [
        syntax.parameterClose,
        syntax.parameterOpen,
        syntax.callClose,
        blockClose,
        strayClose,
      ].filter((literal) => literal !== ''),
      callLiterals: [
        syntax.parameterOpen,
        syntax.callClose,
        blockClose,
        strayClose,
        syntax.callOpen,
        syntax.nextBlock ?? '',
        syntax.argumentsOpen ?? '',
      ].filter((literal) => literal !== ''),
      blockLiterals: [syntax.callOpen, blockClose],
      bracketLost:
        syntax.nearMisses && syntax.callOpen.startsWith('<')
          ? [`${syntax.callOpen.slice(1)}=`]
          : [],
      betweenCalls: (syntax.betweenCalls ?? []).filter((literal) => literal !== ''),
    };
    literalsByOpener.set(opener, literals);
  }
  return literals;
}

/** Longest tag suffix read (`:opensource`, `:6124c78e`). */
export const MAX_SUFFIX_CHARS = 64;

/** Per opener, the opener with each suffix read so far put into its tags. */
const suffixedOpeners = new WeakMap<ParameterTagsOpener, Map<string, ParameterTagsOpener>>();

/**
 * The opener of a `suffixedTags` syntax with `suffix` (`:opensource`, or '') put before the `>`
 * of each of its tags and of its block's closer. Made once per opener and suffix.
 */
export function suffixedOpener(opener: ParameterTagsOpener, suffix: string): ParameterTagsOpener {
  let bySuffix = suffixedOpeners.get(opener);
  if (bySuffix === undefined) {
    bySuffix = new Map();
    suffixedOpeners.set(opener, bySuffix);
  }
  let suffixed = bySuffix.get(suffix);
  if (suffixed === undefined) {
    const tag = (literal: string | undefined): string =>
      literal === undefined || literal === '' || suffix === ''
        ? (literal ?? '')
        : literal.endsWith('>')
          ? `${literal.slice(0, -1)}${suffix}>`
          : `${literal}${suffix}`;
    const syntax = opener.syntax;
    suffixed = {
      syntax: {
        ...syntax,
        callOpen: tag(syntax.callOpen),
        callClose: tag(syntax.callClose),
        parameterOpen: tag(syntax.parameterOpen),
        parameterClose: tag(syntax.parameterClose),
        ...(syntax.keyClose === undefined ? {} : { keyClose: tag(syntax.keyClose) }),
        ...(syntax.valueOpen === undefined ? {} : { valueOpen: tag(syntax.valueOpen) }),
        ...(syntax.nameClose === undefined ? {} : { nameClose: tag(syntax.nameClose) }),
        suffixedTags: false,
      },
      ...(opener.blockClose === undefined ? {} : { blockClose: tag(opener.blockClose) }),
      ...(opener.bare === undefined ? {} : { bare: opener.bare }),
    };
    // A model that writes a new suffix at every block would grow the map without bound.
    if (bySuffix.size < 16) bySuffix.set(suffix, suffixed);
  }
  return suffixed;
}

/** The parts of a tag header the reader uses. */
export interface TagHeader {
  readonly name: string;
  /** DSML's `string` attribute: true (take the value as written), false (a JSON value), or unset. */
  readonly string?: boolean;
}

/** What `readTagHeader` needs of a syntax: which attributes name and type a tag. */
export type TagHeaderSyntax = Pick<
  ParameterTagsSyntax,
  'typeAttribute' | 'rawTypes' | 'spaceMarkers'
>;

/** The byte-level tokenizer's marker for a space (`Ġ`). */
const SPACE_MARKER = 0x0120;

/**
 * Reads a tag header (`=NAME`, `="NAME"`, ` name="NAME" string="true"`): the name, or undefined
 * when the header is neither form. `nameAttribute` is the attribute that names the tag; the
 * syntax says which attribute types the value (DSML's `string` by default).
 */
export function readTagHeader(
  header: string,
  nameAttribute = 'name',
  syntax?: TagHeaderSyntax,
): TagHeader | undefined {
  if (header.charCodeAt(0) === EQUALS_SIGN) {
    let name = header.slice(1).trim();
    const first = name.charCodeAt(0);
    if (
      name.length >= 2 &&
      (first === QUOTATION_MARK || first === APOSTROPHE) &&
      name.charCodeAt(name.length - 1) === first
    ) {
      name = name.slice(1, -1);
    }
    return { name: readName(name) };
  }
  if (syntax?.spaceMarkers) {
    // `<paramĠname="k">` and `<paramname="k">`: a byte-level tokenizer's spellings of the space.
    if (header.charCodeAt(0) === SPACE_MARKER) header = ` ${header.slice(1)}`;
    else if (header.startsWith(`${nameAttribute}=`)) header = ` ${header}`;
  }
  if (header.length === 0 || !isMarkupSpace(header.charCodeAt(0))) return undefined;
  const attributes = readAttributes(header);
  const name = attributes?.get(nameAttribute);
  if (name === undefined) return undefined;
  let string: string | undefined;
  if (syntax?.typeAttribute !== undefined) {
    const type = attributes!.get(syntax.typeAttribute);
    if (type !== undefined) string = (syntax.rawTypes ?? []).includes(type) ? 'true' : 'false';
  } else string = attributes!.get('string');
  return {
    name: readName(name),
    ...(string === 'true' ? { string: true } : string === 'false' ? { string: false } : {}),
  };
}

/** A name as written: trimmed, references decoded. */
export function readName(raw: string): string {
  const trimmed = raw.trim();
  return trimmed.includes('&') ? decodeReferences(trimmed) : trimmed;
}

/** `a="x" b='y' c=z`, read by hand (headers come from model output). Undefined when malformed. */
function readAttributes(text: string): Map<string, string> | undefined {
  const attributes = new Map<string, string>();
  let index = 0;
  const length = text.length;
  while (index < length) {
    while (index < length && isMarkupSpace(text.charCodeAt(index))) index++;
    if (index >= length) break;
    const nameStart = index;
    while (index < length) {
      const code = text.charCodeAt(index);
      if (code === EQUALS_SIGN || isMarkupSpace(code)) break;
      index++;
    }
    const name = text.slice(nameStart, index);
    while (index < length && isMarkupSpace(text.charCodeAt(index))) index++;
    if (text.charCodeAt(index) !== EQUALS_SIGN) return undefined;
    index++;
    while (index < length && isMarkupSpace(text.charCodeAt(index))) index++;
    const quote = text.charCodeAt(index);
    let value: string;
    if (quote === QUOTATION_MARK || quote === APOSTROPHE) {
      const close = text.indexOf(text[index]!, index + 1);
      if (close === -1) return undefined;
      value = text.slice(index + 1, close);
      index = close + 1;
    } else {
      const valueStart = index;
      while (index < length && !isMarkupSpace(text.charCodeAt(index))) index++;
      value = text.slice(valueStart, index);
    }
    if (!attributes.has(name)) attributes.set(name, value);
  }
  return attributes;
}

/** Characters a name cannot hold as written (the reader trims names and stops at `>` or `<`). */
const NAME_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/**
 * A name as a formatter writes it so that `readName` gives it back: as it is when it needs
 * nothing (every identifier), else with `& < > " '`, line breaks and edge white space escaped,
 * and a leading `/` (an element named `/x` would read as a closing tag).
 */
export function writeName(name: string): string {
  if (/^[^&<>"'\r\n]*$/.test(name) && name.trim() === name && !name.startsWith('/')) {
    return name;
  }
  const leading = name.length - name.trimStart().length;
  const trailing = name.length - name.trimEnd().length;
  let written = '';
  for (let index = 0; index < name.length; index++) {
    const character = name[index]!;
    const escaped = NAME_ESCAPES[character];
    if (escaped !== undefined) written += escaped;
    else if (
      index < leading ||
      index >= name.length - trailing ||
      (index === 0 && character === '/')
    ) {
      written += `&#${character.charCodeAt(0)};`;
    } else written += character;
  }
  return written;
}

/**
 * A value as a formatter writes it between its tags, so that the reader gives it back exactly:
 * a string as it is, anything else as JSON; then laid out as `layout` says (a `block` value on
 * its own lines; an `inline` value on its own lines only when its first or last line break would
 * otherwise be read as layout; an `exact` value as it is). Given a syntax that reads CDATA, a
 * value holding `<` is written in CDATA (every tag in it is then content), `]]>` split across two
 * sections.
 */
export function writeValueText(
  value: unknown,
  layoutOrSyntax: 'block' | 'inline' | 'exact' | ParameterTagsSyntax,
): string {
  const text = typeof value === 'string' ? value : jsonForPrompt(value);
  if (typeof layoutOrSyntax !== 'string') {
    if (layoutOrSyntax.cdata && text.includes('<')) {
      return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
    }
    return writeValueText(value, layoutOrSyntax.layout);
  }
  const layout = layoutOrSyntax;
  if (layout === 'exact') return text;
  if (layout === 'block' || /^\r?\n|\n[ \t]*$/.test(text)) return `\n${text}\n`;
  return text;
}
