/**
 * Command-line options (`--base-url`) kept on one line in the page's messages: a browser may
 * break a line after a hyphen, which showed `--base-url` as `--` and `base-url`.
 */
import { el } from './dom.ts';

/**
 * Wraps each command-line option (`--base-url`, `-h`) in the element's text in a span that the
 * style sheet keeps on one line: a browser may break a line after a hyphen, which turned
 * `--base-url` into `--` and `base-url`. The text itself is unchanged, so a copy pastes as typed.
 */
export function keepOptionsWhole(root: HTMLElement): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  for (const node of texts) {
    const pieces = optionPieces(node.data);
    if (!pieces.some((piece) => piece.option)) continue;
    node.replaceWith(
      ...pieces.map((piece) =>
        piece.option ? el('span', { class: 'option', text: piece.text }) : piece.text,
      ),
    );
  }
}

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
