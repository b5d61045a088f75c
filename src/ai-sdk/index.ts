/**
 * `toolwire/ai-sdk`: tool calling for any model through the AI SDK's `wrapLanguageModel`.
 * Needs the peer dependencies `ai` (≥ 7; ≥ 6 for the `…V3` variants) and `@ai-sdk/provider`;
 * it imports only their types, so nothing from them is loaded at run time. The middleware typed
 * for `ai` 6 (the `…V3` variants) is `toolwire/ai-sdk/v3`, and only there.
 * Also here: the content-block stream of an AI SDK `fullStream` (`fullStreamToBlocks`,
 * `encodeFullStream`), for serving `streamText` to the page's protocol.
 */
export type {
  ProtocolFault,
  ProtocolFaultCode,
  ToolCallProtocol,
  ToolDefinition,
  ValidationProblem,
} from '../core/index.ts';
export {
  autoProtocol,
  executeProtocol,
  formatForModel,
  hermesProtocol,
  PROTOCOL_NAMES,
  type ProtocolName,
  protocolByName,
  protocolForModel,
  xmlProtocol,
} from '../protocols/index.ts';
export {
  type ToolChoiceDemand,
  ToolMiddlewareError,
  type ToolMiddlewareErrorCode,
} from './errors.ts';
export {
  type EncodeFullStreamOptions,
  encodeFullStream,
  FullStreamAdapter,
  type FullStreamOptions,
  fullStreamToBlocks,
  type RunSummary,
} from './full-stream-blocks.ts';
export { METADATA_KEY, type ToolCallMetadata } from './metadata.ts';
export { createToolMiddleware } from './middleware.ts';
export type {
  MalformedCallHandling,
  PresetOptions,
  ProtocolChoice,
  ProviderToolHandling,
  ToolChoicePromptContext,
  ToolMiddlewareOptions,
  ToolPromptPlacement,
} from './options.ts';
export {
  executeToolMiddleware,
  glmToolMiddleware,
  gptOssToolMiddleware,
  hermesToolMiddleware,
  llama3ToolMiddleware,
  mistralToolMiddleware,
  qwen3CoderToolMiddleware,
  toolMiddlewareFor,
  xmlToolMiddleware,
} from './presets.ts';
