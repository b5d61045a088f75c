import { setOwnProperty } from '../../core/index.ts';
import { createEntityDecoder, createTrimmingSink } from './value-text.ts';

/** Receives the pieces of one parameter value, in order, as the call body scans them. */
export interface ValueSink {
  /** Text outside CDATA, entities still encoded (tags that are content arrive through here too). */
  text(raw: string): void;
  cdata(content: string): void;
  openTag(name: string, raw: string, selfClosing: boolean): void;
  closeTag(name: string, raw: string): void;
  end(): void;
}

/** A sink for a string value that streams: decoded, trimmed, passed on in pieces. */
export function createStringValueSink(emit: (text: string) => void): ValueSink {
  const trimmer = createTrimmingSink(emit);
  const decoder = createEntityDecoder(trimmer);
  return {
    text: (raw) => decoder.write(raw),
    cdata(content) {
      decoder.end();
      trimmer.content(content);
    },
    openTag: (_name, raw) => decoder.write(raw),
    closeTag: (_name, raw) => decoder.write(raw),
    end() {
      decoder.end();
      trimmer.end();
    },
  };
}

interface FragmentElement {
  readonly name: string;
  readonly pieces: { text: string; isContent: boolean }[];
  readonly children: FragmentElement[];
}

function decodeText(pieces: FragmentElement['pieces']): string {
  const parts: string[] = [];
  const trimmer = createTrimmingSink((text) => parts.push(text));
  const decoder = createEntityDecoder(trimmer);
  for (const piece of pieces) {
    if (piece.isContent) {
      decoder.end();
      trimmer.content(piece.text);
    } else {
      decoder.write(piece.text);
    }
  }
  decoder.end();
  trimmer.end();
  return parts.join('');
}

/**
 * The value an element stands for: its text when it has no child elements; an array when its
 * children are all `<item>`; otherwise an object of its children, a repeated name making an array.
 */
function elementValue(element: FragmentElement): unknown {
  if (element.children.length === 0) return decodeText(element.pieces);
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

/** A sink that keeps a held value's structure and builds it once the value is complete. */
export function createFragmentValueSink(): ValueSink & { result(): unknown } {
  const root: FragmentElement = { name: '', pieces: [], children: [] };
  const stack: FragmentElement[] = [root];
  const top = () => stack[stack.length - 1]!;
  return {
    text: (raw) => top().pieces.push({ text: raw, isContent: false }),
    cdata: (content) => top().pieces.push({ text: content, isContent: true }),
    openTag(name, _raw, selfClosing) {
      const child: FragmentElement = { name, pieces: [], children: [] };
      top().children.push(child);
      if (!selfClosing) stack.push(child);
    },
    closeTag(name, raw) {
      if (stack.length > 1 && top().name === name) stack.pop();
      else top().pieces.push({ text: raw, isContent: false });
    },
    end() {},
    result: () => elementValue(root),
  };
}
