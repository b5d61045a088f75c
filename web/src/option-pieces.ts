/** Finding command-line options in a text (no DOM here: it runs in Node tests too). */

/**
 * A text cut into options and the rest. An option starts with one or two hyphens after a space,
 * an opening bracket or quote, or the start, and runs over letters, digits, `-` and `_`.
 * One pass, no regular expression.
 */
export function optionPieces(text: string): { text: string; option: boolean }[] {
  const pieces: { text: string; option: boolean }[] = [];
  let plainStart = 0;
  let index = 0;
  while (index < text.length) {
    const before = index === 0 ? ' ' : text[index - 1]!;
    if (text[index] === '-' && ' \t\n([{"\'`'.includes(before)) {
      let end = index + 1;
      if (text[end] === '-') end++;
      const nameStart = end;
      while (end < text.length && isOptionChar(text[end]!)) end++;
      if (end > nameStart && isLetter(text[nameStart]!)) {
        if (index > plainStart) pieces.push({ text: text.slice(plainStart, index), option: false });
        pieces.push({ text: text.slice(index, end), option: true });
        plainStart = end;
        index = end;
        continue;
      }
    }
    index++;
  }
  if (plainStart < text.length || pieces.length === 0)
    pieces.push({ text: text.slice(plainStart), option: false });
  return pieces;
}

function isLetter(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z');
}

function isOptionChar(char: string): boolean {
  return isLetter(char) || (char >= '0' && char <= '9') || char === '-' || char === '_';
}
