/** Splits text into lines the way `scanLines` (read.ts) numbers them. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines;
}
