import type { ParameterTagsOpener, ParameterTagsSyntax } from '../common/parameter-tags-body.ts';

/**
 * The names of DSML's block: V3.2 writes `<｜DSML｜function_calls>`, V4 renamed it
 * `<｜DSML｜tool_calls>` and changed nothing else (vLLM's `DeepSeekV4ToolParser` keeps V3.2's
 * invoke and parameter grammar; V4's `encoding/encoding_dsv4.py`). Each block ends at its own
 * closer.
 */
const DSML_BLOCKS = ['function_calls', 'tool_calls'] as const;

/** One DSML block opener: its literal and the body's opener data. */
export interface DsmlOpener {
  readonly literal: string;
  readonly data: ParameterTagsOpener;
}

/**
 * DSML with the bar `bar` (full-width `｜` as the tokenizer spells it, or ASCII `|`):
 * `<｜DSML｜invoke name="f">` with `<｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>`,
 * in either block.
 */
export function dsmlOpeners(bar: string): readonly DsmlOpener[] {
  const prefix = `${bar}DSML${bar}`;
  const syntax: ParameterTagsSyntax = {
    callOpen: `<${prefix}invoke`,
    callClose: `</${prefix}invoke>`,
    parameterOpen: `<${prefix}parameter`,
    parameterClose: `</${prefix}parameter>`,
    layout: 'inline',
  };
  return DSML_BLOCKS.map((block) => ({
    literal: `<${prefix}${block}>`,
    data: { syntax, blockClose: `</${prefix}${block}>` },
  }));
}

/** Names in DSML invokes (`<｜DSML｜invoke name="NAME">`, either bar), for the agent's feedback. */
export function dsmlToolNamesIn(text: string): string[] {
  return Array.from(
    text.matchAll(/<[｜|]DSML[｜|]invoke[ \t]+name="([^"<>\n]{1,100})"/g),
    (match) => match[1]!,
  );
}
