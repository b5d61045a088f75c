/** How a format frames JSON calls: the configuration of `JsonCallsBody`. */

import type { JsonLead } from './json-lead.ts';

/** How a protocol writes calls as JSON: which keys name the tool and hold its arguments. */
export interface JsonCallShape {
  readonly nameKeys: readonly string[];
  readonly argumentKeys: readonly string[];
  /**
   * The call object's key is the tool's name and its value the arguments (Apertus:
   * `{"get_weather": {"city": "Oslo"}}`); `nameKeys` and `argumentKeys` are then unused.
   */
  readonly nameAsKey?: boolean;
}

export interface JsonCallsBodyConfig {
  readonly shape: JsonCallShape;
  /** The literal that closes the block after the JSON (`</tool_call>`); none for bare JSON. */
  readonly closer?: string;
  /** Characters the opener consumed that are the start of the JSON (bare `{"name"`). */
  readonly jsonPrefix?: string;
  /**
   * What must follow `jsonPrefix` for the JSON to be a call (white space, a `{`, a first key):
   * checked before the JSON is read on, for openers that end in white space (`[\n`, `{ `). Not a
   * lead: no call, and what followed the opener's first character is read again as text.
   */
  readonly lead?: JsonLead;
  /**
   * Fences and bare JSON may be ordinary text: anything that is not a well-formed call to a
   * declared tool is given back as text, with no fault. Tags are explicit: a broken block is a fault.
   */
  readonly speculative: boolean;
  /** Skip a fence's language word (`json`, `tool_call`) before the JSON. */
  readonly skipLanguageTag?: boolean;
  /**
   * The tool's name comes before the JSON, which is then the arguments alone
   * (`<function=NAME>{…}`, Mistral's `NAME[ARGS]{…}`, Kimi-K2's `functions.NAME:0<|…|>{…}`).
   */
  readonly header?: CallHeader;
  /**
   * The JSON may sit in a Markdown fence (DeepSeek V3 writes ```` ```json ```` after the name):
   * the fence and its language word are skipped before the JSON and before the closer.
   */
  readonly fencedJson?: boolean;
  /**
   * JSON that is not valid is never repaired: the block is reported with its raw text (the
   * execute protocol's rule). Default: loose JSON is repaired when no data has to be invented.
   */
  readonly strictJson?: boolean;
  /**
   * What models write between calls set one after another (Llama 3's `;` in `{…}; {…}`): when a
   * call object follows it, it is dropped like the white space around it; otherwise it is text.
   */
  readonly separator?: string;
  /**
   * A closer a model leaves after bare JSON whose opening tag it left out (`{…}</tool_call>`,
   * often the second of two calls it put in one tag): consumed when only white space comes
   * between the call and it.
   */
  readonly strayCloser?: string;
  /**
   * The block holds one call object per line (MiniMax-M1's `<tool_calls>\n{…}\n{…}\n</tool_calls>`):
   * a line that is not a call object (JSON that breaks, prose) is reported with its raw text,
   * and reading goes on at the next line, so one bad line costs only itself. A value may still
   * span lines; it is judged where it breaks.
   */
  readonly perLine?: boolean;
}

/** What comes between a call's opener and its JSON arguments, naming the tool. */
export interface CallHeader {
  /** The literal that ends the header (`>` of `<function=NAME>`, `[ARGS]`). */
  readonly terminator: string;
  /** What of the header the opener literal already consumed (`=` of `<function=`). */
  readonly consumed?: string;
  /**
   * The tool's name in the header (the text between opener and terminator, with `consumed`
   * in front), or undefined when the header is not one of this format's: then no call.
   */
  readName(header: string): string | undefined;
  /** A header longer than this is not a call. Default 256. */
  readonly maxLength?: number;
}
