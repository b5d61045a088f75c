import type { LanguageModelV3Middleware, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { executeProtocol, hermesProtocol, xmlProtocol } from '../protocols/index.ts';
import { createToolMiddleware, createToolMiddlewareV3 } from './middleware.ts';
import type { PresetOptions } from './options.ts';

/** Calls as XML elements named after the tool, one child element per parameter. */
export function xmlToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: xmlProtocol() });
}

/** Calls as `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen). */
export function hermesToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: hermesProtocol() });
}

/** `<think>` then one `<execute>[{"name": …, "args": …}, …]</execute>` batch per step. */
export function executeToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: executeProtocol() });
}

/** `xmlToolMiddleware` typed for `ai` 6. */
export function xmlToolMiddlewareV3(options: PresetOptions = {}): LanguageModelV3Middleware {
  return createToolMiddlewareV3({ ...options, protocol: xmlProtocol() });
}

/** `hermesToolMiddleware` typed for `ai` 6. */
export function hermesToolMiddlewareV3(options: PresetOptions = {}): LanguageModelV3Middleware {
  return createToolMiddlewareV3({ ...options, protocol: hermesProtocol() });
}

/** `executeToolMiddleware` typed for `ai` 6. */
export function executeToolMiddlewareV3(options: PresetOptions = {}): LanguageModelV3Middleware {
  return createToolMiddlewareV3({ ...options, protocol: executeProtocol() });
}
