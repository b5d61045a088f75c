import type { TaggedCallForm } from '../spec/types.ts';

/**
 * DSML's spellings: V3.2 writes `<｜DSML｜function_calls>`, V4 renamed the block
 * `<｜DSML｜tool_calls>` and changed nothing else (vLLM's `DeepSeekV4ToolParser` keeps V3.2's
 * invoke and parameter grammar; V4's `encoding/encoding_dsv4.py`). V4.1 names the block ` calls`
 * and puts a space before every tag name (`<｜DSML｜ invoke name="f">`, `<｜DSML｜ parameter …>`:
 * SGLang's `DeepSeekV41Detector`, vLLM's `deepseek_v41` parser config). Each block ends at its own
 * closer, and its invokes and parameters are spelt as it is.
 */
const DSML_FORMS = [
  { block: 'function_calls', space: '' },
  { block: 'tool_calls', space: '' },
  { block: ' calls', space: ' ' },
] as const;

/**
 * DSML with the bar `bar` (full-width `｜` as the tokenizer spells it, or ASCII `|`):
 * `<｜DSML｜invoke name="f">` with `<｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>`,
 * in either block, as tagged call forms.
 */
export function dsmlForms(bar: string): TaggedCallForm[] {
  const prefix = `${bar}DSML${bar}`;
  return DSML_FORMS.map(({ block, space }) => ({
    codec: 'tagged',
    open: `<${prefix}${block}>`,
    close: `</${prefix}${block}>`,
    syntax: {
      callOpen: `<${prefix}${space}invoke`,
      callClose: `</${prefix}${space}invoke>`,
      parameterOpen: `<${prefix}${space}parameter`,
      parameterClose: `</${prefix}${space}parameter>`,
      layout: 'inline',
    },
  }));
}

/**
 * Names in DSML invokes (`<｜DSML｜invoke name="NAME">`, either bar, V4.1's space or not), for the
 * agent's feedback.
 */
export function dsmlToolNamesIn(text: string): string[] {
  return Array.from(
    text.matchAll(/<[｜|]DSML[｜|] ?invoke[ \t]+name="([^"<>\n]{1,100})"/g),
    (match) => match[1]!,
  );
}
