import { createJsonTokenizer, type JsonTokenizer } from '../scan/json-tokenizer.ts';

/**
 * Reads the `result` string out of a completion call's streamed arguments (`{"result":"…"}`) as
 * it arrives, so the final answer streams to the page as text instead of as a call's JSON.
 * Only a string directly under the top-level `result` key counts; anything else is ignored
 * here and the whole answer is sent when the call completes.
 */
export class CompletionTextReader {
  private readonly tokenizer: JsonTokenizer;
  private depth = 0;
  private key: string | undefined;
  private inResult = false;
  private pieces: string[] = [];
  /** Everything read out of `result` so far. */
  text = '';

  constructor(resultKey = 'result') {
    this.tokenizer = createJsonTokenizer({
      startObject: () => {
        this.depth++;
      },
      endObject: () => {
        this.depth--;
      },
      startArray: () => {
        this.depth++;
      },
      endArray: () => {
        this.depth--;
      },
      key: (name) => {
        this.key = name;
      },
      startString: () => {
        this.inResult = this.depth === 1 && this.key === resultKey;
      },
      stringChunk: (decoded) => {
        if (this.inResult) this.pieces.push(decoded);
      },
      endString: () => {
        this.inResult = false;
      },
      primitive: () => {},
    });
  }

  /** Feeds the next piece of the arguments' JSON text; returns the answer text it completes. */
  push(delta: string): string {
    if (this.tokenizer.status !== 'pending') return '';
    this.tokenizer.write(delta);
    if (this.pieces.length === 0) return '';
    const piece = this.pieces.join('');
    this.pieces = [];
    this.text += piece;
    return piece;
  }
}
