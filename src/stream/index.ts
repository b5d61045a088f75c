/**
 * The content-block stream: typed block events, the encoder (SSE), the incremental
 * decoder (browser and Node), a document model for pages, web-stream helpers, and the AI SDK
 * `fullStream` adapter. Nothing here imports Node.
 */
export {
  type EncodeFullStreamOptions,
  encodeFullStream,
  FullStreamAdapter,
  type FullStreamOptions,
  fullStreamToBlocks,
  type RunSummary,
} from './ai-sdk.ts';
export type {
  BlockEvent,
  BlockEventType,
  Citation,
  DecodedEvent,
  DecodeProblem,
  DecodeProblemCode,
  FileRecord,
  JsonValue,
  MetaFinalData,
  MetaInitData,
  PendingFrontendTool,
  TextEmbedEvent,
  ToolCallEvent as BlockToolCallEvent,
  ToolKind,
  ToolResultEvent,
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
