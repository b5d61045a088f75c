/**
 * The content-block stream: typed block events, the encoder (SSE), the incremental
 * decoder (browser and Node), a document model for pages, and web-stream helpers. Nothing here
 * imports Node. The AI SDK `fullStream` adapter is in `toolwire/ai-sdk`
 * (`src/ai-sdk/full-stream-blocks.ts`).
 */
export type {
  BlockEvent,
  BlockEventType,
  BlockTextEmbedEvent,
  BlockToolCallEvent,
  BlockToolResultEvent,
  Citation,
  DecodedEvent,
  DecodeProblem,
  DecodeProblemCode,
  FileRecord,
  JsonValue,
  MetaFinalData,
  MetaInitData,
  PendingFrontendTool,
  ToolKind,
  ToolResultPart,
} from './blocks.ts';
export {
  type BlockDecoder,
  type BlockDecoderOptions,
  createBlockDecoder,
  decodeBlocks,
} from './decoder.ts';
export {
  BlockDocument,
  type DocumentBlock,
  type DocumentBlockKind,
  type DocumentToolCall,
  type TextEmbed,
} from './document.ts';
export {
  BlockEncodeError,
  BlockEncoder,
  type BlockEncoderOptions,
  encodeBlocks,
} from './encoder.ts';
export { cdata, escapeAttribute } from './escape.ts';
export { frameSse, SSE_HEADERS } from './sse.ts';
export {
  blockEventsToSse,
  createBlockDecoderStream,
  createBlockEncoderStream,
  iterableToStream,
} from './web-streams.ts';
export {
  DEFAULT_MAX_BLOCK_CHARS,
  type ReceivingBlock,
  XmlBlockDecoder,
  type XmlBlockDecoderOptions,
} from './xml-decoder.ts';
