/**
 * JSON text that can sit inside a prompt without ever being read back as markup: `<` and `>` are
 * written as \u003c and \u003e, which JSON readers decode to the same characters. So a tool result
 * that contains `<tool_call>` cannot become a call if the model echoes it.
 */
export function jsonForPrompt(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  return text.replace(/[<>]/g, (character) => (character === '<' ? '\\u003c' : '\\u003e'));
}
