/**
 * The middleware typed for `ai` 6 (`LanguageModelV3`), built from the same code as the V4 one.
 * This module's types name only V3 types of `@ai-sdk/provider`, so it type-checks against
 * provider 3 (what `ai` 6 installs), where the V4 types do not exist.
 */
import type { LanguageModelV3Middleware } from '@ai-sdk/provider';
import { createToolMiddleware } from './middleware.ts';
import type { PresetOptions, ToolMiddlewareOptions } from './options.ts';
import {
  presetExecuteProtocol,
  presetHermesProtocol,
  presetXmlProtocol,
} from './preset-protocols.ts';

/**
 * `createToolMiddleware` for `ai` 6. The V3 and V4 call options, prompts and parts this
 * middleware reads and writes have the same shapes at run time; tool-result `content` outputs
 * differ and are read in both forms.
 */
export function createToolMiddlewareV3(options: ToolMiddlewareOptions): LanguageModelV3Middleware {
  const middleware = createToolMiddleware(options);
  return {
    ...(middleware as unknown as LanguageModelV3Middleware),
    specificationVersion: 'v3',
  };
}

/** `xmlToolMiddleware` for `ai` 6. */
export function xmlToolMiddlewareV3(options: PresetOptions = {}): LanguageModelV3Middleware {
  return createToolMiddlewareV3({ ...options, protocol: presetXmlProtocol() });
}

/** `hermesToolMiddleware` for `ai` 6. */
export function hermesToolMiddlewareV3(options: PresetOptions = {}): LanguageModelV3Middleware {
  return createToolMiddlewareV3({ ...options, protocol: presetHermesProtocol() });
}

/** `executeToolMiddleware` for `ai` 6. */
export function executeToolMiddlewareV3(options: PresetOptions = {}): LanguageModelV3Middleware {
  return createToolMiddlewareV3({ ...options, protocol: presetExecuteProtocol() });
}
