/**
 * `toolwire/ai-sdk`: tool calling for any model through the AI SDK's `wrapLanguageModel`.
 * Needs the peer dependencies `ai` (≥ 7; ≥ 6 for the `…V3` variants) and `@ai-sdk/provider`;
 * it imports only their types, so nothing from them is loaded at run time.
 */
export type {
  ProtocolFault,
  ProtocolFaultCode,
  ToolCallProtocol,
  ToolDefinition,
  ValidationProblem,
} from '../core/index.ts';
export { executeProtocol, hermesProtocol, xmlProtocol } from '../protocols/index.ts';
export {
  type ToolChoiceDemand,
  ToolMiddlewareError,
  type ToolMiddlewareErrorCode,
} from './errors.ts';
export { METADATA_KEY, type ToolCallMetadata } from './metadata.ts';
export { createToolMiddleware } from './middleware.ts';
export type {
  MalformedCallHandling,
  PresetOptions,
  ProviderToolHandling,
  ToolChoicePromptContext,
  ToolMiddlewareOptions,
  ToolPromptPlacement,
} from './options.ts';
export { executeToolMiddleware, hermesToolMiddleware, xmlToolMiddleware } from './presets.ts';
export {
  createToolMiddlewareV3,
  executeToolMiddlewareV3,
  hermesToolMiddlewareV3,
  xmlToolMiddlewareV3,
} from './v3.ts';
