/**
 * A tool-call format as data (`FormatSpec`): literal markers, where the name stands, one argument
 * codec per call form, and templates for what the writers write. Everything here is plain JSON
 * (no functions, no regular expressions), so a spec can live in a file (`--format-file`), be
 * derived from a chat template, and, in the next step, become a grammar.
 *
 * `defineFormat(spec)` (./define.ts) builds the protocol: the stream parser with every guarantee
 * of the hand-written ones, `formatToolCall`, `formatToolResponse` and `formatTools`.
 */
import type { HeaderModeSpec } from '../codecs/harmony/header-spec.ts';
import type { RawCodeSpec } from '../codecs/raw-code/raw-code-spec.ts';
import type { ParameterTagsSyntax } from '../codecs/tagged/parameter-tags-syntax.ts';

/** The version of this shape; a file with another `spec` is refused. */
export const FORMAT_SPEC_VERSION = 1;

export interface FormatSpec {
  readonly spec: typeof FORMAT_SPEC_VERSION;
  /** The `--protocol` name: lower-case letters, digits, `-`, `_`, `.`. */
  readonly name: string;
  readonly aliases?: readonly string[];
  /** The model families that write it, for `toolwire parse --list` and the docs. */
  readonly families?: string;
  /**
   * Model ids this format is native to, as substrings of the lower-cased id (`gemma-4`,
   * `kimi-k3`). Substrings, not regular expressions: a model id comes from a request.
   */
  readonly models?: readonly string[];
  /** One short call as the model writes it (docs, `parse --list`). Default: the writer's. */
  readonly example?: string;
  /** Reasoning blocks. Default `<think>…</think>` and `<thinking>…</thinking>`. */
  readonly reasoning?: readonly ReasoningSpec[];
  /**
   * The chat template's generation prompt opens reasoning (`<think>` left open), so an output
   * begins inside it. A parse option can still override it either way.
   */
  readonly startInReasoning?: boolean;
  /** Literals that are the format's framing and are dropped wherever they stand (`<|END_ACTION|>`). */
  readonly markup?: readonly string[];
  /**
   * The `markup` literals are dropped inside reasoning too (Kimi-K2-Thinking writes its call
   * section before it closes its reasoning). Default false: inside reasoning they are reasoning.
   */
  readonly markupInReasoning?: boolean;
  /**
   * Harmony-style messages (gpt-oss, Muse Glimmer): each opened by a header naming its role,
   * channel and recipient, which decides what the message is: reasoning, text, or a call of the
   * recipient. See HeaderModeSpec.
   */
  readonly header?: HeaderModeSpec;
  /** How calls are read, in precedence order: the first form whose opener matches reads. */
  readonly calls: readonly CallFormSpec[];
  /** How `formatToolCall` writes calls. */
  readonly write: WriteSpec;
  /** How `formatToolResponse` writes results. */
  readonly results: ResultSpec;
  /** How `formatTools` teaches the format. Default: a generic instruction with an example call. */
  readonly prompt?: PromptSpec;
  /** `one`: one action per turn, the run ends with a completion tool (Probe's XML). Default `all`. */
  readonly actionsPerTurn?: 'one' | 'all';
}

export interface ReasoningSpec {
  readonly open: string;
  readonly close: string;
  /**
   * Other literals that also end the block, consumed like `close` (Kimi K3's
   * `<|open|>response<|sep|>`, written when the model left out the think element's closer).
   */
  readonly closeAlternatives?: readonly string[];
  /**
   * `open` and `close` are followed by a suffix (Hunyuan Hy3/Hy4's `<think:6124c78e>`): the
   * block opens at `open` + `>` or `:SUFFIX>` (1–64 characters, none white space, `<` or `>`)
   * and ends at `close` + the same suffix + `>`; a block the prompt opened ends at `close` + any
   * such suffix + `>`. Default false.
   */
  readonly suffixed?: boolean;
}

/** One way a call is written: its opener, its closer and its argument codec. */
export type CallFormSpec =
  | JsonCallForm
  | TaggedCallForm
  | PythonCallForm
  | DialectCallForm
  | RawCodeCallForm;

export type { RawCodeSpec };

interface CallFormBase {
  /** The literal that opens the form (a section, or one call). Never empty. */
  readonly open: string;
  /**
   * `explicit` (default): the opener is markup, a broken call in it is reported as a fault.
   * `speculative`: the opener may be ordinary text (a fence, a bare `[`); anything that is not a
   * well-formed call to a declared tool is given back as text.
   */
  readonly certainty?: 'explicit' | 'speculative';
  /** Also read inside reasoning (Kimi's and Mistral's special tokens). Default false. */
  readonly inReasoning?: boolean;
  /**
   * The form is opened once per declared tool: `open` (and a json form's `openHoldsJson`) holds
   * `{name}` or `{name_json}` (the name as a JSON string), filled with each tool's name. A bare
   * call can often be told from prose only by the declared name it begins with (Apertus's
   * `[{"get_weather"`, Granite's `get_weather(` at the start of the output). A python form's
   * opener then ends with the call's `(`: the name is the tool's.
   */
  readonly perTool?: boolean;
  /**
   * The characters a call of this form can start with, after the opener and any white space
   * (`[` for a JSON list, `<` for a tag). Formats that share an opener (`<tool_calls>`) are then
   * told apart by that character without reading the call. Default: any character (`{` for a
   * `perLine` JSON form whose opener holds none of the JSON).
   */
  readonly starts?: string;
  /**
   * The opener is also a section's opener, which models write with or without each call's own:
   * followed (after white space) by one of these characters it is framing and is dropped
   * (DeepSeek's `<｜tool▁calls▁begin｜>` before `<｜tool▁call▁begin｜>`: `<`); followed by
   * anything else it opens this form's call (V3 leaves the call's own opener out). Alone at the
   * output's end it is dropped.
   */
  readonly framingBefore?: string;
}

/**
 * JSON calls: `{"name": …, "arguments": {…}}`, a list of them, or JSON arguments after a
 * name written in a header (`<function=NAME>{…}`, `call:NAME{…}`).
 */
export interface JsonCallForm extends CallFormBase {
  readonly codec: 'json';
  /** The literal after the JSON (`</tool_call>`). Absent: the form ends where its JSON ends. */
  readonly close?: string;
  /** Keys that may hold the tool's name. Default `["name"]`. */
  readonly nameKeys?: readonly string[];
  /** Keys that may hold the arguments (an object, or a string holding one). Default `["arguments", "parameters"]`. */
  readonly argumentKeys?: readonly string[];
  /** The call object's only key is the tool's name, its value the arguments (Apertus). */
  readonly nameAsKey?: boolean;
  /**
   * The name is written between the opener and this literal, and the JSON after it is the
   * arguments alone (`<function=` NAME `>` `{…}`). The name is trimmed; one of `namePrefixes`
   * (`functions.`) is dropped from its front.
   */
  readonly nameHeader?: {
    readonly end: string;
    readonly namePrefixes?: readonly string[];
    /**
     * `word`: the name is the header's first word; the rest of the header is dropped. `index`:
     * the header is a call id, the name then `:` and digits (Kimi-K2's `functions.NAME:0`).
     */
    readonly nameEnds?: 'word' | 'index';
    /** The name may stand in quotes (`<function="NAME">`). */
    readonly nameQuoted?: boolean;
    /** The header is this attribute, the name its quoted value (`name="NAME"`). */
    readonly nameAttribute?: string;
  };
  /**
   * With `nameHeader` and `close`: the arguments may also be written as a JSON string that holds
   * the object (`"{\"city\": \"Oslo\"}"`, Kimi-K2): decoded once. A string holding no object
   * fails the call.
   */
  readonly argumentsAsString?: boolean;
  /**
   * The form is a Markdown fence: it holds JSON, or one call of another json form of the spec
   * whose opener is a tag (```` ```xml <tool_call>…</tool_call> ``` ````), read by that form, the
   * fence going with it. Any other fence is text.
   */
  readonly fenceHoldsForms?: boolean;
  /**
   * A closer models leave after bare JSON whose opener they left out (`{…}</tool_call>`): dropped
   * when only white space stands between the call and it.
   */
  readonly strayClose?: string;
  /** The opener already holds the JSON's first characters (`functools[` holds `[`). */
  readonly openHoldsJson?: string;
  /** Dropped between calls written one after another (Llama 3's `;`). */
  readonly separator?: string;
  /**
   * The block holds one call object per line (MiniMax-M1's `<tool_calls>\n{…}\n{…}\n</tool_calls>`):
   * a line that is not a call object is reported with its raw text and reading goes on.
   */
  readonly perLine?: boolean;
  /** The JSON may sit in a Markdown fence (```` ```json ````). */
  readonly fenced?: boolean;
  /** Skip a language word right after the opener (a fence's `json`). */
  readonly languageTag?: boolean;
  /** JSON that is not valid is reported, never repaired. Default: repaired when nothing is invented. */
  readonly strict?: boolean;
  /**
   * With `perTool`: the opener names the tool, and the JSON after it (or begun by
   * `openHoldsJson`) is that call's arguments (Mistral's `get_weather[ARGS]{…}` at the start of
   * an output whose special tokens a server stripped).
   */
  readonly argumentsOnly?: boolean;
  /**
   * None of the block's calls runs before the block is whole: a JSON list without `close` (its
   * closer is its `]`) cut off after two calls runs neither, and is reported whole as a cut-off
   * call. Also holds the `bareArrays` the form adds.
   */
  readonly holdCalls?: boolean;
  /**
   * Also read a bare JSON array of calls whose first object begins with one of these keys
   * (`[{"name"`, with the white space templates print), as servers leave it once they strip the
   * opener. Speculative: only a well-formed array of calls to declared tools is read.
   */
  readonly bareArrays?: readonly string[];
}

/**
 * Parameter tags: `<function=NAME><parameter=k>v</parameter></function>`, `<invoke name="NAME">`,
 * `NAME<arg_key>k</arg_key><arg_value>v</arg_value>`. The syntax is the tagged codec's own data.
 */
export interface TaggedCallForm extends CallFormBase {
  readonly codec: 'tagged';
  /**
   * The block's closer (`</tool_call>`): the form holds calls up to it. Absent: the opener is a
   * call's own opening tag (then `openConsumed` says how much of the call's header it took).
   */
  readonly close?: string;
  readonly syntax: ParameterTagsSyntax;
  /** For a call opener without a block: the part of the header the opener took (`=`, ` `). */
  readonly openConsumed?: string;
  /** For a call opener without a block: the block closer models still write after it, dropped. */
  readonly strayClose?: string;
}

/** Python calls: `[get_weather(city="Oslo"), f(x=1)]`, or one per line. */
export interface PythonCallForm extends CallFormBase {
  readonly codec: 'python';
  /** The literal after the calls (`<|python_end|>`). Optional: a block may end with its calls. */
  readonly close?: string;
  /** The opener already took the list's `[`. */
  readonly listOpened?: boolean;
  /** One call, not a list. */
  readonly single?: boolean;
  /** One call per line with nothing around them. */
  readonly lines?: boolean;
  /**
   * The block may hold JSON calls instead (`[{"name": …, "arguments": {…}}]`, LFM2's older
   * models), read as the `json` codec reads them up to `close`, which it then needs.
   */
  readonly jsonFallback?: boolean;
  /** Written between a tool's name and `(` (Llama 3's built-ins: `brave_search.call(…)`). */
  readonly nameSuffix?: string;
  /** With `jsonFallback`: dropped between the JSON calls (Llama 3's `;`). */
  readonly separator?: string;
  /**
   * With `jsonFallback`: the keys that may hold the arguments, the first named in faults.
   * Default `["arguments", "parameters"]` (Llama 3 writes `parameters`).
   */
  readonly argumentKeys?: readonly string[];
  /**
   * What follows the opener and names no declared tool is raw code for the code interpreter
   * (Llama 3's `<|python_tag|>print(1)`), ended by `close` or the spec's alternatives.
   */
  readonly rawCode?: RawCodeSpec;
}

/**
 * A JSON-like dialect with its own string delimiters and bare keys, after a name header:
 * Gemma 4's `call:NAME{city:<|"|>Oslo<|"|>,days:3}`, FunctionGemma's `<escape>` strings.
 * `NAME(key="v")` after the name (Gemma 4's parenthesis fallback) is read as one Python call,
 * whose closer is then `close`. A speculative form (a bare `call:`, which prose can hold) is
 * calls only when they are the rest of the output, one after another, closers optional between
 * them: they are held until the output ends.
 */
export interface DialectCallForm extends CallFormBase {
  readonly codec: 'dialect';
  /** The literal after the call (`<tool_call|>`). Absent: the call ends where its object ends. */
  readonly close?: string;
  /** Other literals that also end the call, where models write them (`<turn|>`). */
  readonly closeAlternatives?: readonly string[];
  /** What comes between the opener and the name (`call:`), if anything. */
  readonly namePrefix?: string;
  /** The string delimiter pair (`<|"|>`, `<|"|>`); nothing inside is escaped. */
  readonly stringDelimiters: readonly [open: string, close: string];
  /** Also read ordinary double-quoted JSON strings. Default false. */
  readonly quotedStrings?: boolean;
  /**
   * In explicit forms, read `NAME(key="v")` as one Python call (Gemma 4's parenthesis fallback).
   * Default true; `false`: the dialect and nothing else (FunctionGemma), a parenthesis fails the
   * call.
   */
  readonly parenthesisCalls?: boolean;
  /**
   * With `speculative`: the calls are the whole output (FunctionGemma's, once a server strips its
   * tokens). Once the first call names a declared tool the block is calls, so anything after it
   * but further calls, or arguments that do not read, fail the block with a fault, and none runs.
   * Default: such a block is text.
   */
  readonly wholeOutput?: boolean;
}

/**
 * Raw code as a call, from the opener to `close` (or one of `closeAlternatives`, or the end of
 * the output): one argument of the first declared of `tools` (Functionary's `<|python_tag|>`).
 * None declared: the code is text.
 */
export interface RawCodeCallForm extends CallFormBase, RawCodeSpec {
  readonly codec: 'raw-code';
  readonly close?: string;
}

/**
 * What `formatToolCall` writes. Templates take `{name}`, `{name_json}` (the name as a JSON
 * string), `{index}` (0-based in the batch), `{number}` (1-based), `{id}` (the call's id, else
 * the index) and `{arguments}` (the input in the form's codec: JSON, the dialect, or, for tagged
 * forms, the parameters written with `parameter`, which takes `{key}`, `{value}`, `{value_json}`,
 * `{type}` and `{string}`: `true` when the value is a string written as it is).
 */
export interface WriteSpec {
  /** Which entry of `calls` the writer follows (for its codec). Default 0. */
  readonly form?: number;
  /** Written once before and after a batch of calls. */
  readonly section?: { readonly open: string; readonly close: string };
  /** One call. Example: `<tool_call>\n{"name": "{name}", "arguments": {arguments}}\n</tool_call>`. */
  readonly call: string;
  /** Between two calls of a batch. Default `""`. */
  readonly join?: string;
  /** A batch of no calls. Default: the section's opener and closer with nothing between. */
  readonly empty?: string;
  /**
   * Tagged forms: one argument, with `{key}` and `{value}` (a string as it is, anything else as
   * JSON). The arguments are joined with nothing between them.
   */
  readonly parameter?: string;
}

/**
 * What `formatToolResponse` writes. `each` takes `{name}`, `{index}`, `{id}` and `{output}` (the
 * result: text as it is, guarded so it can never read as a call, or JSON).
 */
export interface ResultSpec {
  readonly section?: { readonly open: string; readonly close: string };
  readonly each: string;
  readonly join?: string;
  /** `text` (default): a string result as it is, anything else as JSON; `json`: always JSON. */
  readonly output?: 'text' | 'json';
  /** Written before a failed call's message. Default `Error: `. */
  readonly errorPrefix?: string;
}

/**
 * The system-prompt section. `text` takes `{tools}` (one JSON declaration per line,
 * `{"type": "function", "function": {…}}`), `{tool_list}` (a JSON array of them), `{functions}`
 * and `{function_list}` (the same without the `{"type": "function"}` wrapper), `{typescript}`
 * (a `namespace functions { … }` of TypeScript signatures), `{example}` (a call to the first tool,
 * written by the writer) and `{call_open}` (the first form's opener).
 */
export interface PromptSpec {
  readonly text: string;
}
