/**
 * Command-line options (`--base-url`) kept on one line in the page's messages: a browser may
 * break a line after a hyphen, which showed `--base-url` as `--` and `base-url`.
 */
import { el } from './dom.ts';
import { optionPieces } from './option-pieces.ts';

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
