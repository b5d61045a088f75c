import {
  COLON,
  DIGIT_NINE,
  DIGIT_ZERO,
  DOT,
  LOWER_A,
  LOWER_Z,
  MINUS,
  UNDERSCORE,
  UPPER_A,
  UPPER_Z,
} from '../scan/char-codes.ts';

/** The content-block stream's tag names, shared by the encoder and the decoder. */
export const TAG = {
  metaInit: 'meta_init',
  metaFinal: 'meta_final',
  thinking: 'content-block-thinking',
  text: 'content-block-text',
  toolCall: 'content-block-tool_call',
  serverToolCall: 'content-block-server_tool_call',
  toolResult: 'content-block-tool_result',
  serverToolResult: 'content-block-server_tool_result',
  citations: 'citations',
  citation: 'citation',
  awaitingFrontendTools: 'awaiting_frontend_tools',
  metaFiles: 'content-block-meta_files',
  error: 'content-block-error',
  /** Children of a multimodal tool result. */
  resultText: 'text',
  resultImage: 'image',
} as const;

/** The content-block stream: any tag ending so is a server tool result (`content-block-web_search_tool_result`). */
export const TOOL_RESULT_SUFFIX = '_tool_result';

/** The content-block stream: elements a text block may embed. */
export const EMBED_TAGS: ReadonlySet<string> = new Set(['chart', 'table']);

/** XML names as toolwire writes and reads them (ASCII subset of XML's Name production). */
export function isNameStart(code: number): boolean {
  return (
    (code >= LOWER_A && code <= LOWER_Z) ||
    (code >= UPPER_A && code <= UPPER_Z) ||
    code === UNDERSCORE ||
    code === COLON
  );
}

export function isNameChar(code: number): boolean {
  return (
    isNameStart(code) ||
    (code >= DIGIT_ZERO && code <= DIGIT_NINE) ||
    code === MINUS ||
    code === DOT
  );
}

export function isXmlName(name: string): boolean {
  if (name.length === 0 || !isNameStart(name.charCodeAt(0))) return false;
  for (let index = 1; index < name.length; index++) {
    if (!isNameChar(name.charCodeAt(index))) return false;
  }
  return true;
}
