import { parseJsonText } from '../../src/core/parse-json.ts';
/** A tiny element builder: no framework, and no HTML strings except the escaped Markdown. */
export interface ElementProps {
  readonly class?: string;
  readonly text?: string;
  readonly attrs?: Readonly<Record<string, string>>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  if (props.text !== undefined) element.textContent = props.text;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  element.append(...children);
  return element;
}

/** JSON text pretty-printed, or undefined when it is not JSON of an object or array. */
export function prettyJson(text: string): string | undefined {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    return JSON.stringify(parseJsonText(trimmed), null, 2);
  } catch {
    return undefined;
  }
}

/** Images from tool results: http(s) and inline data images only. */
export function isSafeImageSource(src: string): boolean {
  return (
    /^https?:\/\//i.test(src) || /^data:image\/(?:png|jpeg|gif|webp|avif|bmp);base64,/i.test(src)
  );
}

export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}
