import { setOwnProperty } from '../../core/index.ts';
import { EntityDecoder, TrimmingSink } from './value-text.ts';

/** Receives the pieces of one parameter value, in order, as the call body scans them. */
export interface ValueSink {
  /** Text outside CDATA, entities still encoded (tags that are content arrive through here too). */
  text(raw: string): void;
  cdata(content: string): void;
  openTag(name: string, raw: string, selfClosing: boolean): void;
  closeTag(name: string, raw: string): void;
  end(): void;
}

/**
 * A sink for a string value that streams: decoded, trimmed, passed on in pieces. One per call
 * body, `reset` for each string value.
 */
export class StringValueSink implements ValueSink {
  private readonly trimmer: TrimmingSink;
  private readonly decoder: EntityDecoder;

  constructor(emit: (text: string) => void) {
    this.trimmer = new TrimmingSink(emit);
    this.decoder = new EntityDecoder(this.trimmer);
  }

  reset(): void {
    this.trimmer.reset();
  }

  text(raw: string): void {
    this.decoder.write(raw);
  }

  cdata(content: string): void {
    this.decoder.end();
    this.trimmer.content(content);
  }

  openTag(_name: string, raw: string): void {
    this.decoder.write(raw);
  }

  closeTag(_name: string, raw: string): void {
    this.decoder.write(raw);
  }

  end(): void {
    this.decoder.end();
    this.trimmer.end();
  }
}

interface FragmentElement {
  readonly name: string;
  readonly pieces: HeldPiece[];
  readonly children: FragmentElement[];
}

/**
 * Held text decodes and trims exactly as a streamed value does, through one sink shared by every
 * held value: values are decoded one at a time, each to its end, so it is reset between them.
 */
let decodedText = '';
const heldTextSink = new StringValueSink((text) => {
  decodedText += text;
});

/** A piece of a held value: literal text (entities encoded), or content (CDATA). */
export interface HeldPiece {
  readonly text: string;
  readonly isContent: boolean;
}

/** Pieces of one value, decoded and trimmed as a streamed value would be. */
export function decodeHeldPieces(pieces: readonly HeldPiece[]): string {
  heldTextSink.reset();
  for (const piece of pieces) {
    if (piece.isContent) heldTextSink.cdata(piece.text);
    else heldTextSink.text(piece.text);
  }
  heldTextSink.end();
  const text = decodedText;
  decodedText = '';
  return text;
}

/** Text held whole (an attribute value), decoded and trimmed as a streamed value would be. */
export function decodeHeldText(raw: string): string {
  return decodeHeldPieces([{ text: raw, isContent: false }]);
}

/**
 * The value an element stands for: its text when it has no child elements; an array when its
 * children are all `<item>`; otherwise an object of its children, a repeated name making an array.
 */
function elementValue(element: FragmentElement): unknown {
  if (element.children.length === 0) return decodeHeldPieces(element.pieces);
  if (element.children.every((child) => child.name === 'item')) {
    return element.children.map(elementValue);
  }
  const result: Record<string, unknown> = {};
  const repeated = new Set<string>();
  for (const child of element.children) {
    const value = elementValue(child);
    if (!Object.hasOwn(result, child.name)) {
      setOwnProperty(result, child.name, value);
    } else if (repeated.has(child.name)) {
      (result[child.name] as unknown[]).push(value);
    } else {
      repeated.add(child.name);
      setOwnProperty(result, child.name, [result[child.name], value]);
    }
  }
  return result;
}

/**
 * A sink that keeps a held value's structure and builds it once the value is complete. Elements
 * nested deeper than `maxDepth` are not built (the value is built recursively): `tooDeep` says
 * so, and the call is reported instead.
 */
export class FragmentValueSink implements ValueSink {
  private readonly root: FragmentElement = { name: '', pieces: [], children: [] };
  private readonly stack: FragmentElement[] = [this.root];
  private readonly maxDepth: number;
  tooDeep = false;

  constructor(maxDepth: number) {
    this.maxDepth = maxDepth;
  }

  private top(): FragmentElement {
    return this.stack[this.stack.length - 1]!;
  }

  text(raw: string): void {
    this.top().pieces.push({ text: raw, isContent: false });
  }

  cdata(content: string): void {
    this.top().pieces.push({ text: content, isContent: true });
  }

  openTag(name: string, raw: string, selfClosing: boolean): void {
    if (this.stack.length > this.maxDepth) {
      this.tooDeep = true;
      this.text(raw);
      return;
    }
    const child: FragmentElement = { name, pieces: [], children: [] };
    this.top().children.push(child);
    if (!selfClosing) this.stack.push(child);
  }

  closeTag(name: string, raw: string): void {
    if (this.stack.length > 1 && this.top().name === name) this.stack.pop();
    else this.top().pieces.push({ text: raw, isContent: false });
  }

  end(): void {}

  result(): unknown {
    return elementValue(this.root);
  }
}
