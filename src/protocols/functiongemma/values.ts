import type { JsonTokenHandler } from '../../scan/json-tokenizer.ts';
import { DialectValueReader } from '../codecs/dialect/value-reader.ts';

/**
 * FunctionGemma's argument grammar: the dialect codec's (codecs/dialect/value-reader.ts) with
 * strings between `<escape>` tokens and no quoted strings, as its chat template writes values
 * and llama.cpp's and vLLM's readers take them. `bareText` is for output whose special tokens a
 * server stripped (`<escape>` included).
 */
export interface GemmaValueOptions {
  readonly bareText: boolean;
  readonly maxDepth: number;
}

const ESCAPE = '<escape>';

/** Reads one FunctionGemma value as it streams, reporting it as JSON tokens. */
export class GemmaValueReader extends DialectValueReader {
  constructor(handler: JsonTokenHandler, options: GemmaValueOptions) {
    super(handler, {
      stringDelimiters: [ESCAPE, ESCAPE],
      quotedStrings: false,
      bareText: options.bareText,
      maxDepth: options.maxDepth,
      delimiterName: '<escape> tokens',
      formatName: 'FunctionGemma',
    });
  }
}
