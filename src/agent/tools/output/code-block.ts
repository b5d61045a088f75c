/** Characters of one source line shown before it is cut (minified files have huge lines). */
export const MAX_LINE_CHARS = 400;

/** One numbered line of a code block. */
export interface NumberedLine {
  readonly number: number;
  readonly text: string;
  /** Shown with a `>` in the margin (a search match, the line asked for). */
  readonly marked?: boolean;
}

function clip(text: string): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  return `${text.slice(0, MAX_LINE_CHARS)} … [${text.length - MAX_LINE_CHARS} more characters]`;
}

/** The result of rendering as many lines as fit. */
export interface RenderedBlock {
  /** A fenced block, or `''` when not even one line fits. */
  readonly text: string;
  /** How many of the lines it shows (all of them unless the room ran out). */
  readonly shown: number;
}

/**
 * A Markdown code block of numbered lines, `  12 | text`, with a `>` margin when `markers` is on.
 * Every line starts with its number, so source text can never close the fence early.
 * Renders only the first lines that fit in `room` characters.
 */
export function renderCodeBlock(
  fence: string,
  lines: readonly NumberedLine[],
  room: number,
  markers: boolean,
): RenderedBlock {
  const width = String(lines.at(-1)?.number ?? 0).length;
  const open = `\`\`\`${fence}\n`;
  const close = '```';
  let text = open;
  let shown = 0;
  for (const line of lines) {
    const margin = markers ? (line.marked ? '> ' : '  ') : '';
    const rendered = `${margin}${String(line.number).padStart(width)} | ${clip(line.text)}\n`;
    if (text.length + rendered.length + close.length > room) break;
    text += rendered;
    shown += 1;
  }
  return { text: shown === 0 ? '' : text + close, shown };
}
